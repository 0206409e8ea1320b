"""Shared by the replay-analysis tests (tests/test_replay.py, tests/test_replay_input.py): short games of
real reconchess bots saved as GameHistory files, and the ``analyze`` command."""

from __future__ import annotations

import json
import random
from pathlib import Path

from reconchess import GameHistory, LocalGame, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

from rbc_bot.cli import main

NODES = "2000"
BELIEF_NODES = "1000"  # node limit on the believed boards: the tests check structure, not depth


def play(seed: int, full_turns: int, white: type = RandomBot, black: type = AttackerBot) -> GameHistory:
    random.seed(seed)
    game = LocalGame(seconds_per_player=None, full_turn_limit=full_turns)
    _, _, history = play_local_game(white(), black(), game=game)
    return history


def save_short_games(folder: Path) -> dict[str, Path]:
    """Two short games saved as local GameHistory files in ``folder``, plus one in the server's wrapped
    form: "a", "b" and "wrapped" (game "b" as the server sends it)."""
    paths = {}
    for name, seed in (("a", 3), ("b", 12)):
        paths[name] = folder / f"{name}.json"
        play(seed, 5).save(paths[name])
    raw = json.loads(paths["b"].read_text())
    paths["wrapped"] = folder / "server.json"
    paths["wrapped"].write_text(json.dumps({"game_history": raw, "id": 12345}))
    return paths


def analyze_args(out: Path) -> list[str]:
    """Where ``analyze`` writes, and the node limits the tests analyse with."""
    return ["--out", str(out), "--engine-nodes", NODES, "--belief-nodes", BELIEF_NODES]


def run_cli(*argv: str) -> int:
    """``rbc-bot analyze ARGV``: its exit status."""
    return main(["analyze", *argv])
