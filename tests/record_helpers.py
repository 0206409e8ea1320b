"""Shared by the tests of the strength scripts (tests/test_strength_scripts.py, tests/test_paired_script.py):
where the benchmark scripts and the kept records are, and a match folder written by hand."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCHMARKS = ROOT / "benchmarks"
KEPT = BENCHMARKS / "strength" / "2026-12-01-s7" / "base"  # session 7's main run, losses' logs kept


def write_run(folder: Path, games: list[tuple[int, str, str | None]]) -> Path:
    """A match folder whose results.jsonl holds (seed, our colour, winner colour or None) games."""
    folder.mkdir(parents=True)
    rows = [{"seed": s, "a_color": c, "winner": w, "reason": "KING_CAPTURE"} for s, c, w in games]
    (folder / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return folder
