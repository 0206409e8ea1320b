"""RbcBot as a reconchess Player: guarded against its own failures, playing real games on short clocks,
and loaded by the stock ``rc-bot-match``."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import chess
import numpy as np
import pytest
from bot_helpers import SMALL, small_bot
from conftest import venv_script
from reconchess import GameHistory
from reconchess.utilities import move_actions

import rbc_bot.bot
import rbc_bot.sense_rules
from rbc_bot.belief import encode
from rbc_bot.board_sample import our_king_attacked
from rbc_bot.game import GameResult, play_game
from rbc_bot.players import BotSpec, export_stockfish_for_trout
from rbc_bot.rules import sense_window
from rbc_bot.sense_rules import SenseInputs, SenseRules

ROOT = Path(__file__).parent.parent
BOT_FILE = ROOT / "rbc_bot" / "bot.py"
TURN_FIELDS = {
    "turn", "color", "belief", "seconds_left", "budget", "sense_square", "sense_eliminated", "candidates",
    "chosen_move", "taken_move", "seconds_sense", "seconds_move", "engine_calls", "engine_restarts",
    "recoveries", "errors", "seconds_expand", "seconds_turn", "fixed_cost_ms", "eval_cost_ms",
}  # fmt: skip


def test_in_panic_the_bot_does_not_wait_for_a_starved_engine() -> None:
    """Waiting for an engine kept from a CPU can cost a call 2 s: more than a bot in panic has."""
    bot = small_bot()
    bot.handle_game_start(chess.WHITE, chess.Board(), "opponent")
    try:
        assert bot.engine is not None
        actions = list(move_actions(chess.Board()))
        bot.choose_sense(list(range(64)), actions, seconds_left=5.0)
        assert bot.engine.patience == 0.0
        assert bot.choose_move(actions, seconds_left=4.9) in actions
        assert bot.engine.patience == 0.0  # the turn's budget, set at its sense
        bot.choose_sense(list(range(64)), actions, seconds_left=600.0)
        assert bot.engine.patience is None  # deadline.MAX_STARVED_WAIT
    finally:
        bot.close()


def test_engine_processes_end_with_the_game() -> None:
    bot = small_bot()
    bot.handle_game_start(chess.WHITE, chess.Board(), "nobody")
    assert bot.engine is not None
    pids = bot.engine.pids
    assert pids and all(alive(pid) for pid in pids)
    bot.handle_game_end(chess.WHITE, None, None)
    assert bot.engine is None
    assert not any(alive(pid) for pid in pids)


def alive(pid: int) -> bool:
    """A live (not zombie) process."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def check_game(result: GameResult, ours: str, caplog: Any) -> list[dict[str, Any]]:
    """No crash, no flag of ours, no internal error, and one complete turn-log line per turn of ours."""
    failures = [r for r in caplog.records if r.name == "rbc_bot.bot" and "falling back" in r.getMessage()]
    assert not failures, [f"{r.getMessage()}: {r.exc_info and r.exc_info[1]!r}" for r in failures]
    assert result.crashed is None, result.traceback
    assert result.timed_out != ours, result
    log_path = Path(result.turn_logs[ours])
    records = [json.loads(line) for line in log_path.read_text().splitlines()]
    history = GameHistory.from_file(result.replay)
    color = chess.WHITE if ours == "white" else chess.BLACK
    turns = list(history.turns(color)) if history.num_turns(color) else []
    assert len(records) == len(turns) == (result.plies + (ours == "white")) // 2
    assert [r["turn"] for r in records] == list(range(1, len(records) + 1))
    for record, turn in zip(records, turns, strict=True):
        taken = history.taken_move(turn)
        assert record["taken_move"] == (taken.uci() if taken else None)
        assert record["sense_square"] == chess.square_name(history.sense(turn))
        requested = history.requested_move(turn)
        assert record["chosen_move"] == (requested.uci() if requested else None)
    for record in records:
        assert set(record) >= TURN_FIELDS, TURN_FIELDS - set(record)
        assert record["color"] == ours
        assert record["errors"] <= len(failures)
        assert record["seconds_move"] >= 0 and record["seconds_left"] > 0
        # The whole turn on our clock holds the expansion of the opponent's move, the sense and the move.
        parts = record["seconds_expand"] + record["seconds_sense"] + record["seconds_move"]
        assert record["seconds_turn"] >= parts - 0.01
        assert set(record["belief"]) >= {"after_opponent", "after_sense", "after_move"}
    return records


