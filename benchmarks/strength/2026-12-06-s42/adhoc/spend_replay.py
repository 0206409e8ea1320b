"""What `clock.spend_target` would leave of the clock in recorded games: an estimate, not a match.

Usage: python spend_replay.py RUN_DIR [RUN_DIR ...] [--target 0.9]

Each recorded turn of our bot spent a share of its budget (``seconds_turn / budget`` in the turn log);
the replay keeps that share, turn by turn, and lets the clock (with and without the target) set the
budgets from the time it would have had left, the increment added after each turn. Prints per game the
share of the available clock (base plus increments) left unused as recorded, as the replay without the
target gives it (a check of the model), and with it, then the medians. Turns under a second's budget
keep their recorded seconds (the clock learns nothing from them either).
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path

from rbc_bot.clock import Clock
from rbc_bot.config import ClockConfig


def replay(turns: list[dict], seconds: float, increment: float, target: float) -> float:
    """The share of the available clock left unused at the end of the replayed game."""
    clock = Clock(ClockConfig(spend_target=target), increment)
    left = seconds
    for turn in turns:
        budget = clock.budget(left)
        share = turn["seconds_turn"] / turn["budget"] if turn["budget"] >= Clock.LEAST_LEARNED else None
        spent = turn["seconds_turn"] if share is None else share * budget.total
        left = max(0.0, left - spent) + increment
        clock.end_turn(budget, spent)
    return left / (seconds + increment * len(turns))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--target", type=float, default=0.9)
    args = parser.parse_args()
    rows = []
    for run in args.runs:
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            ours = record["a_color"]
            log = Path(record["turn_logs"][ours])
            log = log if log.exists() else run / log.name
            turns = [json.loads(t) for t in log.read_text().splitlines()]
            turns = [t for t in turns if t.get("budget") is not None and t.get("seconds_turn") is not None]
            if not turns:
                continue
            available = record["seconds"] + record["increment"] * len(turns)
            recorded = record["seconds_left"][ours] / available
            base = replay(turns, record["seconds"], record["increment"], 0.0)
            stretched = replay(turns, record["seconds"], record["increment"], args.target)
            rows.append((recorded, base, stretched))
            print(f"{log.name[:60]:60} turns {len(turns):3}  unused: recorded {recorded:.0%}, "
                  f"replay {base:.0%}, target {args.target:g} {stretched:.0%}")  # fmt: skip
    if rows:
        medians = [statistics.median(column) for column in zip(*rows, strict=True)]
        print(f"median unused over {len(rows)} games: recorded {medians[0]:.0%}, replay {medians[1]:.0%}, "
              f"target {args.target:g} {medians[2]:.0%}")  # fmt: skip


if __name__ == "__main__":
    main()
