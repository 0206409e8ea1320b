"""Did the sense change the move? Our move selector run on the boards believed before and after it.

Why: a sense is worth what it changes. The bot's own selector (:func:`rbc_bot.move.choose_move`, node
limited, so the answer is reproducible) picks a move on a sample of the boards believed before the
sense and on a sample of those believed after it; when the two differ, the sense changed the decision.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.scorer import Scorer

BUDGET_SECONDS = 60.0  # with node limits the budget only sizes the boards scored: max_boards wins


@dataclass
class SenseDecision:
    before: str | None  # the move chosen on the boards before the sense ("pass" for the pass)
    after: str | None  # ... and after it

    @property
    def changed(self) -> bool | None:
        if self.before is None or self.after is None:
            return None
        return self.before != self.after


def _uci(move: chess.Move | None) -> str:
    return move.uci() if move else "pass"


def decide(
    pool: EnginePool, boards: Sequence[chess.Board], actions: list[chess.Move], nodes: int, seed: int = 0
) -> str | None:
    """The move our selector picks on ``boards`` with ``nodes`` per search; None with no boards."""
    if not boards:
        return None
    scorer = Scorer(pool, EngineConfig(nodes=nodes, deterministic=True))
    config = MoveConfig(top_k=3, max_candidates=8, max_boards=len(boards), min_boards=min(8, len(boards)))
    decision = choose_move(boards, actions, scorer, config, BUDGET_SECONDS, np.random.default_rng(seed))
    return _uci(decision.move)


def sense_decision(
    pool: EnginePool,
    truth_before_move: chess.Board,
    before: Sequence[chess.Board],
    after: Sequence[chess.Board],
    nodes: int,
) -> SenseDecision:
    """The selector's move before and after the sense (the requests the player had: its own pieces)."""
    actions = move_actions(truth_before_move)
    return SenseDecision(decide(pool, before, actions, nodes), decide(pool, after, actions, nodes))