def test_plays_a_whole_game_without_stockfish(tmp_path: Path, caplog: Any) -> None:
    caplog.set_level(logging.ERROR, logger="rbc_bot.bot")
    ours = BotSpec("rbc_bot", (*SMALL, f"engine.path={tmp_path / 'no-stockfish'}"))
    result = play_game(
        ours, BotSpec("random"), seconds=30, increment=0, seed=5, out_dir=tmp_path, isolate=False
    )
    records = check_game(result, "white", caplog)
    assert result.winner == "white"
    assert all(r["engine_calls"] == 0 for r in records)
    assert any("Stockfish could not start" in r.getMessage() for r in caplog.records)


# --- short-clock games against each reconchess bot -----------------------------------------------------


@pytest.mark.parametrize(
    ("opponent", "ours", "seconds", "increment", "seed"),
    [
        ("random", "white", 30.0, 0.0, 1),
        ("random", "black", 30.0, 0.0, 2),
        ("trout", "white", 20.0, 1.0, 4),
        ("attacker", "white", 10.0, 0.0, 5),  # the whole game below the margin: panic fallbacks only
        ("attacker", "black", 10.0, 0.0, 3),
        ("trout", "black", 10.0, 0.0, 6),
    ],
)
def test_short_clock_game(
    tmp_path: Path, opponent: str, ours: str, seconds: float, increment: float, seed: int, caplog: Any
) -> None:
    result = play_short_game(tmp_path, opponent, ours, seconds, increment, seed, caplog)
    check_game(result, ours, caplog)
    if opponent == "random":
        assert result.winner == ours


def test_no_flag_at_a_realistic_clock(tmp_path: Path, caplog: Any) -> None:
    """The default-suite version of the long games: full settings (both engines), each bot in its own
    process, 60 s + 2 s against TroutBot; the bot searches every move and still keeps its margin."""
    caplog.set_level(logging.ERROR, logger="rbc_bot")
    result = play_game(
        BotSpec("trout"), BotSpec("rbc_bot"), seconds=60, increment=2, seed=8, out_dir=tmp_path
    )
    records = check_game(result, "black", caplog)
    assert result.timed_out is None
    assert min(r["seconds_left"] for r in records) > 5.0
    # Every move but a sure king capture or a forced one comes from the engine's scores (a game may be
    # short: TroutBot can lose its king in five moves, so the time spent proves nothing by itself).
    searched = [r for r in records if r["move_reason"] not in ("king-capture", "only-move")]
    assert searched, records
    unsearched = [r for r in searched if r["engine_calls"] == 0 or not (r["chosen_move"] or r["candidates"])]
    assert not unsearched, f"it never just passes: a pass only as the best of scored candidates {unsearched}"


@pytest.mark.parametrize("ours", ["white", "black"])
def test_every_candidate_setting_plays_a_clean_game(tmp_path: Path, ours: str, caplog: Any) -> None:
    """The settings a strength match may switch on, all at once, in a real game: no error, no flag."""
    settings = (
        "sense.method=decision", "engine.fill_budget=true", "move.opening_turns=8",
        "move.king_capture_guard_value=9", "move.king_capture_guard_turns=12", "move.aggregate=mix",
        "move.near_tie=0.03", "move.second_look=3", "move.quiet_check_odds=0.16", "move.threat_share=0.5",
        "sense.likely_weights=true", "engine.fixed_cost_probes=1", "sense.danger_king_contact=false",
        "move.progress_pushes=true", "move.min_depth=7", "move.fill_breadth=1000", "clock.spend_target=0.9",
        "belief.carry_weights=true", "move.prior_draw=true", "move.probe_cp=33",
    )  # fmt: skip
    result = play_short_game(tmp_path, "trout", ours, 30.0, 1.0, 21, caplog, settings)
    records = check_game(result, ours, caplog)
    assert "decision" in {r["sense_rule"] for r in records}  # likely-window: tests/test_likely.py
    assert any(r["candidates"] for r in records)
    assert all("probe_pay" in c for r in records for c in r["candidates"])


