"""How often a king capture that the believed boards promise works on the true board.

Usage:
  python benchmarks/raid_odds.py SUITE.jsonl.gz [--screen ROWS.jsonl ...]

Why: the move selector takes a king capture at once when it works on enough of the believed boards,
every board counted alike. Boards where the capture works are boards where the opponent left its king
en prise, and a strong opponent rarely does; counted alike, such boards overstate the capture's
chance. This reads a turn suite (``turn_screen.py extract``: our turns before the sense, with the true
board and a sample of the believed ones), and for every turn on which some believed board allows a
king capture prints the share of boards that allow one against whether the true board did, by share,
and the board weight (``move.blunder_board_weight``) under which the weighted shares predict as many
hits as happened. With ``--screen`` (rows of ``turn_screen.py run`` on that suite) it also sums
both sides' losses over the rows where either side's move captures the king on some believed board:
what a change of when to try a king capture did there, apart from the rows it could not change.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import screening
from turn_screen import load_suite

from rbc_bot.belief_rows import decode
from rbc_bot.engine import king_capture_moves

BUCKETS = (0.0, 0.2, 0.4, 0.6, 0.8)  # lower bounds of the share buckets printed


def raid_turns(suite: Path) -> tuple[np.ndarray, np.ndarray]:
    """For each turn where some believed board allows a king capture: that share of the boards, and
    whether the true board allowed one."""
    shares, hits = [], []
    for position in load_suite(suite):
        boards = decode(position.rows, position.truth.turn)
        open_kings = sum(1 for board in boards if king_capture_moves(board))
        if open_kings:
            shares.append(open_kings / len(boards))
            hits.append(bool(king_capture_moves(position.truth)))
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
    rises with the weight)."""
    low, high = 1e-4, 1.0
    for _ in range(60):
        middle = float(np.sqrt(low * high))
        low, high = (middle, high) if weighted(shares, middle).sum() < hits.sum() else (low, middle)
    return float(np.sqrt(low * high))


def report(suite: Path, screens: list[Path]) -> None:
    """The table and the fitted weight, printed; with ``screens``, the losses where a side raided."""
    shares, hits = raid_turns(suite)
    if not len(shares):
        print("no turn where a believed board allows a king capture")
        return
    found = f"{len(shares)} turns where some believed board allows a king capture"
    print(f"{found}; the true board did on {hits.sum()}")
    print("share of boards | turns | true board allowed it | predicted counting boards alike")
    for low in BUCKETS:
        inside = (shares >= low) & (shares < low + 0.2 if low < BUCKETS[-1] else shares <= 1.0)
        print(
            f"{low:.1f}-{low + 0.2:.1f} | {inside.sum()} | {hits[inside].sum()} | {shares[inside].sum():.1f}"
        )
    print(f"board weight that predicts the hits: {fitted_weight(shares, hits):.3f}")
    if screens:
        rows, base, candidate = raid_rows(suite, screens)
        losses = f"loss base {base:.3f}, candidate {candidate:.3f}"
        print(f"{rows} screened rows where a side tried a king capture: {losses}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--screen", type=Path, action="append", default=[], help="turn_screen.py run rows")
    args = parser.parse_args()
    screening.run_command("raid_odds.py", lambda: report(args.suite, args.screen))


if __name__ == "__main__":
    main()
