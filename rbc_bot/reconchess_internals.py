"""Every use of reconchess's private internals, in one place.

reconchess offers no public way to make a side lose by resignation on behalf of a crashed bot, nor
to build a ``LocalGame`` around a saved history (the server resumes games from its database). These
helpers reach inside; ``tests/test_reconchess_internals.py`` fails loudly if a reconchess release
renames what they touch, instead of games silently going wrong.
"""

from __future__ import annotations

import chess
from reconchess import GameHistory, LocalGame

RESIGNEE = "_resignee"
HISTORY = "_LocalGame__game_history"


def resignee(game: LocalGame) -> chess.Color | None:
    """The colour that resigned (``LocalGame.resign`` sets it for the side to move only)."""
    value: chess.Color | None = getattr(game, RESIGNEE)
    return value


def set_resignee(game: LocalGame, color: chess.Color) -> None:
    """Make ``color`` lose by resignation, whoever is to move (a bot that crashed off its turn)."""
    setattr(game, RESIGNEE, color)


def game_history(game: LocalGame) -> GameHistory:
    """The history being recorded, also before the game is over (``get_game_history`` waits for the end)."""
    history: GameHistory = getattr(game, HISTORY)
    return history


def set_game_history(game: LocalGame, history: GameHistory) -> None:
    """Continue recording into ``history`` (a game restored from storage)."""
    setattr(game, HISTORY, history)
