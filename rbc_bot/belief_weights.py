"""Each believed board's probability under a uniformly random opponent, carried from turn to turn.

Why: the belief is a set, so a board that many of the opponent's possible moves lead to counts once,
as does a board that only one of a parent's forty moves reaches. As probabilities, a child of the
opponent's move has its parent's weight over the parent's number of moves, and a board reached from
several parents adds them up. Replayed on the default's recorded games (session 45,
``benchmarks/strength/2026-12-07-s45/adhoc/carried_rank.py``), these weights alone put as much
probability on the true board as the rank weights of ``rbc_bot.likely`` do, and the two multiplied
about 1.4 times as much as the rank weights alone (N x P(truth), a geometric mean over 1,327 turns
that no sampling touched: 2.1 against 1.5; 1 is a uniform draw).

Weights are kept as logarithms (they shrink by a factor of the opponent's moves every turn),
shifted so that the largest is 0.
"""

from __future__ import annotations

import chess
import numpy as np

from rbc_bot.expand_fast import build_children, child_keys, generate
from rbc_bot.movegen import Moves


def opponent_moves(
    rows: np.ndarray, mover: chess.Color, known: tuple[int | None, Moves] | None = None
) -> np.ndarray:
    """How many moves ``mover`` has on each row: the quiet ones and the pass, and its captures of our
    pieces (en passant included), which stand alike on every row. ``known``: the moves already
    generated for one capture square (None: the quiet ones), not generated again."""
    first = rows[0, :64] if len(rows) else np.zeros(64, dtype=np.int8)
    ours = (first >= 7) if mover == chess.WHITE else (first >= 1) & (first <= 6)
    counts = np.zeros(len(rows), dtype=np.int64)
    for square in [None, *(int(s) for s in np.flatnonzero(ours))]:
        moves = known[1] if known is not None and known[0] == square else generate(rows, mover, square)
        counts += np.bincount(moves.parent, minlength=len(rows))
    return counts


def expand_weighted(
    rows: np.ndarray, log_weights: np.ndarray, mover: chess.Color, capture_square: int | None
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct children of ``rows`` after one move of ``mover`` that fits ``capture_square`` (as
    ``rbc_bot.expand_fast.expand``, in another order), each with the log of its summed weight: a
    parent's weight over its number of moves, for every parent that reaches it."""
    if len(rows) == 0:
        return rows, log_weights
    moves = generate(rows, mover, capture_square)
    if len(moves) == 0:
        return rows[:0], log_weights[:0]
    per_parent = log_weights - np.log(np.maximum(opponent_moves(rows, mover, (capture_square, moves)), 1))
    white = mover == chess.WHITE
    keys = np.ascontiguousarray(child_keys(rows, moves, white)).view(np.dtype((np.void, 16)))[:, 0]
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    child = per_parent[moves.parent]
    summed = np.bincount(inverse.reshape(-1), weights=np.exp(child - child.max()), minlength=len(first))
    logs = np.log(summed)
    return build_children(rows, moves.take(first), white), logs - logs.max()


def normalized(log_weights: np.ndarray) -> np.ndarray:
    """Weights from their logarithms, scaled to a mean of 1 (empty: empty)."""
    if len(log_weights) == 0:
        return np.ones(0)
    weights = np.exp(log_weights - log_weights.max())
    return weights * (len(weights) / weights.sum())
