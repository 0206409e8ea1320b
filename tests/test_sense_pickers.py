"""benchmarks/sense_pickers.py: the decision sense against the window sense on a written suite, scored
by real Stockfish, and its bad input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
from record_helpers import BENCHMARKS, write_suite

SCRIPT = BENCHMARKS / "sense_pickers.py"


def queen_or_pawns_boards() -> list[chess.Board]:
    """Eight boards, White to move (Kh1, pawns f4, g2, h2; Black Ka8): the black queen on e5 or on g5,
    where the f-pawn takes it one way or the other (a pawn's capture onto an empty square is no move),
    times four places for two black pawns (a6 or a7, b6 or b7), which change nothing for the move. A
    window on the pawns leaves two boards, the queen's square unknown; a window on the queen leaves
    four, and the capture known. No window sees both."""
    fixed = {chess.H1: "K", chess.F4: "P", chess.G2: "P", chess.H2: "P", chess.A8: "k"}
    boards = []
    for queen in (chess.E5, chess.G5):
        for a_pawn in (chess.A6, chess.A7):
            for b_pawn in (chess.B6, chess.B7):
                board = chess.Board(None)
                for square, symbol in {**fixed, queen: "q", a_pawn: "p", b_pawn: "p"}.items():
                    board.set_piece_at(square, chess.Piece.from_symbol(symbol))
                boards.append(board)
    return boards


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_the_window_sense_falls_short_where_the_boards_it_cuts_do_not_change_the_move(tmp_path: Path) -> None:
    """The window sense picks the pawns' centre (two boards left, the capture a guess: with the likely
    weights, which weigh the e5 boards most, about 0.11 of a point short of the best centre's worth);
    the decision sense, its sample the whole belief, picks a centre that shows the queen (nothing
    short), on the reference values and on its own (``--total-nodes``: 3,000 nodes a search here)."""
    boards = queen_or_pawns_boards()
    suite = tmp_path / "suite.jsonl.gz"
    write_suite(suite, boards, [boards[0]])
    done = run(str(suite), "--samples", "48", "--min-boards", "2", "--draws", "2", "--nodes", "3000")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("g.json turn 2: 8 boards; decision 48 0.00, window ")
    assert lines[1] == "1 positions, shortfall per 100 decisions:"
    window = float(lines[3].split(":")[1].split(";")[0])
    assert lines[2].startswith("  decision 48: 0.00; minus window -")
    assert lines[3].startswith("  window: ") and window > 5.0
    own = run(str(suite), "--samples", "8", "--min-boards", "2", "--draws", "2", "--total-nodes", "24000")
    assert own.returncode == 0, own.stderr
    assert own.stdout.splitlines()[2].startswith("  decision 8: 0.00; minus window -"), "its own values"


def test_bad_input_is_one_line_on_stderr(tmp_path: Path) -> None:
    suite = tmp_path / "suite.jsonl.gz"
    write_suite(suite, queen_or_pawns_boards(), [queen_or_pawns_boards()[0]])
    for args, says in (
        ([str(tmp_path / "none.jsonl.gz")], "no suite at"),
        ([str(suite), "--samples", "0"], "must be positive"),
        ([str(suite)], "holds its whole belief in range"),  # 8 boards, below the default 151
    ):
        done = run(*args)
        assert done.returncode == 1 and done.stdout == "" and says in done.stderr
        assert done.stderr.startswith("sense_pickers.py: error: ") and done.stderr.count("\n") == 1
