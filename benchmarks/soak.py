"""Soak: many short-clock games of our bot against every opponent, counting what must never happen.

Why: a bot that crashes, flags or hangs once in a few hundred games loses rated games on the server;
only volume finds it. Each opponent plays one colour-swapped match (``rbc_bot.match.run_match``, each
bot in its own process) at a short clock; after the run the script reports, per opponent and in
total: games, W-L-D, crashes (ours), flags (ours), hangs (either side), internal errors and engine
restarts (from our turn logs), and processes left behind (any process a bot started still alive after
its game: checked after every game).

    python benchmarks/soak.py --out runs/soak                        # the default plan, 520 games
    python benchmarks/soak.py --out runs/soak --scale 0.1            # a tenth of it (52 games)
    python benchmarks/soak.py --out runs/soak --json                 # last line: one JSON object

Re-running with the same --out resumes every match. StrangeFish comes from ../shared/opponents.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from process_helpers import live_descendants

from rbc_bot.gauntlet import STRANGEFISH
from rbc_bot.match import MATCH_FILE, MatchSettings, match_totals, run_match
from rbc_bot.players import BotSpec

# (name, spec, seconds, increment, games, seed): most games at 20-30 s, 50+ against StrangeFish.
PLAN = [
    ("random", "random", 20.0, 0.0, 150, 5000),
    ("attacker", "attacker", 20.0, 0.0, 150, 6000),
    ("trout", "trout", 30.0, 1.0, 160, 7000),
    ("strangefish", str(STRANGEFISH), 30.0, 1.0, 60, 8000),
]


def turn_log_figures(records: list[dict[str, Any]], out_dir: Path) -> tuple[int, int]:
    """Internal errors and engine restarts of our bot over the games' turn logs."""
    errors = restarts = 0
    for record in records:
        for log in (record.get("turn_logs") or {}).values():
            path = out_dir / Path(log).name
            if not path.exists():
                continue
            turns = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            errors += turns[-1].get("errors", 0) if turns else 0
            restarts += sum(t.get("engine_restarts", 0) for t in turns)
    return errors, restarts


def soak_one(
    name: str, spec: str, seconds: float, increment: float, games: int, seed: int, out: Path
) -> dict:
    settings = MatchSettings(
        a=BotSpec("rbc_bot"), b=BotSpec(spec), games=games, seconds=seconds, increment=increment, seed=seed
    )
    folder = out / name
    left_behind: set[int] = set()
    previous: set[int] = set()

    def after_game(record: dict[str, Any], records: list[dict[str, Any]]) -> None:
        # One game at a time: the next game may already be seating its bots now, but a process seen
        # here and again after the next game has outlived a whole game, so something leaked it.
        nonlocal previous
        time.sleep(1.0)  # a SIGKILLed process takes a moment to die
        alive = live_descendants(os.getpid())
        left_behind.update(alive & previous)
        previous = alive
        totals = match_totals(records)
        print(f"{name}: {len(records)}/{games} W-L-D {totals['wins']}-{totals['losses']}-{totals['draws']}")

    summary = run_match(settings, folder, resume=(folder / MATCH_FILE).exists(), on_record=after_game)
    time.sleep(1.0)
    left_behind.update(live_descendants(os.getpid()))  # every game is over now
    records = summary["games"]
    errors, restarts = turn_log_figures(records, folder)
    totals = summary["totals"]
    return {
        "opponent": name,
        "clock": f"{seconds:g}+{increment:g}",
        "games": totals["games"],
        "wld": [totals["wins"], totals["losses"], totals["draws"]],
        "our_crashes": totals["a_crashes"],
        "our_flags": sum(1 for r in records if r["timed_out"] == r["a_color"] and r["reason"] != "HANG"),
        "hangs": totals["hangs"],
        "errors": errors,
        "engine_restarts": restarts,
        "processes_left_behind": len(left_behind),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scale", type=float, default=1.0, help="share of each opponent's games to play")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for name, spec, seconds, increment, games, seed in PLAN:
        n = max(2, 2 * round(games * args.scale / 2))
        rows.append(soak_one(name, spec, seconds, increment, n, seed, args.out))
    keys = [
        "games",
        "our_crashes",
        "our_flags",
        "hangs",
        "errors",
        "engine_restarts",
        "processes_left_behind",
    ]
    total = {key: sum(row[key] for row in rows) for key in keys}
    for row in rows:
        print(json.dumps(row))
    print("total", json.dumps(total))
    if args.json:
        print(json.dumps({"rows": rows, "total": total}))


if __name__ == "__main__":
    main()
