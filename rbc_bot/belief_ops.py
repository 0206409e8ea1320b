"""Vectorised operations on belief rows (see :mod:`rbc_bot.belief_rows`): apply moves, expand by every
move the opponent could take, filter by a sense or by our own move's result, deduplicate, count.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence

import chess
import numpy as np

from rbc_bot.belief_rows import (
    CASTLE_BITS,
    CASTLE_COL,
    COLOR_CASTLE_BITS,
    EP_COL,
    N_CODES,
    NO_EP,
    bitboards,
    decode,
    load,
)
from rbc_bot.rules import revise, taken_moves

# Bits a move from or to a square clears (rook corners), as python-chess's push does.
_CLEAR_ON_SQUARE = np.zeros(64, dtype=np.int8)
for _sq, _bit in CASTLE_BITS.items():
    _CLEAR_ON_SQUARE[_sq] = _bit
# A king captured at home loses its side's rights too (python-chess's clean_castling_rights).
_CLEAR_ON_SQUARE[chess.E1] = 1 | 2
_CLEAR_ON_SQUARE[chess.E8] = 4 | 8


def apply_moves(
    parents: np.ndarray, from_sq: np.ndarray, to_sq: np.ndarray, promotion: np.ndarray, mover: chess.Color
) -> np.ndarray:
    """Children of ``parents`` (row i gets move i; ``from_sq < 0`` is the pass), as python-chess pushes.

    Handles captures, en passant, promotion, the castling rook, castling rights and the new ep square.
    """
    child = parents.copy()
    child[:, EP_COL] = NO_EP
    idx = np.flatnonzero(from_sq >= 0)
    if len(idx) == 0:
        return child
    f, t, promo = from_sq[idx], to_sq[idx], promotion[idx]
    offset = 0 if mover == chess.WHITE else 6
    piece = child[idx, f]
    is_pawn = piece == chess.PAWN + offset
    is_king = piece == chess.KING + offset
    # En passant: a pawn moving diagonally onto an empty square removes the pawn behind it.
    ep = is_pawn & ((f % 8) != (t % 8)) & (child[idx, t] == 0)
    if ep.any():
        victim = t[ep] + (-8 if mover == chess.WHITE else 8)
        child[idx[ep], victim] = 0
    child[idx, f] = 0
    child[idx, t] = np.where(promo > 0, promo + offset, piece)
    castle = is_king & (np.abs(t - f) == 2)
    if castle.any():
        kingside = t[castle] > f[castle]
        rook_from = np.where(kingside, f[castle] + 3, f[castle] - 4)
        rook_to = np.where(kingside, f[castle] + 1, f[castle] - 1)
        child[idx[castle], rook_from] = 0
        child[idx[castle], rook_to] = chess.ROOK + offset
    clear = _CLEAR_ON_SQUARE[f] | _CLEAR_ON_SQUARE[t] | np.where(is_king, COLOR_CASTLE_BITS[mover], 0)
    child[idx, CASTLE_COL] &= ~clear.astype(np.int8)
    double = is_pawn & (np.abs(t - f) == 16)
    child[idx[double], EP_COL] = (f[double] + t[double]) // 2
    return child


def apply_one_move(rows: np.ndarray, move: chess.Move | None, mover: chess.Color) -> np.ndarray:
    """Every row with the same ``move`` (None: the pass) applied."""
    n = len(rows)
    if move is None:
        return apply_moves(rows, np.full(n, -1), np.full(n, -1), np.zeros(n, np.int8), mover)
    return apply_moves(
        rows,
        np.full(n, move.from_square),
        np.full(n, move.to_square),
        np.full(n, move.promotion or 0, dtype=np.int8),
        mover,
    )


def unique_rows(rows: np.ndarray) -> np.ndarray:
    """Rows with duplicates removed (first occurrence kept, order preserved)."""
    if len(rows) < 2:
        return rows
    view = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1])))[:, 0]
    _, first = np.unique(view, return_index=True)
    return rows[np.sort(first)]


_Moves = tuple[list[int], list[int], list[int], list[int]]  # parent row, from, to, promotion


def _add_quiet_moves(board: chess.Board, i: int, ep: int, mover: chess.Color, out: _Moves) -> None:
    """Row ``i``'s moves that capture nothing, then the pass."""
    parents, froms, tos, promos = out
    to_mask = ~board.occupied_co[not mover] & chess.BB_ALL
    for move in taken_moves(board, chess.BB_ALL, to_mask):
        is_pawn = board.pawns & chess.BB_SQUARES[move.from_square]
        if move.to_square == ep and is_pawn and (move.to_square - move.from_square) % 8:
            continue  # an en-passant capture would have been reported
        parents.append(i)
        froms.append(move.from_square)
        tos.append(move.to_square)
        promos.append(move.promotion or 0)
    parents.append(i)
    froms.append(-1)
    tos.append(-1)
    promos.append(0)


