"""Belief expansion in bulk: ``expand`` with the contract and output of ``rbc_bot.belief.expand``.

Why: the expansion is the belief's costliest step (every opponent move on every live board). The moves
come from :mod:`rbc_bot.movegen` as arrays; duplicates are found on Zobrist keys of the children,
computed from the parent's key and the move, before any child row is built, so only distinct children
are ever written. Each key is 128 bits (two independent 64-bit halves): children are grouped on the
first half, and a group whose second halves disagree (a collision) sends the call to whole-row
comparison, so two distinct boards are merged only if they collide on both halves (about 2^-128 a
pair).

The output is the very array ``rbc_bot.belief.expand`` returns, order included: children in
python-chess's generation order per parent, parents in order, the pass last, the first occurrence
of each distinct child kept.
"""

from __future__ import annotations

import chess
import numpy as np

from rbc_bot.movegen import (
    CASTLE,
    CASTLE_COL,
    DOUBLE,
    EN_PASSANT,
    EP_COL,
    PASS,
    PAWN_CAPTURE,
    Moves,
    capture_moves,
    quiet_moves,
)

ROW = 66
BLOCK = 8_192  # parent rows per generation block: bounds the temporaries (~100 candidates a row)
_RNG = np.random.default_rng(0x5EED_2B0A)
# Keys as pairs of uint64 (last axis): one gather fetches both halves.
_Z = _RNG.integers(0, 2**64, size=(64, 13, 2), dtype=np.uint64)
_Z[:, 0] = 0  # an empty square adds nothing: a move's key changes only on the squares it touches
_Z_FLAT = _Z.reshape(64 * 13, 2)  # one flat index (square * 13 + code) gathers faster than two
_BY_CODE = _Z.transpose(1, 0, 2)  # (code, square, 2)
# (code, from, to): the key change of a piece of that code moving from one square to the other.
_Z_STEP = (_BY_CODE[:, :, None, :] ^ _BY_CODE[:, None, :, :]).reshape(13 * 64 * 64, 2)
_Z_CASTLE = _RNG.integers(0, 2**64, size=(16, 2), dtype=np.uint64)
_Z_EP = _RNG.integers(0, 2**64, size=(65, 2), dtype=np.uint64)  # index: en-passant square + 1
# Castling bits a move from or to a square clears (rook corners; a king's home clears both of its side).
_CLEAR = np.zeros(64, dtype=np.int64)
for _square, _bits in {chess.H1: 1, chess.A1: 2, chess.H8: 4, chess.A8: 8, chess.E1: 3, chess.E8: 12}.items():
    _CLEAR[_square] = _bits


