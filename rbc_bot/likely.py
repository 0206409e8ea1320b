"""How likely each believed board is to be the true one, from how well we stand on it.

Why: the belief counts every board alike, but the opponent chose its move. A strong opponent seldom
plays the move that helps us, so the boards where we stand worst are the likeliest. Measured against
StrangeFish (session 29, ``benchmarks/strength/2026-12-05-s29/adhoc/eval_rank.py`` on 400 turns of the
control's games, 30 believed boards each, Stockfish at depth 1): ranked by our score, the true board
was in the worst fifth of the believed boards on 65 % of the turns, then 16, 10, 6 and 3 %; the same
at depth 6 and at every belief size. ``FIFTH_WEIGHTS`` are those shares over a fifth's 20 %. Split
finer (session 44, the same script with ``--parts 10``, 600 turns of session 24's suite at depth 1),
the worst fifth is not even: the worst tenth held the truth on 50 %, the next on 16 %;
``TENTH_WEIGHTS`` are those shares over a tenth's 10 %, made monotone.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from rbc_bot.board_sample import by_odds, uniform
from rbc_bot.scorer import Scorer

FIFTH_WEIGHTS = np.array([3.25, 0.8, 0.5, 0.3, 0.15])
"""A board's weight by the fifth its score falls in among the boards weighed, worst for us first."""

TENTH_WEIGHTS = np.array([5.0, 1.6, 0.8, 0.7, 0.45, 0.45, 0.3, 0.2, 0.2, 0.2])
"""The same by tenths."""

WEIGHT_TABLES = {"fifths": FIFTH_WEIGHTS, "tenths": TENTH_WEIGHTS}
"""The tables by name (``sense.likely_table``, ``move.likely_table``)."""


def rank_weights(values: np.ndarray, table: np.ndarray = FIFTH_WEIGHTS) -> np.ndarray:
    """Each board's weight from the rank of its value (ours: lower is worse for us) among ``values``:
    ``table`` by its share of the ranks (fifths by default), ties sharing their middle rank. One board,
    or none: weight 1 each."""
    values = np.asarray(values, dtype=np.float64)
    n = len(values)
    if n < 2:
        return np.ones(n)
    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    below = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = (below + 0.5 * (counts - 1)) / (n - 1)  # 0: the worst for us, 1: the best
    part = np.minimum((rank * len(table)).astype(np.int64), len(table) - 1)
    return table[part[inverse.reshape(-1)]]


def best_candidate_weights(values: np.ndarray, table: np.ndarray = FIFTH_WEIGHTS) -> np.ndarray:
    """``rank_weights`` of each board (a column of ``values``: candidates x boards, ours) by our best
    candidate's value there: how well we can stand on it, without another engine call."""
    return rank_weights(np.asarray(values).max(axis=0), table)


def board_weights(
    boards: Sequence[chess.Board], scorer: Scorer, budget_seconds: float, table: np.ndarray = FIFTH_WEIGHTS
) -> np.ndarray:
    """``rank_weights`` of each board's depth-1 score for us (the side to move) within ``budget_seconds``;
    a board where we can capture the king scores as won (the opponent would not have left it)."""
    scores = scorer.evaluate(boards, depth=1, budget_seconds=budget_seconds)
    return rank_weights(np.asarray(scores, dtype=np.float64), table)


class LikelyDraw:
    """Draws ``k`` of a tier's boards with odds by how likely each is, for the move selector's sample:
    under the worst-board ranking a move is judged by the boards that punish it, and the likeliest
    boards are the ones worst for us, so they should be the ones scored. A pool of up to ``pool_size``
    boards is scored once at depth 1 (within ``budget_seconds``) and weighed by ``rank_weights``; each
    draw takes ``k`` of the pool without replacement, a board's odds its weight (Gumbel top-k). When
    ``k`` takes every board (or the pool is no larger than ``k``) the weights cannot matter: uniform."""

    def __init__(self, scorer: Scorer, pool_size: int, budget_seconds: float) -> None:
        self.scorer = scorer
        self.pool_size = pool_size
        self.budget_seconds = budget_seconds
        self.tier: Sequence[chess.Board] | None = None  # the boards the pool was drawn from
        self.pool: list[chess.Board] = []
        self.weights = np.ones(0)

    def __call__(self, boards: Sequence[chess.Board], k: int, rng: np.random.Generator) -> list[chess.Board]:
        if k >= len(boards) or k >= self.pool_size:
            return uniform(boards, k, rng)
        if self.tier is not boards:  # scored once per tier, however many draws follow
            self.tier, self.pool = boards, uniform(boards, self.pool_size, rng)
            self.weights = board_weights(self.pool, self.scorer, self.budget_seconds)
        return by_odds(self.pool, self.weights, k, rng)
