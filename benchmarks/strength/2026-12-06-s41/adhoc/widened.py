"""What ``move.fill_breadth`` did, run by run (session 41).

Usage: python widened.py RUN_DIR [RUN_DIR ...]

Over the engine-chosen moves (not in panic) on 100+ believed boards, and on 400+ of them: the median
boards scored, the median boards the breadth fill added (``boards_widened``, 0 in runs without it),
the share of those moves it added any on, the median depth and the median share of the turn's budget
used; and the turns of the whole run past 1.2 times their budget.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def turns(run: Path) -> list[dict]:
    logs = sorted(run.glob("*.turns.jsonl"))
    return [json.loads(line) for log in logs for line in log.read_text().splitlines()]


def summary(moves: list[dict]) -> str:
    if not moves:
        return "none"
    widened = [t.get("boards_widened", 0) for t in moves]
    return (
        f"{len(moves)} moves: scored {statistics.median(t['boards_scored'] for t in moves):g}, "
        f"widened {statistics.median(widened):g} (any on {sum(w > 0 for w in widened) / len(moves):.0%}), "
        f"depth {statistics.median(t['depth'] for t in moves):g}, "
        f"budget used {statistics.median(t['seconds_turn'] / t['budget'] for t in moves):.0%}"
    )


def main() -> None:
    for run in map(Path, sys.argv[1:]):
        every = turns(run)
        moves = [t for t in every if t.get("move_reason") == "best-worst" and not t["panic"]]
        large = [t for t in moves if t["belief"]["after_sense"][0] >= 100]
        over = sum(t["seconds_turn"] > 1.2 * t["budget"] for t in every)
        print(f"{run}:")
        print(f"  on 100+ boards: {summary(large)}")
        print(f"  on 400+ boards: {summary([t for t in large if t['belief']['after_sense'][0] >= 400])}")
        print(f"  turns past 1.2x their budget: {over} of {len(every)}")


if __name__ == "__main__":
    main()
