"""Where the true board ranks among the believed boards by Stockfish's score for the side to move (us).

Usage: PYTHONPATH=benchmarks python eval_rank.py SUITE.jsonl.gz [--boards 40] [--depth 8] [--limit N]
       [--parts 5]

Why (hypothesis d): if a strong opponent's moves make the boards that are good for it likelier, the
true board sits low in our scores more often than a uniform draw would. For each suite position with
at least 5 believed boards, up to --boards of them (the truth among them) are scored; the truth's
rank u = (boards scored below it + half the ties) / (boards - 1) is uniform on [0, 1] if the scores
say nothing. Printed: mean u, and the share of positions with the truth in each fifth (``--parts``:
in each of that many equal parts, session 44's tenths), by belief size.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np
from turn_screen import load_suite, with_truth

from rbc_bot.belief_rows import decode, encode, row_in
from rbc_bot.engine import EnginePool
from rbc_bot.engine_safety import material_balance

CLIP = 2000


def scores_of(engine: EnginePool, boards: list[chess.Board], depth: int) -> list[float]:
    """Each board's score for the side to move (us), clipped; the pool scores a capturable king as won."""
    return [float(np.clip(s, -CLIP, CLIP)) for s in engine.evaluate(boards, depth=depth)]


def rank(values: list[float], t: int) -> float:
    """The truth's rank among ``values``: those below it plus half the ties, over the others."""
    below = sum(v < values[t] for v in values)
    ties = sum(v == values[t] for v in values) - 1
    return (below + 0.5 * ties) / (len(values) - 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("suite", type=Path)
    parser.add_argument("--boards", type=int, default=40)
    parser.add_argument("--depth", type=int, default=8)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--parts", type=int, default=5)
    args = parser.parse_args()
    positions = [p for p in load_suite(args.suite) if len(p.rows) >= 5]
    if args.limit:
        positions = positions[: args.limit]
    rng = np.random.default_rng(0)
    engine = EnginePool(workers=1)
    ranks: dict[str, list[float]] = defaultdict(list)
    for count, position in enumerate(positions, 1):
        rows = with_truth(position.rows, position.truth, args.boards, rng)
        truth_row = encode(position.truth)
        boards = decode(rows, position.truth.turn, position.truth.fullmove_number)
        scores = scores_of(engine, boards, args.depth)
        material = [float(material_balance(board)) for board in boards]
        t = next(i for i in range(len(rows)) if row_in(truth_row, rows[i : i + 1]))
        size = "<=50" if position.believed <= 50 else "51-1000" if position.believed <= 1000 else ">1000"
        for name, values in (("engine", scores), ("material", material)):
            ranks[f"{name} {size}"].append(rank(values, t))
            ranks[f"{name} all"].append(rank(values, t))
        if count % 50 == 0:
            print(f"{count} positions, mean u {np.mean(ranks['engine all']):.3f}", flush=True)
    engine.close()
    for size, us in sorted(ranks.items()):
        a = np.array(us)
        n = args.parts
        fifths = [np.mean((a >= k / n) & (a < (k + 1) / n + (k == n - 1))) for k in range(n)]
        half = 1.96 * a.std(ddof=1) / np.sqrt(len(a))
        low, high = a.mean() - half, a.mean() + half
        print(
            f"{size:>16}: n={len(a):4d} mean u {a.mean():.3f} (95 % CI {low:.3f}..{high:.3f})"
            f" parts low->high " + " ".join(f"{f:.2f}" for f in fifths)
        )


if __name__ == "__main__":
    main()