def _add_captures(board: chess.Board, i: int, ep: int, mover: chess.Color, square: int, out: _Moves) -> None:
    """Row ``i``'s moves that capture on ``square`` (normally, or en passant of the pawn on it)."""
    parents, froms, tos, promos = out
    to_mask = chess.BB_SQUARES[square] & board.occupied_co[not mover]
    if ep >= 0 and ep + (-8 if mover == chess.WHITE else 8) == square:
        to_mask |= chess.BB_SQUARES[ep]
    for move in taken_moves(board, chess.BB_ALL, to_mask):
        if move.to_square != square and not (
            board.pawns & chess.BB_SQUARES[move.from_square] and (move.to_square - move.from_square) % 8
        ):
            continue  # a push onto the ep square captures nothing
        parents.append(i)
        froms.append(move.from_square)
        tos.append(move.to_square)
        promos.append(move.promotion or 0)


def expand(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> np.ndarray:
    """Every child of every row after one move of ``mover`` that fits the reported capture square.

    ``capture_square`` None keeps quiet moves and the pass; a square keeps the moves capturing there
    (a normal capture of the piece on it, or en passant of the pawn on it).
    """
    if len(rows) == 0:
        return rows
    out: _Moves = ([], [], [], [])
    board = chess.Board(None)
    gc_was_enabled = gc.isenabled()
    # The loop creates no reference cycles, so the collector would only rescan the growing lists.
    gc.disable()
    try:
        for i, (bbs, castling, ep) in enumerate(
            zip(bitboards(rows), rows[:, CASTLE_COL].tolist(), rows[:, EP_COL].tolist(), strict=False)
        ):
            load(board, bbs, castling, ep, mover)
            if capture_square is None:
                _add_quiet_moves(board, i, ep, mover, out)
            else:
                _add_captures(board, i, ep, mover, capture_square, out)
    finally:
        if gc_was_enabled:
            gc.enable()
    parents, froms, tos, promos = out
    if not parents:
        return rows[:0]
    children = apply_moves(
        rows[np.asarray(parents, dtype=np.intp)],
        np.asarray(froms, dtype=np.int64),
        np.asarray(tos, dtype=np.int64),
        np.asarray(promos, dtype=np.int8),
        mover,
    )
    return unique_rows(children)


def filter_sense(rows: np.ndarray, squares: Sequence[int], codes: Sequence[int]) -> np.ndarray:
    """Rows that show exactly ``codes`` on ``squares``."""
    if not squares or len(rows) == 0:
        return rows
    return rows[sense_fits(rows, squares, codes)]


def sense_fits(rows: np.ndarray, squares: Sequence[int], codes: Sequence[int]) -> np.ndarray:
    """Which rows show exactly ``codes`` on ``squares`` (a boolean mask)."""
    return (rows[:, list(squares)] == np.asarray(codes, dtype=np.int8)).all(axis=1)


def _request_columns(requested: chess.Move) -> list[int]:
    """The columns that decide what ``requested`` revises into: the squares it passes (and for a
    castle, the rook's path), the castling bits and the en-passant square."""
    squares = {requested.from_square, requested.to_square}
    squares |= set(chess.SquareSet(chess.between(requested.from_square, requested.to_square)))
    if (
        requested.from_square in (chess.E1, chess.E8)
        and abs(requested.to_square - requested.from_square) == 2
    ):
        rook = requested.from_square + (3 if requested.to_square > requested.from_square else -4)
        squares |= {rook, *chess.SquareSet(chess.between(requested.from_square, rook))}
    return [*sorted(squares), CASTLE_COL, EP_COL]


MoveResult = tuple[chess.Move | None, chess.Move | None, int | None]
"""Our move's result as reported: the request, the move taken (None: none) and the capture square."""


def filter_own_move(
    rows: np.ndarray,
    us: chess.Color,
    requested: chess.Move | None,
    taken: chess.Move | None,
    capture_square: int | None,
) -> np.ndarray:
    """Rows on which ``requested`` revises into ``taken`` with ``capture_square``, with the move applied."""
    fits = own_move_fits(rows, us, (requested, taken, capture_square))
    if len(rows) == 0:
        return rows
    return apply_one_move(rows[fits], taken, us)


def own_move_fits(rows: np.ndarray, us: chess.Color, result: MoveResult) -> np.ndarray:
    """Which rows our request revises into the move taken and the capture square on (``result``; a
    boolean mask).

    The outcome of a request depends only on the squares it passes and the ep/castling columns, so
    rows are grouped by those and reconchess's own ``revise_move`` decides once per group.
    """
    requested, taken, capture_square = result
    if requested is None and (taken is not None or capture_square is not None):
        raise ValueError(f"a pass cannot be taken as {taken} with capture square {capture_square}")
    if requested is None or len(rows) == 0:
        return np.ones(len(rows), dtype=bool)
    columns = _request_columns(requested)
    _groups, first, inverse = np.unique(rows[:, columns], axis=0, return_index=True, return_inverse=True)
    sample_boards = decode(rows[first], us)
    fits = [revise(board, requested) == (taken, capture_square) for board in sample_boards]
    return np.array(fits, dtype=bool)[inverse.reshape(-1)]


def partition_counts(rows: np.ndarray) -> np.ndarray:
    """(64, 13) counts: how many rows show each piece code on each square."""
    pieces = rows[:, :64]  # one small bincount per column, not one over an N x 64 intp copy: faster
    return np.stack([np.bincount(pieces[:, square], minlength=N_CODES) for square in range(64)])