@pytest.mark.long
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("ours", ["white", "black"])
@pytest.mark.parametrize(
    ("opponent", "seconds", "increment"),
    [("random", 45.0, 2.0), ("attacker", 45.0, 2.0), ("trout", 45.0, 2.0), ("trout", 120.0, 5.0)],
)
def test_more_short_clock_games(
    tmp_path: Path, opponent: str, ours: str, seconds: float, increment: float, seed: int, caplog: Any
) -> None:
    result = play_short_game(tmp_path, opponent, ours, seconds, increment, 100 + seed, caplog)
    check_game(result, ours, caplog)
    if opponent == "random":
        assert result.winner == ours


def play_short_game(
    tmp_path: Path, opponent: str, ours: str, seconds: float, increment: float, seed: int, caplog: Any,
    settings: tuple[str, ...] = (),
) -> GameResult:  # fmt: skip
    """One game of our bot (small settings) against a reconchess bot, in this process."""
    caplog.set_level(logging.ERROR, logger="rbc_bot")
    us = BotSpec("rbc_bot", (*SMALL, *settings))
    white, black = (us, BotSpec(opponent)) if ours == "white" else (BotSpec(opponent), us)
    result = play_game(
        white, black, seconds=seconds, increment=increment, seed=seed, out_dir=tmp_path, isolate=False
    )
    print(f"{opponent} {ours}: winner {result.winner} by {result.reason}, {result.plies} plies, "
          f"left {result.seconds_left}")  # fmt: skip
    return result


# --- the stock reconchess tools --------------------------------------------------------------------


