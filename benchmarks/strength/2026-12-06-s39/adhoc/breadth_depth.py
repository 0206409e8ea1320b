"""Boards scored against depth on the larger beliefs, run by run (session 39).

Usage: python breadth_depth.py RUN_DIR [RUN_DIR ...]

Over the engine-chosen moves (not in panic) on 100+ believed boards: the median depth of the last
pass, the median boards scored, the median share of the turn's budget used, and the share of those
turns searched at depth 5 or less.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def main() -> None:
    for run in map(Path, sys.argv[1:]):
        depths, boards, used = [], [], []
        for log in sorted(run.glob("*.turns.jsonl")):
            for line in log.read_text().splitlines():
                turn = json.loads(line)
                if turn.get("move_reason") != "best-worst" or turn["panic"]:
                    continue
                if turn["belief"]["after_sense"][0] < 100:
                    continue
                depths.append(turn["depth"])
                boards.append(turn["boards_scored"])
                used.append(turn["seconds_turn"] / turn["budget"])
        if not depths:
            print(f"{run}: no move on 100+ boards")
            continue
        shallow = sum(d <= 5 for d in depths) / len(depths)
        print(
            f"{run}: {len(depths)} moves on 100+ boards: median depth {statistics.median(depths):g}, "
            f"boards scored {statistics.median(boards):g}, budget used {statistics.median(used):.0%}, "
            f"depth <= 5 on {shallow:.0%}"
        )


if __name__ == "__main__":
    main()
