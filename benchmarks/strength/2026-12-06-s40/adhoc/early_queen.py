"""Does an early queen move cost games against StrangeFish? (session 40)

Usage: python early_queen.py RUN_DIR [RUN_DIR ...]

For each of our games (from its turn log): whether our queen left its square in our first four turns.
Prints W/L by colour and that split, then the same over only the seeds and colours on which some game
had the early queen move and another did not (the same opening position from StrangeFish's side,
so the split is less a matter of which openings StrangeFish chose).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path


def games(run: Path) -> list[tuple[int, str, bool, bool]]:
    """(seed, our colour, early queen move, won) for each game of the run with our turn log."""
    rows = []
    for line in (run / "results.jsonl").read_text().splitlines():
        record = json.loads(line)
        colour = record["a_color"]
        log = record["turn_logs"].get(colour)
        if not log or not (run / Path(log).name).exists():
            continue
        turns = [json.loads(t) for t in (run / Path(log).name).read_text().splitlines()]
        home = "d1" if colour == "white" else "d8"
        early = any((t.get("taken_move") or "")[:2] == home for t in turns[:4])
        rows.append((record["seed"], colour, early, record["winner"] == colour))
    return rows


def main() -> None:
    rows = [row for run in map(Path, sys.argv[1:]) for row in games(run)]
    split: dict[tuple[str, bool], list[int]] = defaultdict(lambda: [0, 0])
    for _, colour, early, won in rows:
        split[(colour, early)][0 if won else 1] += 1
    for (colour, early), (won, lost) in sorted(split.items()):
        label = "queen moved by turn 4" if early else "queen home after turn 4"
        print(f"{colour:5} {label:24} {won:4}-{lost:<4} {won / (won + lost):.0%}")
    by_seat: dict[tuple[int, str], list[tuple[bool, bool]]] = defaultdict(list)
    for seed, colour, early, won in rows:
        by_seat[(seed, colour)].append((early, won))
    both = [g for seat in by_seat.values() if len({e for e, _ in seat}) == 2 for g in seat]
    for early in (True, False):
        won = sum(w for e, w in both if e == early)
        lost = sum(not w for e, w in both if e == early)
        label = "queen moved by turn 4" if early else "queen home after turn 4"
        print(f"seats with both: {label:24} {won}-{lost} {won / max(1, won + lost):.1%}")


if __name__ == "__main__":
    main()
