"""What our move's result will tell us: the share of the believed boards a candidate rules out.

A request is answered with the move taken and whether it captured, and the answer depends on the board:
a slide stops at the first piece in its way, a pawn's capture happens only if something is there. The
boards that would have answered otherwise leave the belief. A belief kept small is a belief the move can
be chosen on (games whose belief passed 1,000 boards scored far less against StrangeFish:
docs/strength.md), so ``move.probe_cp`` can pay a move, in centipawns, for the boards its answer is
expected to rule out.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

PROBE_UNIT = 1_000  # ``move.probe_cp`` is paid for this many believed boards ruled out


def outcome_code(taken: chess.Move | None, capture_square: int | None) -> int:
    """One integer per answer a request can get (the pass, or the move taken and its capture square)."""
    if taken is None:
        return 0
    move = (taken.from_square * 64 + taken.to_square) * 7 + (taken.promotion or 0)
    return 1 + move * 65 + (0 if capture_square is None else capture_square + 1)


def ruled_out_share(outcomes: np.ndarray, represented: np.ndarray) -> np.ndarray:
    """Per candidate (a row of ``outcomes``: each scored board's answer), the share of the believed
    boards its answer is expected to rule out, each scored board standing for ``represented`` believed
    ones: if the truth answers as a share ``p`` of the boards do, a share ``1 - p`` goes, so the expected
    share ruled out is ``1 - sum(p ** 2)`` over the answers."""
    mass = np.asarray(represented, dtype=np.float64)
    shares = np.zeros(len(outcomes))
    if outcomes.size == 0 or mass.sum() <= 0:
        return shares
    for i, row in enumerate(outcomes):
        _answers, inverse = np.unique(row, return_inverse=True)
        p = np.bincount(inverse.reshape(-1), weights=mass) / mass.sum()
        shares[i] = 1.0 - float(np.sum(p**2))
    return shares


def probe_bonuses(
    candidates: Sequence[chess.Move | None],
    outcomes: np.ndarray,
    represented: np.ndarray,
    believed: int,
    probe_cp: float,
) -> dict[chess.Move | None, float]:
    """Centipawns for each candidate: ``probe_cp`` per ``PROBE_UNIT`` of the ``believed`` boards its
    answer is expected to rule out."""
    shares = ruled_out_share(outcomes, represented)
    return {m: probe_cp * share * believed / PROBE_UNIT for m, share in zip(candidates, shares, strict=True)}
