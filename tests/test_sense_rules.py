"""Which sense rule acts: the decision rule only up to ``sense.decision_max_boards`` believed boards."""

from __future__ import annotations

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.belief import encode
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.sense import window_square
from rbc_bot.sense_rules import SenseInputs, SenseRules


def after_each_black_reply() -> list[chess.Board]:
    """What White believes after 1. e4 and a reply it did not see: one board per Black move."""
    board = chess.Board()
    board.push_san("e4")
    boards = []
    for reply in board.legal_moves:
        child = board.copy()
        child.push(reply)
        boards.append(child)
    return boards


def test_decision_rule_only_up_to_its_belief_size() -> None:
    """20 believed boards: with no limit (0) or a limit of 20 the decision rule picks the centre; with a
    limit of 19 the window rule does, its centre the one leaving the fewest boards, and no engine runs."""
    boards = after_each_black_reply()
    assert len(boards) == 20
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    for limit, decides in ((0, True), (20, True), (19, False)):
        config = load_config(
            None, ["engine.workers=1", "sense.danger_first=false", f"sense.decision_max_boards={limit}"]
        )
        bot = RbcBot(config)
        try:
            bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
            rules = SenseRules(bot.config, bot.scorer, bot.rng)
            assert rules.decides(seen) == decides
            if not decides:
                assert rules.choose(seen) == (window_square(rows), "window")
                assert bot.scorer.evaluations == 0  # the window rule needs no engine
        finally:
            bot.close()
