"""Engines that die or hang: the pool falls back to material scoring and the bot keeps its clock.

Fake UCI engines (shell scripts) play the faults: one that dies on its first search and can't be
started again, one that never answers a search. The real Stockfish plays no part here.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import chess
import pytest
from engine_helpers import fake_engine, hung_engine
from reconchess import LocalGame, WinReason, play_local_game
from reconchess.bots.random_bot import RandomBot

from rbc_bot.bot import RbcBot
from rbc_bot.config import BotConfig
from rbc_bot.engine import EnginePool

ROOK_UP = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")  # material: +500 for White


def dying_engine(directory: Path, starts: int) -> Path:
    """A UCI engine that can be started ``starts`` times; each instance dies on its first ``go``."""
    count = directory / "starts"
    return fake_engine(
        directory,
        "dyingfish",
        f"""n=$(cat {count} 2>/dev/null || echo 0)
if [ "$n" -ge {starts} ]; then exit 1; fi
echo $((n + 1)) > {count}
while read line; do
  case "$line" in
    uci) echo "id name Dyingfish"; echo uciok;;
    isready) echo readyok;;
    go*) exit 1;;
    quit) exit 0;;
  esac
done""",
    )


def test_a_failed_restart_falls_back_to_material_for_good(tmp_path: Path) -> None:
    """The engine dies on its first search and can't be started again: that call and every later one
    are answered by material scoring, without raising."""
    with EnginePool(dying_engine(tmp_path, starts=1), workers=1, timeout=5.0) as pool:
        assert pool.evaluate([ROOK_UP, ROOK_UP.mirror()], depth=1) == [500.0, 500.0]
        assert pool.material_only and pool.stats.restart_failures == 1 and pool.stats.restarts == 0
        assert pool.evaluate([ROOK_UP], depth=3) == [500.0]
        moves = pool.top_moves([ROOK_UP], 2, depth=3)[0]
        assert len(moves) == 2 and all(ROOK_UP.is_pseudo_legal(move) for move, _ in moves)
        assert pool.stats.fallbacks == 4


@pytest.mark.timeout(60)
def test_a_hung_search_costs_about_its_movetime_not_the_pool_timeout(tmp_path: Path) -> None:
    """With the pool's timeout at 20 s (the bot's default), a search given a 0.05 s movetime counts as
    hung after 2 x 0.05 + 0.5 s; the retry hangs too, the engine is given up and the call answers every
    board by material in about a second and a half. Searches without a movetime keep the pool's timeout."""
    with EnginePool(hung_engine(tmp_path), workers=1, timeout=20.0) as pool:
        assert pool.search_timeout(0.05) == pytest.approx(0.6)
        assert pool.search_timeout(None) == 20.0 and pool.search_timeout(30.0) == 20.0
        started = time.perf_counter()
        assert pool.evaluate([ROOK_UP] * 6, depth=5, movetime=0.05) == [500.0] * 6
        assert time.perf_counter() - started < 3.0
        assert pool.stats.hangs == 1 and pool.material_only
        started = time.perf_counter()
        assert pool.evaluate([ROOK_UP] * 6, depth=5, movetime=0.05) == [500.0] * 6
        assert time.perf_counter() - started < 0.5  # given up: no engine is waited for again


class RecordingBot(RbcBot):
    """Our bot, keeping its engine pool and the moves it requested for the test to inspect."""

    def __init__(self, config: BotConfig) -> None:
        super().__init__(config)
        self.requests: list[chess.Move | None] = []
        self.pool: EnginePool | None = None

    def handle_game_start(self, *args: Any, **kwargs: Any) -> None:
        super().handle_game_start(*args, **kwargs)
        self.pool = self.engine

    def choose_move(self, *args: Any, **kwargs: Any) -> chess.Move | None:
        move = super().choose_move(*args, **kwargs)
        self.requests.append(move)
        return move


def _play(engine: Path, seconds: float, turns: int) -> tuple[RecordingBot, LocalGame, WinReason | None]:
    config = BotConfig()
    config.engine.path = str(engine)
    bot = RecordingBot(config)
    game = LocalGame(seconds_per_player=seconds, seconds_increment=2, full_turn_limit=turns)
    _, reason, _ = play_local_game(bot, RandomBot(), game=game)
    return bot, game, reason


@pytest.mark.timeout(300)
def test_the_bot_plays_real_moves_after_its_engine_cannot_restart(tmp_path: Path) -> None:
    """Both engines start, die on their first search and can't be started again: the bot scores by
    material from then on, with no internal error, and still requests moves rather than passing."""
    bot, _, reason = _play(dying_engine(tmp_path, starts=2), seconds=120.0, turns=8)
    assert bot.pool is not None and bot.pool.material_only and bot.pool.stats.restart_failures >= 1
    assert bot.errors == 0
    assert reason != WinReason.TIMEOUT
    assert len(bot.requests) >= 4 and sum(move is not None for move in bot.requests) >= len(bot.requests) - 1


@pytest.mark.timeout(300)
def test_a_hung_engine_cannot_flag_a_60_second_game(tmp_path: Path) -> None:
    """Engines that never answer a search, in a 60 s + 2 s game: each is given up after its second
    timeout (about a second), and the bot ends with most of its clock."""
    bot, game, reason = _play(hung_engine(tmp_path), seconds=60.0, turns=10)
    assert reason != WinReason.TIMEOUT
    assert bot.pool is not None and bot.pool.material_only and bot.pool.stats.hangs >= 1
    assert bot.errors == 0
    assert game.seconds_left_by_color[chess.WHITE] > 40.0
