"""What rbc_bot.reconchess_internals reaches inside reconchess for: fails loudly if a release renames it."""

from __future__ import annotations

import chess
from reconchess import GameHistory, LocalGame, WinReason

from rbc_bot.reconchess_internals import game_history, resignee, set_game_history, set_resignee


def test_resignee_makes_the_side_not_to_move_lose() -> None:
    game = LocalGame(seconds_per_player=60)
    game.start()
    assert resignee(game) is None
    set_resignee(game, chess.BLACK)  # White is to move: LocalGame.resign could not do this
    assert game.is_over()
    game.end()
    assert game.get_winner_color() == chess.WHITE and game.get_win_reason() == WinReason.RESIGN
    assert resignee(game) == chess.BLACK


def test_game_history_is_the_one_being_recorded() -> None:
    game = LocalGame(seconds_per_player=60)
    game.start()
    history = game_history(game)
    assert isinstance(history, GameHistory)
    game.sense(chess.E4)
    game.move(chess.Move.from_uci("e2e4"))
    game.end_turn()
    assert history.num_turns() == 1, "the live history, before the game ends"
    fresh = GameHistory()
    set_game_history(game, fresh)
    assert game_history(game) is fresh