def test_rc_bot_match_loads_our_bot(tmp_path: Path) -> None:
    export_stockfish_for_trout()
    random_bot = Path(sys.modules["reconchess.bots.random_bot"].__file__ or "")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [venv_script("rc-bot-match"), str(BOT_FILE), str(random_bot), "--seconds_per_player", "30"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    winners = [line for line in proc.stdout.splitlines() if line.startswith("Winner:")]
    assert winners and "ERROR" not in winners[0], proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    assert list(tmp_path.glob("*.json")), "rc-bot-match saves the replay in its working directory"


def test_pawn_capture_beside_our_own_pawn_keeps_the_belief(caplog: Any) -> None:
    """1.e4 e5 2.f4 f5 3.exf5 exf4: seen in a real game against trout (the belief then had to rebuild)."""
    caplog.set_level(logging.ERROR)
    bot = small_bot()
    board = chess.Board()
    try:
        bot.handle_game_start(chess.WHITE, board.copy(), "nobody")
        bot.handle_opponent_move_result(False, None)  # White's first turn: nothing happened yet
        for ours, theirs in [("e2e4", "e7e5"), ("f2f4", "f7f5"), ("e4f5", "e5f4")]:
            move = chess.Move.from_uci(ours)
            capture = move.to_square if board.is_capture(move) else None
            board.push(move)
            bot.handle_move_result(move, move, capture is not None, capture)
            reply = chess.Move.from_uci(theirs)
            capture = reply.to_square if board.is_capture(reply) else None
            board.push(reply)
            bot.handle_opponent_move_result(capture is not None, capture)
        assert bot.errors == 0, [str(r.exc_info[1]) for r in caplog.records if r.exc_info]
        assert bot.tracker.contains(board)
    finally:
        bot.close()


def test_a_request_that_was_not_taken_is_not_repeated_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """g2xh3 finds nothing on h3 (played as a pass): the next turn it is not offered to the selector;
    the turn after, it is again."""
    offered: list[set[chess.Move]] = []
    real_choose_move = rbc_bot.bot.choose_move

    def recording(boards: Any, actions: Any, *args: Any, **kwargs: Any) -> Any:
        offered.append(set(actions))
        return real_choose_move(boards, actions, *args, **kwargs)

    monkeypatch.setattr(rbc_bot.bot, "choose_move", recording)
    board = chess.Board("4k3/8/8/8/8/8/6P1/4K3 w - - 0 1")
    lottery, push = chess.Move.from_uci("g2h3"), chess.Move.from_uci("g2g3")
    bot = small_bot()
    try:
        bot.handle_game_start(chess.WHITE, board.copy(), "nobody")
        for turn in range(3):
            bot.handle_opponent_move_result(False, None)  # reconchess calls it on White's first turn too
            bot.choose_sense(list(range(64)), move_actions(board), 100.0)
            bot.handle_sense_result([(s, board.piece_at(s)) for s in sense_window(bot._sense_square)])
            bot.choose_move(move_actions(board), 100.0)
            requested = lottery if turn == 0 else None
            bot.handle_move_result(requested, None, False, None)
            board.push(chess.Move.null())
            board.push(chess.Move.null())  # the opponent passes too: the truth stays put
        assert lottery in offered[0] and push in offered[0]
        assert lottery not in offered[1] and push in offered[1]
        assert lottery in offered[2]
        assert bot.errors == 0
    finally:
        bot.close()


def test_danger_sense_for_a_rare_threat_in_a_small_belief_or_when_ahead() -> None:
    """Our king is attacked on 1 board in 20 (a bishop check, say): with 20 boards the sense goes to
    tell them apart; if small beliefs were treated like large ones (danger_always_below=0), the 5 %
    threat is left to the move selector (under the 10 % share) and the sense cuts the belief, unless
    we stand well on every board (+300 cp or more): then any threat is sensed."""
    boards = []
    for square in chess.SQUARES:
        board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
        if board.piece_at(square) is None:
            board.set_piece_at(square, chess.Piece(chess.BISHOP, chess.BLACK))
            boards.append(board)
    attacked = [b for b in boards if our_king_attacked(b)]
    safe = [b for b in boards if not our_king_attacked(b)]
    belief = np.stack([encode(b) for b in [attacked[0], *safe[:19]]])
    for always_below, standing, expect_danger in ((1_000, 0.0, True), (0, 0.0, False), (0, 300.0, True)):
        bot = small_bot(f"sense.danger_always_below={always_below}")
        try:
            bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
            bot.handle_opponent_move_result(False, None)  # White's first turn: starts the turn record
            rules = SenseRules(bot.config, bot.scorer, bot.rng)
            square = rules.danger(SenseInputs(belief.copy(), chess.WHITE, 0.0, standing, [], 1.0, False))
            assert rules.danger_share == pytest.approx(0.05)
            assert (square is not None) == expect_danger
            if square is not None:
                assert chess.square_name(next(iter(attacked[0].pieces(chess.BISHOP, chess.BLACK)))) in {
                    chess.square_name(s) for s in sense_window(square)
                }
        finally:
            bot.close()


def test_with_several_fixed_cost_probes_each_turn_probes_once() -> None:
    """``engine.fixed_cost_probes=3``: every sense (a turn's start) probes the engine's fixed cost again,
    and the scorer keeps the last three; with 1 it is probed once, when first needed."""
    for probes, expected in ((3, [1, 2, 3, 3]), (1, [1, 1, 1, 1])):
        bot = small_bot(f"engine.fixed_cost_probes={probes}")
        try:
            board = chess.Board()
            bot.handle_game_start(chess.WHITE, board.copy(), "nobody")
            kept = []
            for _ in expected:
                bot.choose_sense(list(chess.SQUARES), list(board.pseudo_legal_moves), 600.0)
                bot.scorer.measure_fixed_cost()
                kept.append(len(bot.scorer.fixed_cost_probes))
            assert kept == expected
        finally:
            bot.close()
