"""Engine throughput: ``EnginePool.evaluate`` against python-chess ``SimpleEngine`` on the same boards.

Why: the pool drives Stockfish over raw pipes because the perf notes measured python-chess's engine layer
at about a third of the speed; this checks that claim on our own code, in one run, on the same boards.

    python benchmarks/engine.py            # about 30 s on 2 cores
    python benchmarks/engine.py --json     # the last line is one JSON object

Boards: distinct chess-legal positions from seeded random games (no move stacks). Every figure is the
median of ``--repeats`` timed passes over all boards; each pass starts from a cleared hash
(``ucinewgame``), so no pass hits the hash entries of an earlier one. Includes our per-board costs
(safety check, FEN), as a caller pays them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rbc_bot.engine import EnginePool, find_stockfish


def make_boards(count: int, seed: int) -> list[chess.Board]:
    """``count`` distinct legal positions taken along seeded random games, stacks dropped."""
    rng = random.Random(seed)
    seen: set[str] = set()
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(8, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fen = board.fen()
            if fen not in seen and not board.is_game_over() and rng.random() < 0.3:
                seen.add(fen)
                boards.append(board.copy(stack=False))
    return boards[:count]


def interleaved_rates(runs: dict[str, Callable[[], object]], count: int, repeats: int) -> dict[str, float]:
    """Median boards per second of each run. Passes go round-robin over the runs, so a burst of load from
    another process on the machine hits every run alike instead of one of them."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
    return {name: count / statistics.median(seconds) for name, seconds in times.items()}


def simple_engine_pass(
    engine: chess.engine.SimpleEngine, boards: list[chess.Board], limit: chess.engine.Limit
) -> list[chess.engine.InfoDict]:
    game = object()  # a new game object makes python-chess send ucinewgame: a cleared hash per pass
    return [engine.analyse(b, limit, info=chess.engine.INFO_SCORE, game=game) for b in boards]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=300, help="distinct boards per pass")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per figure (median)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stockfish", default=None, help="Stockfish binary (default: the usual lookup)")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args()

    path = find_stockfish(args.stockfish)
    boards = make_boards(args.boards, args.seed)
    n = len(boards)
    print(f"Stockfish {path}, {n} distinct boards, median of {args.repeats} passes, hash cleared per pass")
    results: dict[str, float | int | str] = {"boards": n, "stockfish": str(path)}
    limits = {"depth1": {"depth": 1}, "nodes1000": {"nodes": 1000}}

    simple = chess.engine.SimpleEngine.popen_uci(str(path))
    simple.configure({"Threads": 1, "Hash": 16})
    pools = {workers: EnginePool(path, workers=workers, deterministic=True) for workers in (1, 2)}
    try:
        for name, limit in limits.items():
            runs: dict[str, Callable[[], object]] = {
                f"simple_{name}": partial(simple_engine_pass, simple, boards, chess.engine.Limit(**limit)),
                **{f"pool{w}_{name}": partial(pool.evaluate, boards, **limit) for w, pool in pools.items()},
            }
            for key, value in interleaved_rates(runs, n, args.repeats).items():
                results[f"{key}_evals_per_s"] = value
        tops = pools[2].top_moves(boards, 500, depth=1)
        results["moves_per_board"] = sum(len(t) for t in tops) / n
        multipv = interleaved_rates(
            {"multipv": partial(pools[2].top_moves, boards, 500, depth=1)}, n, args.repeats
        )
        results["pool2_multipv_all_depth1_boards_per_s"] = multipv["multipv"]
    finally:
        simple.quit()
        for pool in pools.values():
            pool.close()

    for name in limits:
        simple_rate = float(results[f"simple_{name}_evals_per_s"])
        for workers in (1, 2):
            pool_rate = float(results[f"pool{workers}_{name}_evals_per_s"])
            results[f"ratio_pool{workers}_vs_simple_{name}"] = pool_rate / simple_rate
        pool1, pool2 = (float(results[f"pool{w}_{name}_evals_per_s"]) for w in (1, 2))
        print(
            f"{name:>9}: SimpleEngine {simple_rate:7,.0f}/s | EnginePool 1 engine {pool1:7,.0f}/s "
            f"(x{pool1 / simple_rate:.2f}) | 2 engines {pool2:7,.0f}/s (x{pool2 / simple_rate:.2f})"
        )
    multipv_rate = float(results["pool2_multipv_all_depth1_boards_per_s"])
    print(
        f"MultiPV=all, depth 1, 2 engines: {multipv_rate:,.0f} boards/s "
        f"({multipv_rate * float(results['moves_per_board']):,.0f} move scores/s)"
    )
    if args.json:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in results.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
