"""Every move the mover can take on every belief row at once, as numpy arrays (no ``chess.Board``).

Why: expanding a belief by building a ``chess.Board`` per row and asking python-chess for its moves
costs Python per move; here each kind of move is generated for a whole block of rows with a handful
of array operations. The moves are exactly those of ``rbc_bot.rules.taken_moves`` as the expansion
keeps them: python-chess's pseudo-legal moves (king captures and moves into check included) with
RBC castling (rights, king and rook at home and empty squares between suffice), filtered by the
reported capture square, each with a sort key that reproduces python-chess's generation order.

Rows are the belief's layout: 64 piece codes (0 empty, 1..6 white PNBRQK, 7..12 black), the castling
bits (1 white h1, 2 white a1, 4 black h8, 8 black a8) and the raw en-passant square (-1 none).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import chess
import numpy as np

CASTLE_COL = 64
EP_COL = 65
# Move kinds in the order rbc_bot.rules.taken_moves yields them for one board (then the pass).
PIECE, PAWN_CAPTURE, SINGLE, DOUBLE, EN_PASSANT, CASTLE, PASS = range(7)
PROMOTIONS = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)  # python-chess's order
NON_PAWNS = (chess.KNIGHT, chess.BISHOP, chess.ROOK, chess.QUEEN, chess.KING)


def _attacks(piece_type: int, square: int) -> int:
    """Squares a piece reaches from ``square`` on an empty board."""
    if piece_type == chess.KNIGHT:
        return chess.BB_KNIGHT_ATTACKS[square]
    if piece_type == chess.KING:
        return chess.BB_KING_ATTACKS[square]
    reach = 0
    if piece_type in (chess.BISHOP, chess.QUEEN):
        reach |= chess.BB_DIAG_ATTACKS[square][0]
    if piece_type in (chess.ROOK, chess.QUEEN):
        reach |= chess.BB_RANK_ATTACKS[square][0] | chess.BB_FILE_ATTACKS[square][0]
    return reach


def _as_u64(bits: int) -> np.uint64:
    return np.uint64(bits)


def _build_tables() -> tuple[np.ndarray, ...]:
    """Per (piece type, from square): the targets, highest square first (python-chess's order), and
    the squares that must be empty to get there (strictly between; the target too for quiet moves)."""
    start = np.zeros((7, 64), dtype=np.int64)
    count = np.zeros((7, 64), dtype=np.int64)
    sources: list[int] = []
    types: list[int] = []
    targets: list[int] = []
    paths: list[int] = []
    between = np.zeros((7, 64, 64), dtype=np.uint64)
    reach = np.zeros((7, 64, 64), dtype=bool)
    for piece_type in NON_PAWNS:
        for square in range(64):
            start[piece_type, square] = len(targets)
            for to in reversed(list(chess.scan_forward(_attacks(piece_type, square)))):
                gap = 0 if piece_type in (chess.KNIGHT, chess.KING) else chess.between(square, to)
                sources.append(square)
                types.append(piece_type)
                targets.append(to)
                paths.append(gap | chess.BB_SQUARES[to])
                between[piece_type, square, to] = _as_u64(gap)
                reach[piece_type, square, to] = True
            count[piece_type, square] = len(targets) - start[piece_type, square]
    source, target = np.array(sources, np.int64), np.array(targets, np.int64)
    table = (source, np.array(types, np.int64), target, (63 - source) * 64 + (63 - target))
    return start, count, *table, np.array(paths, np.uint64), between, reach


# One entry per (piece type, from, to) reachable on an empty board: its from square, piece type, target,
# order within a board, and path; indexed through _START/_COUNT by (piece type, from square).
_START, _COUNT, _SOURCE, _TYPE, _TARGET, _ORDER, _PATH, _BETWEEN, _REACH = _build_tables()


@dataclass
class Moves:
    """Moves as parallel arrays: the parent row, from and to squares, the code standing on ``to``
    after the move (the promotion piece for a promotion), the code that stood there before, and the
    key that orders them as python-chess would (parent, then kind, then squares and promotion)."""

    parent: np.ndarray
    frm: np.ndarray
    to: np.ndarray
    placed: np.ndarray
    captured: np.ndarray
    key: np.ndarray

    FIELDS: ClassVar[tuple[str, ...]] = ("parent", "frm", "to", "placed", "captured", "key")

    @staticmethod
    def concat(parts: list[Moves]) -> Moves:
        if not parts:
            empty = np.zeros(0, dtype=np.int64)
            return Moves(empty, empty, empty, empty, empty, empty)
        return Moves(*(np.concatenate([getattr(p, name) for p in parts]) for name in Moves.FIELDS))

    def take(self, index: np.ndarray) -> Moves:
        return Moves(*(getattr(self, name)[index] for name in Moves.FIELDS))

    @property
    def kind(self) -> np.ndarray:
        return (self.key >> 14) & 7

    def __len__(self) -> int:
        return len(self.parent)


def _moves(
    parent: np.ndarray, frm: np.ndarray, to: np.ndarray, placed: np.ndarray, captured: np.ndarray,
    kind: int, sub: np.ndarray, promo: np.ndarray | int = 0,
) -> Moves:  # fmt: skip
    """Moves of one kind; ``sub`` orders them within a parent and kind, ``promo`` among promotions."""
    return Moves(parent, frm, to, placed, captured, (parent << 17) | (kind << 14) | (sub << 2) | promo)


def _one_move(parent: np.ndarray, frm: int, to: int, placed: int, kind: int, sub: int) -> Moves:
    """The same non-capturing move on every row of ``parent`` (a castle, an en-passant capture)."""
    n = len(parent)
    full = np.full
    return _moves(
        parent, full(n, frm), full(n, to), full(n, placed), np.zeros(n, np.int64), kind, full(n, sub)
    )


def occupancy(pieces: np.ndarray) -> np.ndarray:
    """Per row, the occupied squares as one uint64 bitboard."""
    packed = np.packbits(pieces != 0, axis=1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8")[:, 0]


def _own_pieces(pieces: np.ndarray, offset: int, types: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """(row, square) of the mover's pieces of codes ``types`` (inclusive range, mover-relative), rows
    in order and squares from high to low (python-chess scans squares in reverse)."""
    low, high = types[0] + offset, types[1] + offset
    rows, flipped = np.nonzero(((pieces >= low) & (pieces <= high))[:, ::-1])
    return rows, 63 - flipped


def _promoted(
    rows: np.ndarray, frm: np.ndarray, to: np.ndarray, offset: int, pawn: int
) -> tuple[np.ndarray, ...]:
    """Pawn moves with those onto the last rank repeated once per promotion piece (Q, R, B, N)."""
    last = (to >= 56) | (to < 8)
    times = np.where(last, 4, 1)
    rows, frm, to, last = (np.repeat(a, times) for a in (rows, frm, to, last))
    if len(rows) == 0:
        return rows, frm, to, np.zeros(0, np.int64), np.zeros(0, np.int64)
    first = np.repeat(np.cumsum(times) - times, times)
    promo = np.where(last, np.arange(len(rows)) - first, 0)
    placed = np.where(last, np.array(PROMOTIONS)[promo] + offset, pawn)
    return rows, frm, to, placed, promo


def piece_moves_quiet(pieces: np.ndarray, occ: np.ndarray, offset: int, base: int) -> Moves:
    """Knight, bishop, rook, queen and king moves onto empty squares (the path empty too)."""
    rows, squares = _own_pieces(pieces, offset, (chess.KNIGHT, chess.KING))
    types = pieces[rows, squares].astype(np.int64) - offset
    count = _COUNT[types, squares]
    cand = np.arange(int(count.sum())) + np.repeat(_START[types, squares] - (np.cumsum(count) - count), count)
    r = np.repeat(rows, count)
    ok = (np.take(occ, r) & np.take(_PATH, cand)) == 0
    r, cand = r[ok], cand[ok]
    zero = np.zeros(len(r), dtype=np.int64)
    placed = np.take(_TYPE, cand) + offset
    return _moves(
        r + base, np.take(_SOURCE, cand), np.take(_TARGET, cand), placed, zero, PIECE, np.take(_ORDER, cand)
    )


def pawn_pushes(pieces: np.ndarray, white: bool, offset: int, base: int) -> list[Moves]:
    """Single pushes (promotions included) and double pushes from the home rank, as python-chess."""
    pawn, empty = pieces == chess.PAWN + offset, pieces == 0
    single = np.zeros(pieces.shape, dtype=bool)
    double = np.zeros(pieces.shape, dtype=bool)
    if white:
        single[:, 8:] = pawn[:, :56] & empty[:, 8:]
        double[:, 24:32] = single[:, 16:24] & empty[:, 24:32]
    else:
        single[:, :56] = pawn[:, 8:] & empty[:, :56]
        double[:, 32:40] = single[:, 40:48] & empty[:, 32:40]
    up = 8 if white else -8
    out = []
    rows, flipped = np.nonzero(single[:, ::-1])
    to = 63 - flipped
    rows, frm, to, placed, promo = _promoted(rows, to - up, to, offset, chess.PAWN + offset)
    out.append(_moves(rows + base, frm, to, placed, np.zeros_like(to), SINGLE, 63 - to, promo))
    rows, flipped = np.nonzero(double[:, ::-1])
    to = 63 - flipped
    placed = np.full(len(to), chess.PAWN + offset, dtype=np.int64)
    out.append(_moves(rows + base, to - 2 * up, to, placed, np.zeros_like(to), DOUBLE, 63 - to))
    return out


def castles(pieces: np.ndarray, castling: np.ndarray, white: bool, base: int) -> Moves:
    """RBC castling: the right, king and rook at home and the squares between empty; check is
    irrelevant (rbc_bot.rules.rbc_castling_moves). Kingside first, as CASTLE_PATHS lists them."""
    king_home, offset = (chess.E1, 0) if white else (chess.E8, 6)
    king, rook = chess.KING + offset, chess.ROOK + offset
    parts = []
    for side, (rook_home, gap, to, bit) in enumerate(
        [(king_home + 3, (1, 2), king_home + 2, 1), (king_home - 4, (-1, -2, -3), king_home - 2, 2)]
    ):
        bit <<= 0 if white else 2
        ok = ((castling & bit) != 0) & (pieces[:, king_home] == king) & (pieces[:, rook_home] == rook)
        for step in gap:
            ok &= pieces[:, king_home + step] == 0
        parts.append(_one_move(np.flatnonzero(ok) + base, king_home, to, king, CASTLE, side))
    return Moves.concat(parts)


def passes(n: int, base: int) -> Moves:
    zero = np.zeros(n, dtype=np.int64)
    return _moves(np.arange(n, dtype=np.int64) + base, zero, zero, zero, zero, PASS, zero)


def quiet_moves(rows: np.ndarray, white: bool, base: int) -> Moves:
    """Every move capturing nothing, and the pass, for a block of rows (parents numbered from ``base``)."""
    pieces = rows[:, :64]
    offset = 0 if white else 6
    parts = [piece_moves_quiet(pieces, occupancy(pieces), offset, base)]
    parts += pawn_pushes(pieces, white, offset, base)
    parts.append(castles(pieces, rows[:, CASTLE_COL], white, base))
    parts.append(passes(len(rows), base))
    return Moves.concat(parts)


def capture_moves(rows: np.ndarray, white: bool, square: int, base: int) -> Moves:
    """Every move capturing on ``square``: a normal capture of the opponent's piece standing there
    (pawn captures promote), or en passant of the pawn on it (python-chess's ep rules)."""
    pieces = rows[:, :64]
    offset = 0 if white else 6
    target = pieces[:, square].astype(np.int64)
    victim = (target != 0) & ((target <= 6) != white)
    parts = []
    r, frm = _own_pieces(pieces, offset, (chess.KNIGHT, chess.KING))
    types = pieces[r, frm].astype(np.int64) - offset
    ok = victim[r] & _REACH[types, frm, square]
    ok[ok] &= (occupancy(pieces[r[ok]]) & _BETWEEN[types[ok], frm[ok], square]) == 0
    r, frm, types = r[ok], frm[ok], types[ok]
    to = np.full(len(r), square)
    parts.append(_moves(r + base, frm, to, types + offset, target[r], PIECE, (63 - frm) * 64 + (63 - square)))
    pawn = chess.PAWN + offset
    for capturer in reversed(list(chess.scan_forward(chess.BB_PAWN_ATTACKS[not white][square]))):
        r = np.flatnonzero(victim & (pieces[:, capturer] == pawn))
        frm, to = np.full(len(r), capturer), np.full(len(r), square)
        r, frm, to, placed, promo = _promoted(r, frm, to, offset, pawn)
        sub = (63 - frm) * 64 + (63 - to)
        parts.append(_moves(r + base, frm, to, placed, target[r], PAWN_CAPTURE, sub, promo))
    ep = square + (8 if white else -8)  # the en-passant square behind a pawn on ``square``
    if 0 <= ep < 64:
        hit = (rows[:, EP_COL] == ep) & (pieces[:, ep] == 0)
        rank = chess.BB_RANK_5 if white else chess.BB_RANK_4
        for capturer in reversed(list(chess.scan_forward(chess.BB_PAWN_ATTACKS[not white][ep] & rank))):
            r = np.flatnonzero(hit & (pieces[:, capturer] == pawn)) + base
            parts.append(_one_move(r, capturer, ep, pawn, EN_PASSANT, 63 - capturer))
    return Moves.concat(parts)