def _take(table: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``table[index]`` along the first axis: ``np.take`` gathers whole rows ~10x faster than fancy
    indexing does on 2-D arrays."""
    return np.take(table, index, axis=0)


def row_keys(rows: np.ndarray) -> np.ndarray:
    """(n, 2) Zobrist keys of whole rows (pieces, castling bits, en-passant square)."""
    keys = _take(_Z_CASTLE, rows[:, CASTLE_COL]) ^ _take(_Z_EP, rows[:, EP_COL].astype(np.intp) + 1)
    for square in range(64):  # one small gather per square: no n x 64 x 2 temporary
        keys ^= _take(_Z[square], rows[:, square])
    return keys


def _castling_after(old: np.ndarray, moves: Moves, kind: np.ndarray, white: bool) -> np.ndarray:
    """Per move, the castling bits after it (``old``: the parent's bits, per move). Only moves whose
    parent has bits left are looked at: in most middlegames that is none."""
    new = old.copy()
    i = np.flatnonzero(old)
    frm, to = np.take(moves.frm, i), np.take(moves.to, i)
    king = np.take(moves.placed, i) == (chess.KING if white else chess.KING + 6)
    moved = np.take(kind, i) != PASS
    clear = np.where(moved, _CLEAR[frm] | _CLEAR[to], 0) | np.where(king, 3 if white else 12, 0)
    new[i] &= ~clear
    return new


def _rook_squares(moves: Moves, castle: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Where the castling rook stands before and after the castles ``castle`` (indices of moves)."""
    frm = moves.frm[castle]
    kingside = moves.to[castle] > frm
    return np.where(kingside, frm + 3, frm - 4), np.where(kingside, frm + 1, frm - 1)


def _leaving(moves: Moves, kind: np.ndarray, white: bool) -> np.ndarray:
    """The code that leaves the from square: the pawn for every pawn move (promotions included), else
    the piece that lands (0 for the pass, which moves nothing)."""
    pawn_move = (kind >= PAWN_CAPTURE) & (kind <= EN_PASSANT)
    return np.where(pawn_move, chess.PAWN if white else chess.PAWN + 6, moves.placed)


def child_keys(rows: np.ndarray, moves: Moves, white: bool) -> np.ndarray:
    """(n, 2) Zobrist keys of the children, from the parents' keys and what each move changes.

    Most moves change two squares and nothing else: one gather of the parent's key (en passant
    already cleared) and one of the piece's step; the rarer changes are applied to their moves only."""
    kind, frm, to, placed = moves.kind, moves.frm, moves.to, moves.placed
    parent_keys = row_keys(rows) ^ _take(_Z_EP, rows[:, EP_COL].astype(np.intp) + 1) ^ _Z_EP[0]
    keys = _take(parent_keys, moves.parent)
    leaving = _leaving(moves, kind, white)
    keys ^= _take(_Z_STEP, (leaving * 64 + frm) * 64 + to)
    i = np.flatnonzero(placed != leaving)  # promotions: another piece lands
    keys[i] ^= _take(_Z_FLAT, to[i] * 13 + leaving[i]) ^ _take(_Z_FLAT, to[i] * 13 + placed[i])
    i = np.flatnonzero(moves.captured)
    keys[i] ^= _take(_Z_FLAT, to[i] * 13 + moves.captured[i])
    old = rows[moves.parent, CASTLE_COL].astype(np.int64)
    new = _castling_after(old, moves, kind, white)
    i = np.flatnonzero(new != old)
    keys[i] ^= _take(_Z_CASTLE, old[i]) ^ _take(_Z_CASTLE, new[i])
    i = np.flatnonzero(kind == DOUBLE)
    keys[i] ^= _Z_EP[0] ^ _take(_Z_EP, (frm[i] + to[i]) // 2 + 1)
    i = np.flatnonzero(kind == CASTLE)
    rook = chess.ROOK if white else chess.ROOK + 6
    rook_from, rook_to = _rook_squares(moves, i)
    keys[i] ^= _take(_Z_FLAT, rook_from * 13 + rook) ^ _take(_Z_FLAT, rook_to * 13 + rook)
    i = np.flatnonzero(kind == EN_PASSANT)
    victim = to[i] + (-8 if white else 8)
    keys[i] ^= _take(_Z_FLAT, victim * 13 + rows[moves.parent[i], victim])
    return keys


def build_children(rows: np.ndarray, moves: Moves, white: bool) -> np.ndarray:
    """The child rows of ``moves``, as python-chess's push leaves them (like belief.apply_moves)."""
    kind = moves.kind
    child = _take(rows, moves.parent)
    child[:, CASTLE_COL] = _castling_after(child[:, CASTLE_COL].astype(np.int64), moves, kind, white)
    child[:, EP_COL] = np.where(kind == DOUBLE, (moves.frm + moves.to) // 2, -1)
    i = np.flatnonzero(kind != PASS)
    flat = child.reshape(-1)  # 1-D scatters: faster than (row, column) pairs
    flat[i * ROW + np.take(moves.frm, i)] = 0
    flat[i * ROW + np.take(moves.to, i)] = np.take(moves.placed, i)
    castle = np.flatnonzero(kind == CASTLE)
    rook_from, rook_to = _rook_squares(moves, castle)
    child[castle, rook_from] = 0
    child[castle, rook_to] = chess.ROOK if white else chess.ROOK + 6
    passant = np.flatnonzero(kind == EN_PASSANT)
    child[passant, moves.to[passant] + (-8 if white else 8)] = 0
    return child


def first_of_each(keys: np.ndarray) -> np.ndarray | None:
    """Indices (ascending) of the first of each group of equal keys ((n, 2) halves); None when the
    second halves disagree inside a group of the first (a collision: compare whole rows instead)."""
    order = np.argsort(keys[:, 0])
    ordered = _take(keys, order)
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = ordered[1:, 0] != ordered[:-1, 0]
    if (ordered[1:, 1] != ordered[:-1, 1])[~starts[1:]].any():
        return None
    return np.sort(np.minimum.reduceat(order, np.flatnonzero(starts)))


def unique_exact(rows: np.ndarray) -> np.ndarray:
    """First occurrences by whole-row comparison (as belief.unique_rows): the collision fallback."""
    view = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1])))[:, 0]
    _, first = np.unique(view, return_index=True)
    return rows[np.sort(first)]


def generate(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> Moves:
    """Every move ``expand`` keeps, by blocks of parents (not yet in python-chess's order)."""
    white = mover == chess.WHITE
    parts = []
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        if capture_square is None:
            parts.append(quiet_moves(block, white, start))
        else:
            parts.append(capture_moves(block, white, capture_square, start))
    return Moves.concat(parts)


def expand(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> np.ndarray:
    """Every distinct child of every row after one move of ``mover`` that fits the reported capture
    square: ``rbc_bot.belief.expand``'s contract and output, computed in bulk.

    ``capture_square`` None keeps quiet moves and the pass; a square keeps the moves capturing there
    (a normal capture of the piece on it, or en passant of the pawn on it).
    """
    if len(rows) == 0:
        return rows
    white = mover == chess.WHITE
    moves = generate(rows, mover, capture_square)
    if len(moves) == 0:
        return rows[:0]
    order = np.argsort(moves.key, kind="stable")  # python-chess's order: the first occurrence is its
    keep = first_of_each(_take(child_keys(rows, moves, white), order))
    if keep is None:
        return unique_exact(build_children(rows, moves.take(order), white))
    return build_children(rows, moves.take(order[keep]), white)
