"""Real reconchess games through our runner, match and tournament commands (short clocks, fast bots)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import chess
import pytest
from reconchess import GameHistory

from rbc_bot.match import GameResult, play_game
from rbc_bot.players import BotSpec

BOTS = Path(__file__).parent / "bots"
CRASH_BOT = str(BOTS / "crash_bot.py")
HANG_BOT = str(BOTS / "hang_bot.py")


def taken_moves(replay: str | None) -> list[str | None]:
    history = GameHistory.from_file(replay)
    return [None if m is None else m.uci() for m in history.collect(history.taken_move, history.turns())]


@pytest.mark.parametrize("isolate", [True, False])
def test_play_game_real_game_replay_and_turn_callback(tmp_path: Path, isolate: bool) -> None:
    turns: list[dict[str, Any]] = []
    result = play_game(
        BotSpec("random"),
        BotSpec("attacker"),
        seconds=30,
        increment=0,
        seed=3,
        out_dir=tmp_path,
        isolate=isolate,
        on_turn=turns.append,
    )
    assert isinstance(result, GameResult)
    assert result.crashed is None and result.traceback is None
    assert result.reason in {"KING_CAPTURE", "MOVE_LIMIT", "TIMEOUT"}
    history = GameHistory.from_file(result.replay)
    assert history.get_white_player_name() == "random" and history.get_black_player_name() == "attacker"
    assert (
        result.winner == {chess.WHITE: "white", chess.BLACK: "black", None: None}[history.get_winner_color()]
    )
    assert history.num_turns() == result.plies == len(turns)
    assert [t["ply"] for t in turns] == list(range(result.plies))
    assert [t["color"] for t in turns[:2]] == ["white", "black"]
    assert [t["taken"] for t in turns] == taken_moves(result.replay)
    assert 0 < result.seconds_left["white"] <= 30 and 0 < result.seconds_left["black"] <= 30
    assert result.turn_logs == {}  # neither bot is ours: nobody gets a turn log path


def test_isolated_games_are_reproducible_from_the_seed(tmp_path: Path) -> None:
    def moves(seed: int) -> list[str | None]:
        result = play_game(
            BotSpec("random"), BotSpec("random"), seconds=30, increment=0, seed=seed, out_dir=tmp_path
        )
        return taken_moves(result.replay)

    first = moves(11)
    assert moves(11) == first
    assert moves(12) != first


@pytest.mark.parametrize("isolate", [True, False])
def test_bot_that_raises_loses_with_crash_and_traceback(tmp_path: Path, isolate: bool) -> None:
    result = play_game(
        BotSpec("random"),
        BotSpec(CRASH_BOT),
        seconds=30,
        increment=0,
        seed=5,
        out_dir=tmp_path,
        isolate=isolate,
    )
    assert result.reason == "CRASH"
    assert result.crashed == "black" and result.winner == "white"
    assert result.traceback is not None and "deliberate crash on the third turn" in result.traceback
    assert result.plies == 5  # white's 3 turns + black's 2 completed turns
    history = GameHistory.from_file(result.replay)  # the replay is still a valid, finished game
    assert history.get_winner_color() == chess.WHITE


def test_watchdog_ends_a_hung_game(tmp_path: Path) -> None:
    start = time.monotonic()
    result = play_game(
        BotSpec(HANG_BOT),
        BotSpec("random"),
        seconds=1,
        increment=0,
        seed=0,
        out_dir=tmp_path,
        watchdog_margin=1.0,
    )
    elapsed = time.monotonic() - start
    assert result.reason == "HANG"
    assert result.winner == "black" and result.timed_out == "white" and result.crashed is None
    assert result.traceback is not None and "killed" in result.traceback
    assert elapsed < 15
    GameHistory.from_file(result.replay)
