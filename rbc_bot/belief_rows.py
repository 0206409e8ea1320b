"""The belief's row format: one board as 66 int8 values, and its encode/decode to ``chess.Board``.

One row per board: 64 piece codes (0 empty, 1..6 white PNBRQK, 7..12 black pnbrqk), then the castling
rights as 4 bits (1 = white h1, 2 = white a1, 4 = black h8, 8 = black a8), then the en-passant square
(-1 for none; python-chess's raw ``ep_square``, set after every double push). Rows keep filtering,
deduplication and partition counts in numpy; ``chess.Board`` objects are built only where move
generation or the engine needs them.
"""

from __future__ import annotations

import chess
import numpy as np

ROW = 66
CASTLE_COL = 64
EP_COL = 65
NO_EP = -1
N_CODES = 13
CASTLE_BITS = {chess.H1: 1, chess.A1: 2, chess.H8: 4, chess.A8: 8}
COLOR_CASTLE_BITS = {chess.WHITE: 1 | 2, chess.BLACK: 4 | 8}

_BITBOARD_CHUNK = 20_000  # rows one-hot encoded at a time: bounds the (n, 64, 12) temporary to ~15 MB


def piece_code(piece: chess.Piece | None) -> int:
    """0 for an empty square, 1..6 for white P N B R Q K, 7..12 for black."""
    if piece is None:
        return 0
    return piece.piece_type + (0 if piece.color == chess.WHITE else 6)


def code_piece(code: int) -> chess.Piece | None:
    """The inverse of :func:`piece_code`."""
    if code == 0:
        return None
    return chess.Piece((code - 1) % 6 + 1, chess.WHITE if code <= 6 else chess.BLACK)


def encode(board: chess.Board) -> np.ndarray:
    """One board as a row (piece codes, castling bits, raw en-passant square)."""
    row = np.zeros(ROW, dtype=np.int8)
    for square, piece in board.piece_map().items():
        row[square] = piece_code(piece)
    rights = board.clean_castling_rights()
    row[CASTLE_COL] = sum(bit for sq, bit in CASTLE_BITS.items() if rights & chess.BB_SQUARES[sq])
    row[EP_COL] = NO_EP if board.ep_square is None else board.ep_square
    return row


def bitboards(rows: np.ndarray) -> list[list[int]]:
    """Per row, the 12 piece bitboards (white P..K, black p..k) as Python ints."""
    out: list[list[int]] = []
    for start in range(0, len(rows), _BITBOARD_CHUNK):
        pieces = rows[start : start + _BITBOARD_CHUNK, :64]
        onehot = pieces[:, :, None] == np.arange(1, N_CODES, dtype=np.int8)  # (n, 64, 12)
        packed = np.packbits(onehot, axis=1, bitorder="little")  # (n, 8, 12)
        words = np.ascontiguousarray(packed.transpose(0, 2, 1)).view("<u8")[:, :, 0]
        out.extend(words.tolist())
    return out


def castling_bb(bits: int) -> int:
    """The rook-corner bitboard of a row's castling bits."""
    return sum(chess.BB_SQUARES[sq] for sq, bit in CASTLE_BITS.items() if bits & bit)


def load(board: chess.Board, bbs: list[int], castling: int, ep: int, turn: chess.Color) -> None:
    """Overwrite ``board`` in place with a row's contents. In place, with no allocation, because the
    expansion calls it once per parent board."""
    wp, wn, wb, wr, wq, wk, bp, bn, bb, br, bq, bk = bbs
    board.pawns, board.knights, board.bishops = wp | bp, wn | bn, wb | bb
    board.rooks, board.queens, board.kings = wr | br, wq | bq, wk | bk
    white, black = wp | wn | wb | wr | wq | wk, bp | bn | bb | br | bq | bk
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.promoted = 0
    board.turn = turn
    board.castling_rights = castling_bb(castling)
    board.ep_square = None if ep < 0 else ep


def decode(rows: np.ndarray, turn: chess.Color, fullmove: int = 1) -> list[chess.Board]:
    """Rows as independent ``chess.Board`` objects with ``turn`` to move and no move stack."""
    boards = []
    for bbs, castling, ep in zip(
        bitboards(rows), rows[:, CASTLE_COL].tolist(), rows[:, EP_COL].tolist(), strict=True
    ):
        board = chess.Board(None)
        load(board, bbs, castling, ep, turn)
        board.fullmove_number = fullmove
        boards.append(board)
    return boards


def row_in(row: np.ndarray, rows: np.ndarray) -> bool:
    """Whether ``row`` is one of ``rows``."""
    return bool(len(rows)) and bool((rows == row).all(axis=1).any())
