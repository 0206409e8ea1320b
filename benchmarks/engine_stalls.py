"""Engine waits on a busy machine: restarts with the starvation rule and with the timeout alone.

Why: a search past its timeout (2 x movetime + 0.5 s) counts as hung and its engine is restarted; two
in a row and the game goes on by material scoring. On a machine running other games an engine can
simply not have had a CPU: session 20's match rows restarted Stockfish 17-55 times a row.
``rbc_bot.deadline`` waits on while the engine is runnable but starved. This runs the same batches of
short searches (``EnginePool.evaluate`` at depth 8 with a 5 ms movetime, a turn's batch at a time)
through a fresh pool with the rule and with the timeout alone (``MAX_STARVED_WAIT = 0``), on a quiet
machine and in a crowd: two processes spinning per CPU at nice 0 while the pool and its engines run
at nice ``--nice`` (a bot beside games that outrank it). The passes are taken round-robin, so a burst
of outside load hits all alike. Per condition: searches, pools whose engines could not start,
restarts, give-ups (a game gone to material scoring) and wall seconds per 1,000 searches; last, the
crowd's failures (the three together) with the rule and with the timeout alone.

    python benchmarks/engine_stalls.py             # about twelve minutes
    python benchmarks/engine_stalls.py --quick     # a check that it runs
    python benchmarks/engine_stalls.py --json      # the last line is one JSON object

Run it on an otherwise idle machine: other load is a crowd of its own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import make_boards  # benchmarks/engine.py: boards of seeded random games

from rbc_bot import deadline
from rbc_bot.engine import EngineError, EnginePool

MOVETIME = 0.005
RULE_CAP = deadline.MAX_STARVED_WAIT
START_TIMEOUT = 60.0  # the start-up handshake only: a search with a movetime still times out at 2 m + 0.5 s
SPIN = [sys.executable, "-c", "while True: pass"]


def run_pass(boards: list[chess.Board], batch: int, starvation_rule: bool) -> dict[str, float]:
    """One fresh pool scores ``boards`` in batches: its restarts, give-ups and wall time (a pool whose
    engines can't even start counts as one failed start, its boards unscored)."""
    deadline.MAX_STARVED_WAIT = RULE_CAP if starvation_rule else 0.0
    started = time.perf_counter()
    try:
        with EnginePool(workers=2, timeout=START_TIMEOUT) as pool:
            for at in range(0, len(boards), batch):
                pool.evaluate(boards[at : at + batch], depth=8, movetime=MOVETIME)
            restarts, gave_up = pool.stats.restarts, pool.stats.hangs
    except EngineError:
        return {"no_start": 1, "restarts": 0, "gave_up": 0, "seconds": time.perf_counter() - started}
    return {"no_start": 0, "restarts": restarts, "gave_up": gave_up, "seconds": time.perf_counter() - started}


def start_crowd() -> list[subprocess.Popen[bytes]]:
    """Two spinning processes per CPU at nice 0 (started before this process lowers its own priority)."""
    return [subprocess.Popen(SPIN) for _ in range(2 * len(os.sched_getaffinity(0)))]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=200, help="searches a pass (default 200)")
    parser.add_argument("--batch", type=int, default=50, help="boards an evaluate call (default 50)")
    parser.add_argument("--rounds", type=int, default=3, help="passes per condition (default 3)")
    parser.add_argument("--nice", type=int, default=19, help="the pool's nice in the crowd (default 19)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="50 searches, 1 round: a check that it runs")
    parser.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    args = parser.parse_args()
    if args.quick:
        args.boards, args.rounds = 50, 1
    if os.getpriority(os.PRIO_PROCESS, 0) != 0:
        print("engine_stalls.py: run it at nice 0 (the pool runs at --nice)", file=sys.stderr)
        return 2
    boards = make_boards(args.boards, args.seed)
    totals: dict[str, dict[str, float]] = {}

    def add(condition: str, figures: dict[str, float]) -> None:
        total = totals.setdefault(
            condition, dict.fromkeys(("searches", "no_start", "restarts", "gave_up", "seconds"), 0.0)
        )
        total["searches"] += len(boards)
        for key, value in figures.items():
            total[key] += value

    for _ in range(args.rounds):  # quiet: the pool at nice 0 alone
        for rule in (True, False):
            add(f"quiet, {'rule' if rule else 'timeout alone'}", run_pass(boards, args.batch, rule))
    crowd = start_crowd()
    try:
        os.setpriority(os.PRIO_PROCESS, 0, args.nice)  # the pool's engines inherit it
        time.sleep(0.5)
        for _ in range(args.rounds):
            for rule in (True, False):
                add(f"crowd, {'rule' if rule else 'timeout alone'}", run_pass(boards, args.batch, rule))
    finally:
        for process in crowd:
            process.kill()
            process.wait()
    out: dict[str, Any] = {"nice": args.nice, "movetime": MOVETIME, "conditions": totals}
    print(
        f"{'condition':<24} {'searches':>8} {'no start':>8} {'restarts':>8} {'gave up':>8} {'s / 1,000':>9}"
    )
    for condition, total in totals.items():
        per_1000 = 1000 * total["seconds"] / total["searches"]
        print(
            f"{condition:<24} {total['searches']:>8.0f} {total['no_start']:>8.0f} {total['restarts']:>8.0f} "
            f"{total['gave_up']:>8.0f} {per_1000:>9.2f}"
        )
    alone, ruled = (
        sum(totals[f"crowd, {name}"][key] for key in ("no_start", "restarts", "gave_up"))
        for name in ("timeout alone", "rule")
    )
    out["crowd_failures_rule_vs_timeout_alone"] = ruled / alone if alone else None
    print(
        f"crowd: failed starts + restarts + give-ups, the rule / the timeout alone: {ruled:.0f} / {alone:.0f}"
    )
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
