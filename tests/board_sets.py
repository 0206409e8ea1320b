"""Small sets of believed boards that tests of the sense rules share."""

from __future__ import annotations

import chess

KNIGHT_SQUARES = [8 * rank + file for rank in (4, 5, 6) for file in (5, 6, 7)]  # f5-h7


def rare_check_boards() -> list[chess.Board]:
    """Ten boards, White to move: a black knight on one of the nine squares f5-h7, a black bishop on
    a6 (safe) or, on the first board only (knight on g6), on b4, checking our e1 king. Only a window on
    the queen's side tells the check apart, and it leaves the nine safe boards together; a window on
    g6 splits the knights and leaves the check mixed with one safe board (a tenth of the boards)."""
    boards = []
    for bishop, knight in [(chess.B4, chess.G6)] + [(chess.A6, sq) for sq in KNIGHT_SQUARES]:
        board = chess.Board(None)
        for square, piece in ((chess.E1, "K"), (chess.E8, "k"), (bishop, "b"), (knight, "n")):
            board.set_piece_at(square, chess.Piece.from_symbol(piece))
        boards.append(board)
    return boards
