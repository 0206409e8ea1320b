"""Replay analysis on histories of real reconchess games played here (RandomBot vs AttackerBot).

Checked against the game itself: the re-simulated belief holds the true board at every turn (no cap,
short games, so the set is exact), the sense scores match a brute-force count, the PGN replays to
the final true board, and the reports hold the game's numbers (bad files:
tests/test_replay_input.py).
"""

from __future__ import annotations

import base64
import json
import random
from html import escape as html_escape
from pathlib import Path
from typing import Any

import chess
import chess.pgn
import pytest
from reconchess import LocalGame, play_local_game
from reconchess.bots.random_bot import RandomBot
from replay_helpers import analyze_args, play, run_cli, save_short_games

from rbc_bot.belief import BeliefTracker
from rbc_bot.engine import can_capture_king
from rbc_bot.replay.load import load_game
from rbc_bot.replay.mistakes import KINDS
from rbc_bot.replay.pgn import RbcGameBuilder, rbc_moves, read_pgn, write_pgn
from rbc_bot.replay.resim import expected_eliminated, resimulate
from rbc_bot.rules import sense_window


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return save_short_games(tmp_path_factory.mktemp("games"))


@pytest.fixture(scope="module")
def long_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A game (seed chosen for it) with RBC-only moves, a missed king capture and a king-capture win."""
    path = tmp_path_factory.mktemp("long") / "long.json"
    play(11, 40).save(path)
    return path


def test_resimulation_holds_the_truth_at_every_turn(games: dict[str, Path]) -> None:
    for name in ("a", "b"):
        history = load_game(games[name]).history
        for color in chess.COLORS:
            side = resimulate(history, color, cap=None)
            assert side.error is None
            assert len(side.turns) == history.num_turns(color)
            for t in side.turns:
                assert t.truth_after_opponent and t.truth_after_sense, (name, color, t)
                assert t.truth_after_move is not False, (name, color, t)
                assert t.sense_eliminated == t.size_after_opponent - t.size_after_sense >= 0
                if t.best_sense_expected is not None:
                    assert t.sense_expected is not None
                    assert t.best_sense_expected >= t.sense_expected - 1e-9
            assert side.truth_always_in_belief is True


def test_resimulation_with_expansion_slack_samples_after_the_sense(games: dict[str, Path]) -> None:
    history = load_game(games["a"]).history
    tight = resimulate(history, chess.WHITE, cap=8, expansion_slack=1)
    slack = resimulate(history, chess.WHITE, cap=8, expansion_slack=10)
    assert tight.error is None and slack.error is None
    assert max(t.size_after_opponent for t in tight.turns) <= 8
    assert max(t.size_after_opponent for t in slack.turns) > 8
    assert all(t.size_after_opponent <= 80 and t.size_after_sense <= 8 for t in slack.turns)
    assert run_cli(str(games["a"]), "--no-engine", "--belief-slack", "0") == 2


def test_expected_eliminated_matches_a_brute_force_count(games: dict[str, Path]) -> None:
    history = load_game(games["a"]).history
    tracker = BeliefTracker(chess.BLACK)
    for turn in list(history.turns(chess.BLACK))[:3]:
        tracker.on_opponent_move(history.capture_square(turn.previous))
        tracker.on_sense(history.sense(turn), history.sense_result(turn))
        tracker.on_own_move(*history.move_result(turn))
    tracker.on_opponent_move(None)
    boards = list(tracker)
    assert len(boards) > 20
    centres = [chess.A1, chess.E4, chess.H8, chess.B7]
    fast = expected_eliminated(tracker.pieces, centres)
    for centre in centres:
        groups: dict[tuple[Any, ...], int] = {}
        for board in boards:
            key = tuple(board.piece_at(sq) for sq in sense_window(centre))
            groups[key] = groups.get(key, 0) + 1
        # Truth uniform over the boards: a sense leaving group g removes n - |g| boards with chance |g|/n.
        brute = sum(size / len(boards) * (len(boards) - size) for size in groups.values())
        assert fast[centre] == pytest.approx(brute)


def test_pgn_replays_to_the_final_true_board(long_game: Path, tmp_path: Path) -> None:
    history = load_game(long_game).history
    out = write_pgn(history, tmp_path / "game.pgn")
    game = read_pgn(out)
    assert game is not None and not game.errors
    moves = [t for t in history.turns() if history.has_move(t)]
    assert len(list(game.mainline_moves())) == len(moves)
    final = chess.Board(history.truth_fen_after_move(moves[-1]))
    assert game.end().board().board_fen() == final.board_fen()
    assert game.headers["Result"] == {True: "1-0", False: "0-1"}[history.get_winner_color()]
    # The game must exercise the RBC-only path (a move chess calls illegal), else this test proves little.
    board = chess.Board()
    rbc_only = 0
    for turn in moves:
        move = history.taken_move(turn) or chess.Move.null()
        if move and not board.is_legal(move):
            assert move in rbc_moves(board)
            rbc_only += 1
        board.push(move)
    assert rbc_only > 0
    # Plain python-chess stops at the first RBC-only move; ours does not.
    plain = chess.pgn.read_game(out.open())
    assert plain is not None and plain.errors
    with out.open() as handle:
        assert chess.pgn.read_game(handle, Visitor=RbcGameBuilder) is not None


def test_single_game_report_holds_the_numbers(
    long_game: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report"
    assert run_cli(str(long_game), *analyze_args(out), "--belief-seconds", "20") == 0
    printed = capsys.readouterr().out
    for name in (
        "report.html",
        "summary.json",
        "game.pgn",
        "belief_size.png",
        "sense_eliminated.png",
        "time_per_turn.png",
        "evaluation.png",
        "overview.png",
    ):
        assert (out / name).stat().st_size > 0, name
    assert (out / "belief_size.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    history = load_game(long_game).history
    summary = json.loads((out / "summary.json").read_text())
    assert summary["turns"] == history.num_turns()
    assert summary["result"] == ("1-0" if history.get_winner_color() else "0-1")
    assert summary["analysed_sides"] == ["white", "black"]
    # Short games, default cap: the re-simulated belief holds the true board at every turn of both sides.
    assert summary["truth_always_in_belief"] is True
    assert all(row["truth"] is True for row in summary["per_turn"])
    # The king captures the engine flags as missed are exactly the true boards where the mover could take
    # the king and did not.
    missed = {(m["color"], m["turn"]) for m in summary["mistakes"] if "king capture missed" in m["tags"]}
    expected = set()
    for turn in history.turns():
        if history.has_move(turn):
            before = history.truth_board_before_move(turn)
            after = chess.Board(history.truth_fen_after_move(turn))
            if can_capture_king(before) and after.king(not turn.color) is not None:
                expected.add((chess.COLOR_NAMES[turn.color], turn.turn_number))
    assert missed == expected and missed
    # No move equal to the engine's best is flagged; every mistake has a kind from its belief judgement.
    assert summary["mistakes"] and all(m["played"] != m["best"] for m in summary["mistakes"])
    assert all(m["kind"] in KINDS and m["boards_judged"] > 0 for m in summary["mistakes"])
    assert sum(summary["mistake_stats"]["kinds"].values()) == len(summary["mistakes"])
    # Per turn: the king-attacked share and the selector's move before and after every sense.
    for row in summary["per_turn"]:
        assert row["king_attacked"] is not None and 0 <= row["king_attacked"] <= 1
        if row["sense"] is not None and row["taken"] != "-":
            assert row["decision_before_sense"] and row["decision_after_sense"]
            changed = row["decision_before_sense"] != row["decision_after_sense"]
            assert row["sense_changed_move"] is changed
    # The decisive moment: the loser's mistake, named in summary.json, the terminal and atop the report.
    decisive = summary["decisive"]
    loser = "black" if summary["winner"] == "white" else "white"
    assert decisive["color"] == loser and decisive["kind"] in KINDS
    mistake = next(m for m in summary["mistakes"] if (m["color"], m["turn"]) == (loser, decisive["turn"]))
    assert decisive["kind"] == mistake["kind"] and mistake["requested"] in decisive["text"]
    assert decisive["text"].startswith(f"{loser.capitalize()} lost the game at turn {decisive['turn']}")
    assert decisive["text"] in printed.replace("\n", " ")  # soft-wrapped: one line
    html = (out / "report.html").read_text()
    assert html.index(html_escape(decisive["text"])) < html.index("Board viewer") < html.index("Per turn")
    assert html.count("data:image/png;base64,") == 4
    encoded = html.split("data:image/png;base64,")[1].split('"')[0]
    assert base64.b64decode(encoded)[:4] == b"\x89PNG"
    assert f"<td>{summary['turns']}</td>" in html.replace("<td style='text-align:left'>", "<td>")
    for row in summary["per_turn"][:5]:
        assert row["sense"] is None or f"<td>{row['sense']}</td>" in html


def test_server_wrapped_history_and_turn_log(games: dict[str, Path], tmp_path: Path) -> None:
    history = load_game(games["b"]).history
    log = games["wrapped"].with_suffix(".turns.jsonl")
    rows = [
        {
            "turn": t.turn_number,
            "color": "white",
            "seconds_left": 900.0 - t.turn_number,
            "seconds_sense": 0.25,
            "seconds_move": 0.5 + t.turn_number,
            "belief": {"after_sense": [7 + t.turn_number, 0]},
            "recoveries": 0,
        }
        for t in history.turns(chess.WHITE)
    ]
    log.write_text("\n".join(json.dumps(r) for r in rows) + '\n{"turn": 9, "col')
    out = tmp_path / "wrapped"
    try:
        assert run_cli(str(games["wrapped"]), "--out", str(out), "--no-engine") == 0
    finally:
        log.unlink()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["turns"] == history.num_turns()
    assert summary["analysed_sides"] == ["white"]  # the turn log says which side is ours
    assert summary["our_color"] == "white"
    stats = summary["turn_log"]
    assert stats["turns_logged"] == len(rows)
    assert stats["seconds_total"] == pytest.approx(sum(0.75 + r["turn"] for r in rows))
    assert stats["bot_belief_max"] == 7 + len(rows) - 1
    assert any("malformed" in w for w in summary["warnings"])
    assert summary["mistakes"] == [] and summary["engine"].startswith("disabled")


def test_a_game_of_our_bot_with_its_turn_log(tmp_path: Path) -> None:
    from rbc_bot.players import BotSpec

    replay = tmp_path / "ours.json"
    log_path = tmp_path / (replay.name + ".turns.jsonl")  # where rbc_bot.game puts it
    ours = BotSpec("rbc_bot").create(turn_log_path=str(log_path))
    random.seed(5)
    # Bounded length and a 40 s clock without increment (turns of about a second) keep the test short.
    game = LocalGame(seconds_per_player=40, seconds_increment=0, full_turn_limit=8)
    play_local_game(ours, RandomBot(), game=game)[2].save(replay)
    assert log_path.exists()
    out = tmp_path / "ours"
    assert run_cli(str(replay), *analyze_args(out), "--belief-seconds", "30") == 0
    summary = json.loads((out / "summary.json").read_text())
    history = load_game(replay).history
    assert summary["our_color"] == "white" and summary["analysed_sides"] == ["white"]
    assert summary["turn_log"]["turns_logged"] == history.num_turns(chess.WHITE)
    # Our tracker followed the same observations in the game: the re-simulation holds the truth too.
    assert summary["belief"]["white"]["truth_lost_turns"] == 0
    # The log's rows are joined to the right turns (our bot counts turns from 1, the history from 0).
    logged = [
        json.loads(line) for line in (tmp_path / (replay.name + ".turns.jsonl")).read_text().splitlines()
    ]
    by_turn = {row["turn"]: row for row in summary["per_turn"]}
    assert len(by_turn) == len(logged)
    first = min(logged, key=lambda row: row["turn"])
    assert by_turn[0]["sense"] == first["sense_square"]
    assert by_turn[0]["bot_belief"] == first["belief"]["after_sense"][0]
    assert all(row["seconds"] is not None for row in summary["per_turn"])
    # The turn log's candidates (worst and mean scores) and the rule that chose the sense, per turn.
    for row in logged:
        shown = by_turn[row["turn"] - 1]
        assert shown["sense_rule"] == row["sense_rule"] and shown["move_rule"] == row["move_reason"]
        assert shown["passive_boards"] == row.get("passive_boards")
        assert shown["candidates"] == row["candidates"] or not row["candidates"]
    assert any(row["candidates"] and "worst" in row["candidates"][0] for row in summary["per_turn"])


def test_flag_fall_mid_turn_is_analysed(games: dict[str, Path], tmp_path: Path) -> None:
    """The server's history of a player whose time ran out after sensing: a last turn with no move."""
    raw = json.loads(games["b"].read_text())
    last_color = "true" if len(raw["senses"]["true"]) > len(raw["senses"]["false"]) else "false"
    for key in ("requested_moves", "taken_moves", "capture_squares", "fens_before_move", "fens_after_move"):
        raw[key][last_color].pop()
    raw["winner_color"], raw["win_reason"] = last_color == "false", {"type": "WinReason", "value": "TIMEOUT"}
    path = tmp_path / "flag.json"
    path.write_text(json.dumps(raw))
    out = tmp_path / "flag"
    assert run_cli(str(path), "--out", str(out), "--no-engine", "--belief-cap", "0") == 0
    history = load_game(path).history
    summary = json.loads((out / "summary.json").read_text())
    assert summary["turns"] == history.num_turns() and summary["win_reason"] == "TIMEOUT"
    game = read_pgn(out / "game.pgn")
    assert game is not None and not game.errors
    moves = [t for t in history.turns() if history.has_move(t)]
    assert len(list(game.mainline_moves())) == len(moves)
    assert "no move (time ran out)" in game.end().comment
