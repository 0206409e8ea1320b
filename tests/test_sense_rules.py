"""Which sense rule acts (the decision rule only up to ``sense.decision_max_boards`` believed boards) and
what the decision rule weighs (``sense.decision_boards_per_point``), with real Stockfish."""

from __future__ import annotations

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.belief import encode
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.sense import INTERIOR, expected_survivors, window_square
from rbc_bot.sense_rules import SenseInputs, SenseRules


def after_each_black_reply(*opening: str) -> list[chess.Board]:
    """What White believes after ``opening`` (default 1. e4) and a reply it did not see: one board per
    Black move."""
    board = chess.Board()
    for san in opening or ("e4",):
        board.push_san(san)
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


def test_decision_rule_weighs_boards_left_when_asked() -> None:
    """White after 1. e4 e5 2. Nf3 and an unseen reply (29 boards), no size limit, deterministic engine:
    the decision rule alone picks a centre leaving more than the fewest boards (the move choice is worth
    it); with a point worth a millionth of a board it picks one leaving the fewest, still after scoring
    the candidates with the engine."""
    boards = after_each_black_reply("e4", "e5", "Nf3")
    rows = np.stack([encode(b) for b in boards])
    left = expected_survivors(rows)
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 2.0, False)
    chosen_left = []
    for per_point in ("0", "1e-6"):
        settings = ["sense.decision_max_boards=0", f"sense.decision_boards_per_point={per_point}"]
        config = load_config(
            None, ["engine.workers=1", "engine.deterministic=true", "sense.danger_first=false", *settings]
        )
        bot = RbcBot(config)
        try:
            bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
            square, rule = SenseRules(bot.config, bot.scorer, bot.rng).choose(seen)
            assert rule == "decision" and square is not None and bot.scorer.evaluations > 0
            chosen_left.append(left[INTERIOR.index(square)])
        finally:
            bot.close()
    assert chosen_left[0] > left.min() and chosen_left[1] == left.min()
