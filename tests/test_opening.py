"""The opening plan: which moves it prefers, when, and that the preference reaches the move choice."""

from __future__ import annotations

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.opening import PLANS, opening_bonuses
from rbc_bot.scorer import Scorer

AFTER_E4 = chess.Board("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")


def test_plan_moves_earn_the_bonus_and_queen_moves_the_penalty_in_the_opening_only() -> None:
    legal = set(move_actions(AFTER_E4))
    bonuses = opening_bonuses(chess.BLACK, 1, 6, 40.0, 60.0, legal, {chess.D8})
    assert bonuses[chess.Move.from_uci("e7e6")] == 40.0
    assert bonuses[chess.Move.from_uci("d7d5")] == 40.0
    assert all(bonuses[m] == -60.0 for m in legal if m.from_square == chess.D8)
    assert chess.Move.from_uci("c7c6") not in bonuses, "a move off the plan earns nothing"
    assert opening_bonuses(chess.BLACK, 7, 6, 40.0, 60.0, legal, {chess.D8}) == {}
    assert opening_bonuses(chess.BLACK, 1, 0, 40.0, 60.0, legal, {chess.D8}) == {}, "0 turns: no plan"
    assert all(chess.Move.from_uci(m).uci() == m for plan in PLANS.values() for m in plan)


def test_a_bonus_reaches_the_choice_and_brings_its_move_into_the_candidates() -> None:
    legal = move_actions(AFTER_E4)
    plan_move = chess.Move.from_uci("b7b6")  # not an engine favourite: only the bonus proposes it
    config = MoveConfig(max_boards=1, min_boards=1)
    with EnginePool(None, 1, deterministic=True) as engine:
        scorer = Scorer(engine, EngineConfig(workers=1, nodes=2000, deterministic=True))
        plain = choose_move([AFTER_E4], legal, scorer, config, 5.0, np.random.default_rng(0))
        preferred = choose_move(
            [AFTER_E4], legal, scorer, config, 5.0, np.random.default_rng(0), move_bonuses={plan_move: 300.0}
        )
    assert plain.move != plan_move
    assert preferred.move == plan_move
    assert plan_move in [c.move for c in preferred.candidates]
