"""Ad hoc (session 37): StrangeFish games on record drawn by the 100-ply rule, with the material each side
kept; and the turns of a row where the true halfmove clock had reached 40 (the progress bonus's start).

Run from the repository root: python benchmarks/strength/2026-12-06-s37/adhoc/rule_draws.py [ROW_DIR ...]
(the row directories default to session 36's records, the default's row).
"""

import glob
import json
import os
import sys
from pathlib import Path
from typing import Any

import chess

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}
DEFAULT_ROWS = ["benchmarks/strength/2026-12-05-s36/clk36a", "benchmarks/strength/2026-12-05-s36/clk36b"]


def material(board: chess.Board, color: chess.Color) -> int:
    return sum(VALUES[p.piece_type] for p in board.piece_map().values() if p.color == color)


def replay_of(path: str) -> str | None:
    if os.path.exists(path):
        return path
    stored = glob.glob("benchmarks/strength/*/*/" + os.path.basename(path))
    return stored[0] if stored else None


def records(path: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


seen, games = set(), 0
for r in (r for f in glob.glob("benchmarks/strength/*/*/results.jsonl") for r in records(f)):
    if "strangefish" not in r.get("white", "") + r.get("black", "") or r["replay"] in seen:
        continue
    seen.add(r["replay"])
    games += 1
    if r["winner"] is not None:
        continue
    path = replay_of(r["replay"])
    if path is None:
        print("draw, replay not stored:", r["seed"], r["a_color"], r["plies"])
        continue
    fens = json.loads(Path(path).read_text())["fens_after_move"]
    last = chess.Board(fens["false"][-1] if len(fens["false"]) == len(fens["true"]) else fens["true"][-1])
    ours = r["a_color"] == "white"
    print(r["seed"], r["a_color"], r["reason"], r["plies"], "material ours", material(last, ours),
          "theirs", material(last, not ours), last.fen())  # fmt: skip
print(games, "StrangeFish games on record")

turns = late = 0
late_games = set()
for row in sys.argv[1:] or DEFAULT_ROWS:
    for r in records(os.path.join(row, "results.jsonl")):
        replay = replay_of(r["replay"])
        assert replay is not None, r["replay"]
        fens = json.loads(Path(replay).read_text())["fens_before_move"]
        for fen in fens["true" if r["a_color"] == "white" else "false"]:
            turns += 1
            if chess.Board(fen).halfmove_clock >= 40:
                late += 1
                late_games.add(r["seed"])
print(f"{late} of {turns} turns with the halfmove clock at 40 or more, in {len(late_games)} game(s)")
