"""RbcBot guarded against its own failures: whatever a selector or handler raises, every Player method
still answers with a legal action (a fallback, logged), and no error leaves a reconchess call."""

from __future__ import annotations

import logging
import random
from typing import Any

import chess
import pytest
from bot_helpers import small_bot
from reconchess import LocalGame
from reconchess.bots.random_bot import RandomBot
from reconchess.play import play_turn
from reconchess.utilities import move_actions

import rbc_bot.bot
import rbc_bot.sense_rules
from rbc_bot.bot import RbcBot
from rbc_bot.rules import sense_window


def boom(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError("selector broken on purpose")


def play_turns(bot: RbcBot, bot_color: chess.Color, plies: int, seed: int = 0) -> LocalGame:
    """A real LocalGame of ``plies`` plies (or until it ends) between ``bot`` and RandomBot."""
    random.seed(seed)
    game = LocalGame(seconds_per_player=120)
    players = {bot_color: bot, not bot_color: RandomBot()}
    game.store_players("white", "black")
    for color, player in players.items():
        player.handle_game_start(color, game.board.copy(), "opponent")
    game.start()
    for _ in range(plies):
        if game.is_over():
            break
        play_turn(game, players[game.turn], end_turn_last=False)  # raises on an illegal request
    return game


def break_sense_selectors(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every sense selector the bot may call raises (the decision sense, the default, and the rest)."""
    monkeypatch.setattr(rbc_bot.sense_rules, "choose_sense_square", boom)
    monkeypatch.setattr(rbc_bot.sense_rules, "decision_square", boom)
    monkeypatch.setattr(rbc_bot.sense_rules, "window_square", boom)  # the likely window's


def black_after_e4() -> tuple[RbcBot, chess.Board]:
    """A small bot playing Black, told that White moved without a capture, and the true board (1. e4).
    Its Player methods never raise (that is what these tests check), so no ``try`` is needed here."""
    bot = small_bot()
    bot.handle_game_start(chess.BLACK, chess.Board(), "nobody")
    bot.handle_opponent_move_result(False, None)
    board = chess.Board()
    board.push_uci("e2e4")
    return bot, board


def test_broken_selectors_still_give_legal_actions(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    monkeypatch.setattr(rbc_bot.bot, "choose_move", boom)
    break_sense_selectors(monkeypatch)
    monkeypatch.setattr(rbc_bot.sense_rules, "danger_square", boom)
    bot = small_bot()
    caplog.set_level(logging.ERROR, logger="rbc_bot.bot")
    try:
        game = play_turns(bot, chess.WHITE, plies=8)  # play_turn raises on an illegal request
        assert not game.is_over(), "a passing bot lost within 8 plies: pick another seed"
        # Every sense and every move of ours failed, and each failure was caught, logged and counted.
        failures = [r for r in caplog.records if "failed; falling back" in r.getMessage()]
        broken = [r for r in failures if r.exc_info and "selector broken on purpose" in str(r.exc_info[1])]
        assert sorted(r.getMessage().split()[0] for r in broken) == ["choose_move"] * 4 + ["choose_sense"] * 4
        assert bot.errors == len(failures) >= 8
        game.end()
        history = game.get_game_history()
        for turn in history.turns(chess.WHITE):
            assert history.sense(turn) == chess.E5  # the fallback sense
            assert history.requested_move(turn) is None  # the fallback: no king to take, so pass
    finally:
        bot.close()


def test_fallbacks_return_a_valid_sense_and_a_legal_move(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rbc_bot.bot, "choose_move", boom)
    break_sense_selectors(monkeypatch)
    bot, board = black_after_e4()
    try:
        actions = move_actions(board)
        square = bot.choose_sense(list(chess.SQUARES), actions, 100.0)
        assert square is not None and len(sense_window(square)) == 9
        bot.handle_sense_result([(sq, board.piece_at(sq)) for sq in sense_window(square)])
        move = bot.choose_move(actions, 100.0)
        assert move is None or move in actions
        assert bot.errors >= 2
    finally:
        bot.close()


def test_fallback_sense_result_is_used(monkeypatch: pytest.MonkeyPatch, caplog: Any) -> None:
    """After a failed sense selector the fallback's sense result must still narrow the belief."""
    break_sense_selectors(monkeypatch)
    caplog.set_level(logging.ERROR, logger="rbc_bot.bot")
    bot, board = black_after_e4()
    try:
        before = bot.tracker.live_size
        square = bot.choose_sense(list(chess.SQUARES), move_actions(board), 100.0)
        assert square == chess.E4
        bot.handle_sense_result([(sq, board.piece_at(sq)) for sq in sense_window(square)])
        assert [r.getMessage().split()[0] for r in caplog.records] == ["choose_sense"]
        assert bot.errors == 1
        assert bot.tracker.live_size < before  # e4 seen: boards without the e-pawn there are gone
    finally:
        bot.close()


def test_fallback_move_takes_a_king_capture(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the selector broken, the fallback still takes a king it can see on the believed board."""
    monkeypatch.setattr(rbc_bot.bot, "choose_move", boom)
    board = chess.Board("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1")  # Re1xe8
    bot = small_bot()
    try:
        bot.handle_game_start(chess.WHITE, board.copy(), "nobody")
        assert bot.choose_move(move_actions(board), 100.0) == chess.Move.from_uci("e1e8")
        assert bot.errors == 1
    finally:
        bot.close()


def test_internal_errors_in_handlers_are_swallowed(caplog: Any) -> None:
    bot = small_bot()
    try:
        bot.handle_game_start(chess.WHITE, chess.Board(), "nobody")
        caplog.set_level(logging.ERROR, logger="rbc_bot.bot")
        # Nonsense observations: the handlers must log and carry on, never raise.
        bot.handle_sense_result("not a sense result")  # type: ignore[arg-type]
        bot.handle_move_result(chess.Move.from_uci("a1h8"), object(), True, 999)  # type: ignore[arg-type]
        assert bot.errors >= 1
        assert any("falling back" in r.getMessage() for r in caplog.records)
        move = bot.choose_move(move_actions(chess.Board()), 100.0)
        assert move is None or move in move_actions(chess.Board())
    finally:
        bot.close()
