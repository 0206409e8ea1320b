"""Belief recovery speed: re-simulating at least ``RECOVERY_BATCH`` stashed boards at a time, against
re-simulating ``cap`` boards at a time (the tracker before the batch floor).

Why: when every live board is contradicted the tracker re-simulates its earliest stash through every
later observation. Each observation costs a fixed overhead per call besides its cost per board, so
with a small cap (the clock lowers it to ``belief.min_cap`` when time is short; the belief tests run
caps of 8 and 64) recovery spent most of its time in calls on a handful of boards.

    python benchmarks/recovery.py            # about 2 minutes on 2 shared cores
    python benchmarks/recovery.py --json     # the last line is one JSON object

The observations come from the belief tests' games (``tests/belief_helpers.py``: a random mover that
senses by partition count, against RandomBot and AttackerBot, both colours, seeded), played once;
each batch then replays the very same observations into a fresh tracker, round-robin, and the truth
is checked to be live or stashed at the end of every replay. Times are CPU seconds of this process.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from belief_helpers import run_games

from rbc_bot import belief
from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_observations import Observation

Games = list[tuple[chess.Color, list[Observation], dict[int, chess.Board]]]


def record(cap: int, seeds: range, turns: int) -> Games:
    """Each game's colour, observations and true board after each of them, played at ``cap``."""
    observers = run_games(cap, seeds, ["random", "attacker"], turns=turns)
    return [(o.tracker.color, list(o.tracker.observations), o.truth_at) for o in observers]


def replay(games: Games, cap: int, batch: int) -> tuple[float, int]:
    """CPU seconds to replay every game's observations at ``cap`` with ``batch``, and the recoveries."""
    belief.RECOVERY_BATCH = batch
    seconds, recoveries = 0.0, 0
    for color, observations, truth_at in games:
        tracker = BeliefTracker(color, cap=cap, seed=1)
        start = time.process_time()
        for observation in observations:
            tracker._observe(observation)  # the tracker's own entry point, for an exact replay
        seconds += time.process_time() - start
        recoveries += tracker.stats.recoveries
        held = tracker.contains(truth_at[len(observations)]) or any(
            tracker.stash_contains(s.index, truth_at[s.index]) for s in tracker.stashes
        )
        if not held:
            raise SystemExit("recovery.py: a replay lost the true board")
    return seconds, recoveries


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--caps", type=int, nargs="+", default=[8, 64])
    parser.add_argument("--seeds", type=int, default=4, help="seeds per opponent and colour")
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=3, help="timed replays per batch (the median)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    floor = belief.RECOVERY_BATCH
    out: dict[str, float] = {"batch_floor": floor}
    for cap in args.caps:
        games = record(cap, range(args.seeds), args.turns)
        times: dict[int, list[float]] = {1: [], floor: []}
        counts: dict[int, int] = {}
        for _ in range(args.repeats):
            for batch in times:  # batch 1 is batch = cap: the tracker before the floor
                seconds, counts[batch] = replay(games, cap, batch)
                times[batch].append(seconds)
        belief.RECOVERY_BATCH = floor
        old, new = statistics.median(times[1]), statistics.median(times[floor])
        print(
            f"cap {cap:>5}, {len(games)} games: batch of cap {old:6.2f} s ({counts[1]} recoveries), "
            f"batch >= {floor} {new:6.2f} s ({counts[floor]} recoveries): {old / new:.1f}x faster"
        )
        out[f"cap{cap}_speedup"] = old / new
    if args.json:
        print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
