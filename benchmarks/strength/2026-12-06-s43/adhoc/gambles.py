"""How often our bot's king-capture gambles hit against StrangeFish, and how the games went after a miss.

Usage: python gambles.py SESSION_GLOB [SESSION_GLOB ...]   (e.g. "s3[2-9]" "s4*", read under
benchmarks/strength/2026-12-0*-GLOB/*/)

A gamble here is a turn whose chosen move has a mean score over the scored boards above +500 cp while
its worst board is below -200 cp: the mean is lifted by boards on which the move (or the next) takes
the king (+30,000), the worst says what a miss costs. The share of such boards is estimated from the
mean as (mean + 300) / 30,300 (the other boards taken at -300 cp). A hit is a game our bot won by king
capture on that turn or the next. Only StrangeFish games at 120+5 with turn logs, each replay once.
"""

from __future__ import annotations

import glob
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]
BANDS = [(0.0, 0.1), (0.1, 0.2), (0.2, 0.3), (0.3, 0.5), (0.5, 1.01)]


def gambles(pattern: str) -> tuple[int, list[tuple[float, bool, bool]]]:
    """(games read, [(estimated share, hit, game won)]) over the runs the pattern names."""
    seen: set[str] = set()
    found: list[tuple[float, bool, bool]] = []
    for run in sorted(glob.glob(str(ROOT / f"benchmarks/strength/2026-12-0*-{pattern}/*/"))):
        results = Path(run) / "results.jsonl"
        if not results.is_file():
            continue
        for line in results.read_text().splitlines():
            record = json.loads(line)
            if "strangefish" not in record["white"] + record["black"] or record.get("seconds") != 120.0:
                continue
            name = Path(record["replay"]).name
            log = Path(run) / f"{name}.turns.jsonl"
            if name in seen or not log.is_file():
                continue
            seen.add(name)
            ours = "white" if "rbc_bot" in record["white"] else "black"
            won = record["winner"] == ours
            turns = [json.loads(row) for row in log.read_text().splitlines()]
            for i, turn in enumerate(turns):
                chosen = [c for c in turn.get("candidates") or [] if c["move"] == turn.get("chosen_move")]
                if chosen and chosen[0]["mean"] > 500 and chosen[0]["worst"] < -200:
                    share = max(0.0, min(1.0, (chosen[0]["mean"] + 300) / 30300))
                    hit = won and record["reason"] == "KING_CAPTURE" and i >= len(turns) - 2
                    found.append((share, hit, won))
    return len(seen), found


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("gambles.py: error: give at least one session glob, e.g. 's4*'")
    for pattern in sys.argv[1:]:
        games, found = gambles(pattern)
        print(f"{pattern}: {games} games, {len(found)} gambles")
        for low, high in BANDS:
            band = [g for g in found if low <= g[0] < high]
            if band:
                hits = sum(g[1] for g in band)
                missed = [g for g in band if not g[1]]
                print(f"  estimated share {low:.1f}-{min(high, 1.0):.1f}: {len(band)} gambles, {hits} hit; "
                      f"games won after a miss {sum(g[2] for g in missed)} of {len(missed)}")  # fmt: skip


if __name__ == "__main__":
    main()
