"""Games whose move scored few of the believed boards all game (session 38).

Usage: python stuck_boards.py RUN_DIR [RUN_DIR ...]

For each game with at least 3 move turns on 20+ believed boards: the median share of
min(believed, move.max_boards=400) that the move scored, the game's points, and the games under half.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def main() -> None:
    shares: dict[bool, list[float]] = {True: [], False: []}
    for run in map(Path, sys.argv[1:]):
        records = {}
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            records[Path(record["replay"]).name] = record
        for log in sorted(run.glob("*.turns.jsonl")):
            record = records.get(log.name.removesuffix(".turns.jsonl"))
            if record is None:
                continue
            turns = [json.loads(line) for line in log.read_text().splitlines() if line.strip()]
            moved = [
                t for t in turns
                if t["belief"]["after_sense"][0] >= 20 and not t["panic"] and t["move_reason"] == "best-worst"
            ]  # fmt: skip
            if len(moved) < 3:
                continue
            share = statistics.median(
                t["boards_scored"] / min(t["belief"]["after_sense"][0], 400) for t in moved
            )
            points = 0.5 if record["winner"] is None else float(record["winner"] == record["a_color"])
            stuck = share < 0.5
            shares[stuck].append(points)
            if stuck:
                scored = [t["boards_scored"] for t in moved]
                print(
                    f"{run.name} seed {record['seed']} {record['a_color']}: points {points:g}, median share "
                    f"{share:.2f} over {len(moved)} turns, boards scored {min(scored)}-{max(scored)}"
                )
    for stuck, points in shares.items():
        if points:
            label = "under half" if stuck else "half or more"
            print(f"{label}: {len(points)} games, score {sum(points) / len(points):.1%}")


if __name__ == "__main__":
    main()
