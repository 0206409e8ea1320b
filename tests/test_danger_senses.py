"""benchmarks/danger_senses.py: the danger sense at several tolerances on a written suite, and its bad
input."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
from board_sets import rare_check_boards
from record_helpers import BENCHMARKS, write_suite

SCRIPT = BENCHMARKS / "danger_senses.py"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, check=False)


def test_a_tolerance_leaves_fewer_boards_and_the_check_mixed(tmp_path: Path) -> None:
    """The truth a safe board with the knight on g6: at tolerance 0 the sense sees a6 and leaves the
    nine safe boards (90 %), the truth's group all safe; at 0.1 it sees g6 and leaves two boards (20 %),
    the check among them."""
    boards = rare_check_boards()
    suite = tmp_path / "suite.jsonl.gz"
    write_suite(suite, boards, [next(b for b in boards[1:] if b.piece_at(chess.G6))])
    done = run(str(suite), "--tolerance", "0", "0.1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "1 danger turns"
    assert lines[1] == (
        "tolerance 0: boards left median 90.0%, mean 90.0%; truth's group mixed on 0; centre changed on 0"
    )
    assert lines[2] == (
        "tolerance 0.1: boards left median 20.0%, mean 20.0%; truth's group mixed on 1; centre changed on 1"
    )
    filtered = run(str(suite), "--share-from", "0.2")
    assert filtered.stdout.splitlines()[0] == "0 danger turns", "a tenth of the boards attacked is below 0.2"


def test_bad_input_is_one_line_on_stderr(tmp_path: Path) -> None:
    text = tmp_path / "suite.jsonl.gz"
    text.write_text("not gzip\n")
    for args, says in (
        ([str(tmp_path / "none.jsonl.gz")], "none.jsonl.gz"),
        ([str(text)], "gzip"),
        ([str(text), "--tolerance", "2"], "--tolerance"),
    ):
        done = run(*args)
        assert done.returncode == 1 and done.stdout == "" and says in done.stderr
        assert done.stderr.startswith("danger_senses.py: error: ") and done.stderr.count("\n") == 1
