"""Shared by the tests of the strength scripts (tests/test_strength_scripts.py, tests/test_paired_script.py,
tests/test_danger_senses.py, tests/test_sense_pickers.py): where the benchmark scripts and the kept records
are, and a match folder and a turn suite written by hand."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import chess
import numpy as np

from rbc_bot.belief import encode

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
KEPT = BENCHMARKS / "strength" / "2026-12-01-s7" / "base"  # session 7's main run, losses' logs kept
sys.path.insert(0, str(BENCHMARKS))
import turn_screen  # noqa: E402


def write_run(folder: Path, games: list[tuple[int, str, str | None]]) -> Path:
    """A match folder whose results.jsonl holds (seed, our colour, winner colour or None) games."""
    folder.mkdir(parents=True)
    rows = [{"seed": s, "a_color": c, "winner": w, "reason": "KING_CAPTURE"} for s, c, w in games]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder


def write_suite(path: Path, boards: list[chess.Board], truths: list[chess.Board]) -> None:
    """A turn suite (benchmarks/turn_screen.py's format) of one position per truth, each believing
    ``boards`` whole (all of them White to move)."""
    rows = np.stack([encode(b) for b in boards])
    with gzip.open(path, "wt") as stream:
        for turn, truth in enumerate(truths, start=2):
            position = turn_screen.TurnPosition("g.json", turn, truth, rows, len(boards), 100.0, 0.0, 0.0)
            stream.write(json.dumps(position.as_dict()) + "\n")
