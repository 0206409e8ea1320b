"""One game, each bot in its own seat: the replay, reproducibility, crashes, hangs, the clock between
turns, long file names, a seat whose parent is gone."""

from __future__ import annotations

import multiprocessing
import time
from pathlib import Path
from typing import Any

import chess
import pytest
from reconchess import GameHistory

from rbc_bot.game import GameResult, play_game, reserve_replay_path
from rbc_bot.players import BotSpec
from rbc_bot.seats import _seat_main

BOTS = Path(__file__).parent / "bots"
CRASH_BOT = str(BOTS / "crash_bot.py")
HANG_BOT = str(BOTS / "hang_bot.py")
LONELY_BOT = str(BOTS / "lonely_bot.py")


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


def test_isolated_bots_do_not_share_module_globals(tmp_path: Path) -> None:
    lonely = BotSpec(LONELY_BOT)
    isolated = play_game(lonely, lonely, seconds=30, increment=0, out_dir=tmp_path, isolate=True)
    assert isolated.reason == "MOVE_LIMIT" and isolated.crashed is None  # 100 passes: a draw
    shared = play_game(lonely, lonely, seconds=30, increment=0, out_dir=tmp_path, isolate=False)
    assert shared.reason == "CRASH" and shared.crashed == "white"
    assert shared.traceback is not None and "bots share this process" in shared.traceback


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


# --------------------------------------------------------------------------------------------------
# The match and tournament commands, end to end through the CLI function.


@pytest.mark.parametrize("isolate", [True, False])
def test_move_result_time_is_charged_to_nobody(tmp_path: Path, isolate: bool) -> None:
    """White spends 2 s hearing its first five move results; Black (RandomBot, instant) loses none of it."""
    result = play_game(
        BotSpec(str(BOTS / "slow_result_bot.py")),
        BotSpec("random"),
        seconds=30,
        increment=0,
        seed=1,
        out_dir=tmp_path,
        isolate=isolate,
    )
    assert result.crashed is None, result.traceback
    assert result.plies >= 10, "the slow move results all happened"
    # Charged to either side, the 2 s would leave it at most 28.0 s; the rest of the margin is the bots'
    # own moves and the seats' messages, which took 0.7 s on a machine loaded by two other matches.
    assert result.seconds_left["black"] > 28.5, result.seconds_left
    assert result.seconds_left["white"] > 28.5, "nor is it charged to White, as on the server"


def test_a_bot_with_many_settings_gets_file_names_the_file_system_takes(tmp_path: Path) -> None:
    """A stem past 255 bytes once made every turn-log write fail (OSError: File name too long): long
    stems are cut and end in a hash of the whole, so two long stems that differ only at the end differ."""
    settings = ",".join(f"move.setting_number_{i}=value" for i in range(20))
    first = reserve_replay_path(tmp_path, f"trout-rbc_bot_{settings},last=1_-s21")
    second = reserve_replay_path(tmp_path, f"trout-rbc_bot_{settings},last=2_-s21")
    assert first.name != second.name and first.name[:150] == second.name[:150]
    for path in (first, second):
        log = Path(str(path) + ".white.turns.jsonl")
        log.write_text("{}\n")  # the longest name a game derives from its replay's
        assert path.is_file() and log.read_text() == "{}\n"


def test_a_seat_whose_parent_is_gone_exits_quietly() -> None:
    """A seat process whose pipe was closed (its game cancelled, its match stopped) exits 0 without a
    traceback when it next writes, instead of dying with BrokenPipeError on stderr (seen in a stopped
    Ray match). The parent closes its end before the spawned child has even started."""
    context = multiprocessing.get_context("spawn")
    parent, child = context.Pipe()
    process = context.Process(target=_seat_main, args=(child, BotSpec("random"), {}, 1))
    process.start()
    child.close()
    parent.close()
    process.join(60)
    assert process.exitcode == 0
