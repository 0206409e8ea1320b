"""Shared fixtures: boards from real reconchess games, used by the rules and belief tests."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import chess
import pytest
import reconchess.bots.attacker_bot as attacker_module
from reconchess import LocalGame
from reconchess.bots.random_bot import RandomBot
from reconchess.play import play_turn

# reconchess's AttackerBot, as White, pops moves from the module's own QUICK_ATTACKS lists, so every
# in-process game changes the next one. Snapshot them at collection and restore before each test.
_QUICK_ATTACKS = [list(sequence) for sequence in attacker_module.QUICK_ATTACKS]


def venv_script(name: str) -> str:
    """A console script installed beside this interpreter (``.venv/bin``), never one found on PATH.

    Activating a venv is what puts its scripts on PATH; the README's test command runs
    ``.venv/bin/python -m pytest`` without activating it, so a bare ``rc-bot-match`` would be
    missing there, or worse, a different, globally installed one.
    """
    path = Path(sys.executable).with_name(name)
    assert path.exists(), f"{name} is not installed beside {sys.executable}"
    return str(path)


@pytest.fixture(autouse=True)
def pristine_attacker_bot() -> None:
    attacker_module.QUICK_ATTACKS[:] = [list(sequence) for sequence in _QUICK_ATTACKS]


def boards_from_random_games(n_boards: int, seed: int = 0) -> list[chess.Board]:
    """Every position (either side to move) of seeded RandomBot-vs-RandomBot LocalGames."""
    random.seed(seed)
    boards: list[chess.Board] = []
    while len(boards) < n_boards:
        game = LocalGame(seconds_per_player=None)
        players = {chess.WHITE: RandomBot(), chess.BLACK: RandomBot()}
        game.store_players("white", "black")
        for color, player in players.items():
            player.handle_game_start(color, game.board.copy(), "opponent")
        game.start()
        while not game.is_over() and len(boards) < n_boards:
            boards.append(game.board.copy(stack=False))
            play_turn(game, players[game.turn], end_turn_last=False)
        game.end()
    return boards


@pytest.fixture(scope="session")
def game_boards() -> list[chess.Board]:
    return boards_from_random_games(10_500, seed=7)
