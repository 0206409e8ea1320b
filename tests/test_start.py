"""Games from a given position: what is playable, a positions file, real games and matches from
positions, and the replay tools reading such a game (rules check, belief, PGN, decisive moment)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest
from reconchess import GameHistory

from rbc_bot.cli import main
from rbc_bot.game import play_game
from rbc_bot.match import MatchSettings, run_match
from rbc_bot.players import BotSpec
from rbc_bot.replay.load import load_game
from rbc_bot.replay.pgn import build_game
from rbc_bot.replay.resim import resimulate
from rbc_bot.start import StartPositionError, history_start_board, load_positions, start_board

QUEEN_ENDING = "4k3/8/8/8/8/8/8/3QK3 w - - 0 1"
ROOK_ENDING = "7k/8/8/8/8/8/8/R3K3 w Q - 0 1"


@pytest.mark.parametrize(
    ("fen", "message"),
    [
        ("not a fen", "is not a FEN"),
        ("4k3/8/8/8/8/8/8/3QK3 b - - 0 1", "White to move"),
        ("8/8/8/8/8/8/8/3QK3 w - - 0 1", "no black king"),
        ("4k3/4Q3/8/8/8/8/8/4K3 w - - 0 1", "opposite check"),
        ("4k3/8/8/8/8/8/8/3QK3 w K - 0 1", "bad castling rights"),
    ],
)
def test_unplayable_start_positions_are_refused_with_the_reason(fen: str, message: str) -> None:
    with pytest.raises(StartPositionError, match=message):
        start_board(fen)


def test_playable_positions_and_the_standard_one() -> None:
    assert start_board(None) == chess.Board()
    assert start_board(ROOK_ENDING).fen() == ROOK_ENDING


def test_positions_file_skips_comments_and_names_the_bad_line(tmp_path: Path) -> None:
    good = tmp_path / "good.txt"
    good.write_text(f"# endings\n\n{QUEEN_ENDING}  # the queen\n{ROOK_ENDING}\n")
    assert load_positions(good) == [QUEEN_ENDING, ROOK_ENDING]
    bad = tmp_path / "bad.txt"
    bad.write_text(f"{QUEEN_ENDING}\n# fine so far\n4k3/8/8/8/8/8/8/3QK3 b - - 0 1\n")
    with pytest.raises(StartPositionError, match=r"bad.txt:3: .*White to move"):
        load_positions(bad)
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    with pytest.raises(StartPositionError, match="no positions"):
        load_positions(empty)
    with pytest.raises(StartPositionError, match="cannot read"):
        load_positions(tmp_path / "missing.txt")


def test_a_game_from_a_position_and_the_replay_tools_that_read_it(tmp_path: Path) -> None:
    result = play_game(
        BotSpec("rbc_bot", ("engine.nodes=2000", "engine.max_depth=6")), BotSpec("random"), seconds=60,
        increment=0, seed=5, out_dir=tmp_path, isolate=False, start_fen=ROOK_ENDING,
    )  # fmt: skip
    assert result.crashed is None and result.start_fen == ROOK_ENDING
    history = GameHistory.from_file(result.replay)
    first = history.first_turn()
    assert (
        chess.Board(history.truth_fen_before_move(first)).board_fen() == chess.Board(ROOK_ENDING).board_fen()
    )
    assert history_start_board(history).board_fen() == chess.Board(ROOK_ENDING).board_fen()
    load_game(Path(str(result.replay)))  # the rules check replays every move from the position
    side = resimulate(history, chess.WHITE)
    assert side.error is None and side.turns
    assert all(turn.truth_kept for turn in side.turns)
    pgn = build_game(history)
    assert pgn.headers["SetUp"] == "1" and pgn.headers["FEN"].startswith("7k/8/8/8/8/8/8/R3K3 w")
    replayed = chess.pgn.read_game(io.StringIO(str(pgn)))
    assert replayed is not None and replayed.board().board_fen() == chess.Board(ROOK_ENDING).board_fen()
    assert not replayed.errors


def test_a_standard_game_has_no_fen_header(tmp_path: Path) -> None:
    result = play_game(
        BotSpec("random"), BotSpec("attacker"), seconds=30, increment=0, seed=1, out_dir=tmp_path
    )
    assert result.start_fen is None
    history = GameHistory.from_file(result.replay)
    assert history_start_board(history) == chess.Board()
    assert "FEN" not in build_game(history).headers


def test_match_pairs_start_from_the_positions_in_turn_and_resume_keeps_them(tmp_path: Path) -> None:
    settings = MatchSettings(
        a=BotSpec("random"), b=BotSpec("attacker"), games=6, seconds=20, increment=0, seed=3,
        positions=[QUEEN_ENDING, ROOK_ENDING],
    )  # fmt: skip
    out = tmp_path / "m"
    settings.games = 4
    run_match(settings, out, isolate=False)
    saved = json.loads((out / "match.json").read_text())
    assert saved["positions"] == [QUEEN_ENDING, ROOK_ENDING]
    summary = run_match(MatchSettings.from_json({**saved, "games": 6}), out, resume=True, isolate=False)
    games = sorted(summary["games"], key=lambda g: g["index"])
    assert [g["start_fen"] for g in games] == [QUEEN_ENDING] * 2 + [ROOK_ENDING] * 2 + [QUEEN_ENDING] * 2
    for game in games:
        started = history_start_board(GameHistory.from_file(game["replay"]))
        assert started.board_fen() == chess.Board(game["start_fen"]).board_fen()


def test_cli_refuses_a_bad_positions_file_before_any_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "book.txt"
    bad.write_text("8/8/8/8/8/8/8/8 w - - 0 1\n")
    out = tmp_path / "m"
    assert main(["match", "random", "attacker", "--positions", str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "book.txt:1" in err and "no white king" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and not out.exists()
    assert main(["play", "--opponent", "random", "--fen", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"]) == 2
    assert "White to move" in capsys.readouterr().err
    good = tmp_path / "good.txt"
    good.write_text(QUEEN_ENDING + "\n")
    assert main(["match", "--resume", str(out), "--positions", str(good)]) == 2
    assert "give no A, B or --positions" in capsys.readouterr().err


def test_conversion_report_reads_each_bots_conversions(tmp_path: Path) -> None:
    """benchmarks/conversion.py: per ending and seed, the game in which each bot had the winning side."""
    import subprocess
    import sys

    black_queen = "2q1k3/8/8/8/8/8/8/4K3 w - - 0 1"  # Black converts
    rows = [
        (QUEEN_ENDING, 1, "white", "white", 11),  # A White, converts in 11
        (QUEEN_ENDING, 1, "black", "white", 15),  # B White, converts in 15
        (black_queen, 2, "white", None, 200),  # B Black: a draw by the 100-ply rule
        (black_queen, 2, "black", "black", 9),  # A Black, converts in 9
    ]
    records = [
        {"start_fen": fen, "seed": seed, "a_color": a, "winner": w, "plies": plies}
        for fen, seed, a, w, plies in rows
    ]
    (tmp_path / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "conversion.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)], capture_output=True, text=True, check=True
    )
    assert "A: converted 2 of 2" in done.stdout and "B: converted 1.5 of 2" in done.stdout
    assert "where both converted (1): median plies A 11, B 15; A faster in 1, B faster in 0" in done.stdout
    missing = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "no")], capture_output=True, text=True
    )
    assert (
        missing.returncode == 2 and missing.stderr.count("\n") == 1 and "no results.jsonl" in missing.stderr
    )


def test_tournament_pairs_start_from_the_positions_in_turn(tmp_path: Path) -> None:
    book = tmp_path / "book.txt"
    book.write_text(f"{QUEEN_ENDING}\n{ROOK_ENDING}\n")
    out = tmp_path / "t"
    argv = ["tournament", "random", "attacker", "random", "--games-per-pair", "2", "--seconds", "20"]
    assert main([*argv, "--increment", "0", "--positions", str(book), "--out", str(out)]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["tournament"]["positions"] == [QUEEN_ENDING, ROOK_ENDING]
    by_pair = {(g["pair"], g["start_fen"]) for g in summary["games"]}
    assert by_pair == {(0, QUEEN_ENDING), (1, ROOK_ENDING), (2, QUEEN_ENDING)}
    for game in summary["games"]:
        started = history_start_board(GameHistory.from_file(game["replay"]))
        assert started.board_fen() == chess.Board(game["start_fen"]).board_fen()
    bad = tmp_path / "bad.txt"
    bad.write_text("4k3/8/8/8/8/8/8/3QK3 b - - 0 1\n")
    assert main([*argv, "--positions", str(bad), "--out", str(tmp_path / "t2")]) == 2
    assert not (tmp_path / "t2").exists()
