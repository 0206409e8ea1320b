"""Belief expansion in bulk: ``expand`` with the contract of ``rbc_bot.belief.expand``, ~3x faster.

Why: the expansion is the belief's costliest step (every opponent move on every live board). The moves
come from :mod:`rbc_bot.movegen` as arrays; duplicates are found on Zobrist keys of the children,
computed from the parent's key and the move, before any child row is built, so only distinct children
are ever written. Two independent 64-bit keys are kept: a collision of the first is detected by the
second and falls back to comparing whole rows, so the result stays exact (two distinct boards would
have to collide on both keys, about 2^-128 per pair, to be merged).

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
    Moves,
    capture_moves,
    quiet_moves,
)

BLOCK = 8_192  # parent rows per generation block: bounds the temporaries (~100 candidates a row)
_RNG = np.random.default_rng(0x5EED_2B0A)
_ZOBRIST = _RNG.integers(0, 2**64, size=(2, 64, 13), dtype=np.uint64)
_ZOBRIST[:, :, 0] = 0  # an empty square adds nothing: a move's key changes on the squares it touches
_Z_CASTLE = _RNG.integers(0, 2**64, size=(2, 16), dtype=np.uint64)
_Z_EP = _RNG.integers(0, 2**64, size=(2, 65), dtype=np.uint64)  # index: square + 1
# Castling bits a move from or to a square clears (rook corners; a king's home clears both of its side).
_CLEAR = np.zeros(64, dtype=np.int64)
for _square, _bits in {chess.H1: 1, chess.A1: 2, chess.H8: 4, chess.A8: 8, chess.E1: 3, chess.E8: 12}.items():
    _CLEAR[_square] = _bits


def row_keys(rows: np.ndarray) -> np.ndarray:
    """(2, n) Zobrist keys of whole rows (pieces, castling bits, en-passant square)."""
    pieces = rows[:, :64].astype(np.intp)
    keys = np.empty((2, len(rows)), dtype=np.uint64)
    for k in range(2):
        keys[k] = np.bitwise_xor.reduce(_ZOBRIST[k, np.arange(64), pieces], axis=1)
        keys[k] ^= _Z_CASTLE[k, rows[:, CASTLE_COL]] ^ _Z_EP[k, rows[:, EP_COL].astype(np.intp) + 1]
    return keys


def _after(rows: np.ndarray, moves: Moves, white: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per move: the castling bits and en-passant square after it, and the extra square it changes
    (the castling rook's corner and landing square, the pawn taken en passant; -1 none)."""
    castling = rows[moves.parent, CASTLE_COL].astype(np.int64)
    king = moves.placed == (chess.KING if white else chess.KING + 6)
    moved = moves.kind != PASS
    clear = np.where(moved, _CLEAR[moves.frm] | _CLEAR[moves.to], 0) | np.where(king, 3 if white else 12, 0)
    ep = np.where(moves.kind == DOUBLE, (moves.frm + moves.to) // 2, -1)
    return castling & ~clear, ep, moved


def child_keys(rows: np.ndarray, parent_keys: np.ndarray, moves: Moves, white: bool) -> np.ndarray:
    """(2, n) Zobrist keys of the children, from the parents' keys and what each move changes."""
    castling, ep, moved = _after(rows, moves, white)
    old_castle = rows[moves.parent, CASTLE_COL].astype(np.intp)
    old_ep = rows[moves.parent, EP_COL].astype(np.intp) + 1
    mover_piece = np.where(moved, rows[moves.parent, moves.frm], 0)
    keys = np.empty((2, len(moves)), dtype=np.uint64)
    castle = np.flatnonzero(moves.kind == CASTLE)
    passant = np.flatnonzero(moves.kind == EN_PASSANT)
    rook = chess.ROOK if white else chess.ROOK + 6
    for k in range(2):
        z = _ZOBRIST[k]
        key = parent_keys[k, moves.parent] ^ z[moves.frm, mover_piece]
        key ^= z[moves.to, moves.captured] ^ z[moves.to, moves.placed]
        key ^= _Z_CASTLE[k, old_castle] ^ _Z_CASTLE[k, castling] ^ _Z_EP[k, old_ep] ^ _Z_EP[k, ep + 1]
        if len(castle):
            kingside = moves.to[castle] > moves.frm[castle]
            key[castle] ^= z[np.where(kingside, moves.frm[castle] + 3, moves.frm[castle] - 4), rook]
            key[castle] ^= z[np.where(kingside, moves.frm[castle] + 1, moves.frm[castle] - 1), rook]
        if len(passant):
            victim = moves.to[passant] + (-8 if white else 8)
            key[passant] ^= z[victim, rows[moves.parent[passant], victim]]
        keys[k] = key
    return keys


def build_children(rows: np.ndarray, moves: Moves, white: bool) -> np.ndarray:
    """The child rows of ``moves`` (as python-chess's push leaves them, like belief.apply_moves)."""
    castling, ep, moved = _after(rows, moves, white)
    child = rows[moves.parent]
    child[:, CASTLE_COL] = castling
    child[:, EP_COL] = ep
    i = np.flatnonzero(moved)
    child[i, moves.frm[i]] = 0
    child[i, moves.to[i]] = moves.placed[i]
    castle = np.flatnonzero(moves.kind == CASTLE)
    if len(castle):
        kingside = moves.to[castle] > moves.frm[castle]
        child[castle, np.where(kingside, moves.frm[castle] + 3, moves.frm[castle] - 4)] = 0
        rook = chess.ROOK if white else chess.ROOK + 6
        child[castle, np.where(kingside, moves.frm[castle] + 1, moves.frm[castle] - 1)] = rook
    passant = np.flatnonzero(moves.kind == EN_PASSANT)
    if len(passant):
        child[passant, moves.to[passant] + (-8 if white else 8)] = 0
    return child


def _take(moves: Moves, index: np.ndarray) -> Moves:
    return Moves(*(getattr(moves, name)[index] for name in Moves.__dataclass_fields__))


def _first_of_each(keys: np.ndarray) -> np.ndarray | None:
    """Indices (ascending) of the first of each group of equal keys; None when the second key
    disagrees inside a group of the first (a collision: the caller compares rows instead)."""
    order = np.argsort(keys[0], kind="stable")
    first_sorted = keys[0][order]
    starts = np.ones(len(order), dtype=bool)
    starts[1:] = first_sorted[1:] != first_sorted[:-1]
    second = keys[1][order]
    if (second[1:] != second[:-1])[~starts[1:]].any():
        return None
    keep = np.zeros(len(order), dtype=bool)
    keep[order[starts]] = True
    return np.flatnonzero(keep)


def _unique_exact(rows: np.ndarray) -> np.ndarray:
    """First occurrences by whole-row comparison (belief.unique_rows): the collision fallback."""
    view = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1])))[:, 0]
    _, first = np.unique(view, return_index=True)
    return rows[np.sort(first)]


def generate(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> Moves:
    """Every move ``expand`` keeps, in python-chess's order per parent, parents in order."""
    white = mover == chess.WHITE
    parts = []
    for start in range(0, len(rows), BLOCK):
        block = rows[start : start + BLOCK]
        if capture_square is None:
            parts.append(quiet_moves(block, white, start))
        else:
            parts.append(capture_moves(block, white, capture_square, start))
    moves = Moves.concat(parts)
    return _take(moves, np.argsort(moves.key, kind="stable"))


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
    keep = _first_of_each(child_keys(rows, row_keys(rows), moves, white))
    if keep is None:
        return _unique_exact(build_children(rows, moves, white))
    return build_children(rows, _take(moves, keep), white)
