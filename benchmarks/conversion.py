"""How each bot of a match from won endings (``match --positions``) converted them.

Usage: python benchmarks/conversion.py RUN_DIR [RUN_DIR ...]

Why: in a match from a book of won endings, each pair plays one ending twice, and each bot takes the
winning side once. The match score mixes conversions with defences; what a change to the endgame
play is for is the conversions: whether the winning side won, and in how many plies. This prints, per
game in which each bot had the winning side, the result and plies, then each bot's conversions and
median plies over the positions both converted. The winning side of a position is the one with more
material (pawn 1, minor 3, rook 5, queen 9).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import chess

VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def winning_side(fen: str) -> chess.Color | None:
    """The side with more material in ``fen`` (None: level)."""
    board = chess.Board(fen)
    material = {
        c: sum(VALUES[p.piece_type] for p in board.piece_map().values() if p.color == c) for c in chess.COLORS
    }
    if material[chess.WHITE] == material[chess.BLACK]:
        return None
    return chess.WHITE if material[chess.WHITE] > material[chess.BLACK] else chess.BLACK


def conversions(runs: list[Path]) -> dict[tuple[str, int], dict[str, tuple[float, int]]]:
    """For each (start position, seed), each bot's (points, plies) in the game where it had the winning
    side; bots are ``A`` and ``B`` of the match."""
    found: dict[tuple[str, int], dict[str, tuple[float, int]]] = defaultdict(dict)
    for run in runs:
        for line in (run / "results.jsonl").read_text().splitlines():
            record = json.loads(line)
            fen = record.get("start_fen")
            side = winning_side(fen) if fen else None
            if side is None:
                continue
            winner_name = chess.COLOR_NAMES[side]
            bot = "A" if record["a_color"] == winner_name else "B"
            points = 0.5 if record["winner"] is None else float(record["winner"] == winner_name)
            found[(fen, int(record["seed"]))][bot] = (points, int(record["plies"]))
    return found


def report(found: dict[tuple[str, int], dict[str, tuple[float, int]]]) -> list[str]:
    lines = [f"{'position':<44} {'seed':>5}  {'A converting':>14}  {'B converting':>14}"]
    for (fen, seed), sides in sorted(found.items(), key=lambda item: item[0][1]):
        cells = []
        for bot in ("A", "B"):
            points, plies = sides.get(bot, (None, None))
            cells.append("-" if points is None else f"{points:g} in {plies} plies")
        lines.append(f"{fen:<44} {seed:>5}  {cells[0]:>14}  {cells[1]:>14}")
    for bot in ("A", "B"):
        games = [sides[bot] for sides in found.values() if bot in sides]
        won = sum(points for points, _ in games)
        lines.append(f"{bot}: converted {won:g} of {len(games)}")
    both = [
        (s["A"][1], s["B"][1])
        for s in found.values()
        if s.get("A", (0,))[0] == 1 and s.get("B", (0,))[0] == 1
    ]
    if both:
        a, b = statistics.median(p for p, _ in both), statistics.median(p for _, p in both)
        faster = sum(1 for pa, pb in both if pa < pb), sum(1 for pa, pb in both if pb < pa)
        lines.append(
            f"where both converted ({len(both)}): median plies A {a:g}, B {b:g}; "
            f"A faster in {faster[0]}, B faster in {faster[1]}"
        )
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="match folders (their results.jsonl)")
    args = parser.parse_args()
    missing = [run for run in args.runs if not (run / "results.jsonl").is_file()]
    if missing:
        print(f"conversion.py: no results.jsonl in {missing[0]}", file=sys.stderr)
        return 2
    print("\n".join(report(conversions(args.runs))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
