"""The figures ``analyze`` reports are the right ones: the truth counted where the tracker holds it,
the bot's own belief settings, all of our time, numbers printed whole, and no library noise."""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import warnings
from pathlib import Path

import chess
import pytest
from reconchess import GameHistory, LocalGame, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot
from rich.console import Console

from rbc_bot.commands.analyze import configure
from rbc_bot.config import BeliefConfig
from rbc_bot.replay.analysis import TRUTH_STASHED, GameAnalysis, Options, analyse, turn_seconds
from rbc_bot.replay.load import LoadedGame, load_game
from rbc_bot.replay.plots import time_used, write_plots
from rbc_bot.replay.resim import resimulate
from rbc_bot.replay.terminal import print_aggregate, turn_tables

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    random.seed(3)
    local = LocalGame(seconds_per_player=None, full_turn_limit=8)
    _, _, history = play_local_game(RandomBot(), AttackerBot(), game=local)
    path = tmp_path_factory.mktemp("figures") / "game.json"
    history.save(path)
    return path


def test_a_truth_the_cap_stashed_is_kept(game: Path) -> None:
    """Under a cap the truth is often stashed, not live; the tracker still holds it (and recovers it),
    so it counts as kept, and the turn says it was stashed."""
    history = load_game(game).history
    side = resimulate(history, chess.BLACK, cap=2, expansion_slack=1)
    assert side.error is None
    stashed = [t for t in side.turns if t.truth_sampled_away]
    assert stashed, "cap 2 should sample the truth away at least once"
    assert all(t.truth_kept for t in side.turns), [t for t in side.turns if not t.truth_kept]
    assert side.truth_always_in_belief is True and side.first_truth_lost is None
    summary = analyse(
        load_game(game), Options(sides=[chess.BLACK], use_engine=False, belief_cap=2, belief_slack=1)
    ).summary()
    assert summary["belief"]["black"]["truth_lost_turns"] == 0
    assert TRUTH_STASHED in {row["truth_note"] for row in summary["per_turn"]}


def test_analysis_defaults_are_the_bots_belief_settings() -> None:
    config = BeliefConfig()
    options = Options()
    assert (options.belief_cap, options.belief_slack) == (config.max_cap, config.expansion_slack)
    parser = argparse.ArgumentParser()
    configure(parser)
    args = parser.parse_args(["game.json"])
    assert (args.belief_cap, args.belief_slack) == (config.max_cap, config.expansion_slack)


def test_time_per_turn_counts_the_opponent_move_handler() -> None:
    """The handler expands the belief on our clock: seconds_turn holds it, sense + move do not."""
    logged = {"seconds_expand": 2.0, "seconds_sense": 0.5, "seconds_move": 1.0, "seconds_turn": 3.6}
    assert turn_seconds(logged) == pytest.approx(3.6)
    older = {"seconds_expand": 2.0, "seconds_sense": 0.5, "seconds_move": 1.0}
    assert turn_seconds(older) == pytest.approx(3.5)
    analysis = GameAnalysis(
        game=LoadedGame(Path("g.json"), GameHistory(), turn_log={(chess.WHITE, 0): logged}),
        sides=[chess.WHITE],
    )
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots()
    try:
        time_used(ax, analysis)
        assert [bar.get_height() for bar in ax.patches] == [pytest.approx(3.6)]
    finally:
        plt.close(fig)


ROW = {
    "color": "black",
    "turn": 12,
    "size_after_opponent": 412_345,
    "size_after_sense": 30_047,
    "truth": True,
    "truth_note": TRUTH_STASHED,
    "sense": "e4",
    "eliminated": 382_298,
    "best_sense": "d5",
    "best_expected": 391_000.4,
    "taken": "e8g8",
    "requested": "e8g8",
    "eval_white": -1_234.5,
    "cp_loss": 1_000.0,
    "kind": None,
    "tags": "king left capturable, missed king capture",
    "seconds": 12.3,
}


@pytest.mark.parametrize("width", [80, 200])
def test_terminal_tables_never_cut_numbers_or_texts(width: int) -> None:
    console = Console(width=width, record=True, color_system=None)
    for table in turn_tables({"per_turn": [ROW, ROW]}, console):
        console.print(table)
    results = {"player": "rbc_bot_with_a_long_name", "color": "white", "opponent": "StrangeFishOpponent"}
    agg = {
        "games": 30_047,
        "results": [{**results, "games": 30_047, "wins": 30_047, "draws": 0, "losses": 0, "win_rate": 1.0}],
        "mean_belief_size": 30_047.2,
        "sides_truth_lost": 0,
        "sides_analysed": 2,
        "mistake_rate": 0.1,
        "mean_seconds_per_turn": 1.0,
        "bad_files": [],
    }
    print_aggregate(agg, console)
    text = console.export_text()
    assert "…" not in text
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines)
    for whole in ("412,345>30,047", "382,298", "d5 391,000", "-1,234.5", "1,000.0", "30,047", "stashed"):
        assert any(whole in line for line in lines), (whole, text)
    words = " ".join(text.split())
    assert "king left capturable, missed king capture" in words


def test_plots_of_an_empty_analysis_do_not_warn(tmp_path: Path) -> None:
    analysis = GameAnalysis(game=LoadedGame(Path("g.json"), GameHistory()), sides=[chess.WHITE])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        write_plots(analysis, tmp_path)
    assert [str(w.message) for w in caught] == []


def test_matplotlib_logs_stay_off_the_console(game: Path, tmp_path: Path) -> None:
    """matplotlib logs a warning when its config folder is not writable; the analysis is not about that."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    env = {"MPLCONFIGDIR": str(blocker / "mpl"), "PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "rbc_bot", "analyze", str(game), "--no-engine", "--brief"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "matplotlib" not in done.stderr.lower(), done.stderr
