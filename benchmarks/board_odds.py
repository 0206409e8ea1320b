"""How likely the believed boards with some feature are to be the true one, against counting them alike.

Usage:
  python benchmarks/board_odds.py SUITE.jsonl.gz [--feature king-en-prise] [--screen ROWS.jsonl ...]

Why: the bot counts every believed board alike, but the opponent chose its moves: a strong one rarely
leaves its king en prise or hangs a piece, and checks when it can. This reads a turn suite
(``turn_screen.py extract``: our turns before the sense, with the true board and a sample of the
believed ones) and, for every turn on which some believed board has the feature, prints the share of
boards that have it against whether the true board did, by share, and the board weight under which
the weighted shares predict as many true boards with it as happened (for ``king-en-prise``, the
``move.blunder_board_weight`` that makes a king capture's share honest). The features:
``king-en-prise`` (we can capture the enemy king), ``our-king-attacked``, ``our-queen-attacked``,
``piece-hangs`` (we can win
an enemy piece: it is undefended or a cheaper piece of ours attacks it). With ``--screen`` (rows of
``turn_screen.py run`` on that suite) it also sums both sides' losses over the rows where either
side's move captures the king on some believed board: what a change of when to try a king capture
did there, apart from the rows it could not change.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import partial
from pathlib import Path

import chess
import numpy as np
import screening
from turn_screen import load_suite

from rbc_bot.belief_rows import decode
from rbc_bot.board_sample import PIECE_VALUES, our_king_attacked, our_queen_attacked
from rbc_bot.engine import king_capture_moves

BUCKETS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8)  # lower bounds of the share buckets printed


def piece_hangs(board: chess.Board) -> bool:
    """Whether the side to move can win an enemy piece other than the king: one it attacks that is
    undefended, or attacked by a cheaper piece."""
    for square, piece in board.piece_map().items():
        if piece.color == board.turn or piece.piece_type == chess.KING:
            continue
        attackers = board.attackers(board.turn, square)
        if not attackers:
            continue
        cheapest = min(PIECE_VALUES[board.piece_type_at(a) or chess.KING] for a in attackers)
        if not board.attackers(not board.turn, square) or cheapest < PIECE_VALUES[piece.piece_type]:
            return True
    return False


FEATURES: dict[str, Callable[[chess.Board], bool]] = {
    "king-en-prise": lambda board: bool(king_capture_moves(board)),
    "our-king-attacked": our_king_attacked,
    "our-queen-attacked": our_queen_attacked,
    "piece-hangs": piece_hangs,
}


def feature_turns(
    suite: Path, feature: str = "king-en-prise", min_believed: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """For each turn where some believed board has ``feature`` (and the belief held at least
    ``min_believed`` boards): that share of the boards, and whether the true board had it."""
    has = FEATURES[feature]
    shares, hits = [], []
    for position in load_suite(suite):
        if position.believed < min_believed:
            continue
        boards = decode(position.rows, position.truth.turn)
        with_it = sum(1 for board in boards if has(board))
        if with_it:
            shares.append(with_it / len(boards))
            hits.append(has(position.truth))
    return np.array(shares), np.array(hits, dtype=bool)


def raid_rows(suite: Path, screens: list[Path]) -> tuple[int, float, float]:
    """How many screened rows saw either side try a king capture, and each side's summed loss there."""
    positions = {(p.game, p.turn): p for p in load_suite(suite)}
    rows, base, candidate = 0, 0.0, 0.0
    for screen in screens:
        for row in map(json.loads, screen.read_text().splitlines()):
            position = positions[(row["game"], row["turn"])]
            boards = decode(position.rows, position.truth.turn)
            captures = {move.uci() for board in boards for move in king_capture_moves(board)}
            if row["base"] in captures or row["candidate"] in captures:
                rows, base, candidate = rows + 1, base + row["base_loss"], candidate + row["candidate_loss"]
    return rows, base, candidate


def weighted(shares: np.ndarray, weight: float) -> np.ndarray:
    """The shares with each board where the king is en prise weighing ``weight``, the others 1."""
    return weight * shares / (weight * shares + (1.0 - shares))


def fitted_weight(shares: np.ndarray, hits: np.ndarray) -> float:
    """The weight under which the weighted shares add up to the hits (bisection on log scale: the sum
    rises with the weight; above 1 when the feature's boards are likelier than counted)."""
    low, high = 1e-4, 1e4
    for _ in range(60):
        middle = float(np.sqrt(low * high))
        low, high = (middle, high) if weighted(shares, middle).sum() < hits.sum() else (low, middle)
    return float(np.sqrt(low * high))


def report(suite: Path, feature: str, screens: list[Path], min_believed: int = 0) -> None:
    """The table and the fitted weight, printed; with ``screens``, the losses where a side raided."""
    shares, hits = feature_turns(suite, feature, min_believed)
    if not len(shares):
        print(f"no turn where a believed board has {feature}")
    else:
        table(shares, hits, feature)
    if screens:
        rows, base, candidate = raid_rows(suite, screens)
        losses = f"loss base {base:.3f}, candidate {candidate:.3f}"
        print(f"{rows} screened rows where a side tried a king capture: {losses}")


def table(shares: np.ndarray, hits: np.ndarray, feature: str) -> None:
    """The turns by share, the true boards with the feature against the count's prediction, the fit."""
    print(
        f"{len(shares)} turns where some believed board has {feature}; the true board had it on", hits.sum()
    )
    print("share of boards | turns | true board had it | predicted counting boards alike")
    for low, high in zip(BUCKETS, (*BUCKETS[1:], 1.0), strict=True):
        inside = (shares >= low) & ((shares < high) | (high == 1.0))  # the last bucket holds 1.0
        predicted = shares[inside].sum()
        print(f"{low:.2f}-{high:.2f} | {inside.sum()} | {hits[inside].sum()} | {predicted:.1f}")
    print(f"board weight that predicts the hits: {fitted_weight(shares, hits):.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--feature", choices=FEATURES, default="king-en-prise")
    parser.add_argument("--screen", type=Path, action="append", default=[], help="turn_screen.py run rows")
    parser.add_argument("--min-believed", type=int, default=0, help="only turns whose belief held this many")
    args = parser.parse_args()
    run = partial(report, args.suite, args.feature, args.screen, args.min_believed)
    screening.run_command("board_odds.py", run)


if __name__ == "__main__":
    main()
