"""Small sets of believed boards that tests of the sense rules share."""

from __future__ import annotations

import random

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


def rbc_boards(count: int, seed: int) -> list[chess.Board]:
    """Children of random RBC play, as a belief expansion makes them: every pseudo-legal move and the
    pass from positions of random games (moving into check allowed, king captures skipped, raw castling rights
    sometimes set on every corner, rooks or not). Move stacks are kept."""
    rng = random.Random(seed)
    children: list[chess.Board] = []
    while len(children) < 20 * count:
        board = chess.Board()
        for _ in range(rng.randrange(6, 50)):
            moves = [m for m in board.pseudo_legal_moves if board.piece_type_at(m.to_square) != chess.KING]
            if not moves:
                break
            board.push(rng.choice(moves))
        for move in [*board.pseudo_legal_moves, chess.Move.null()]:
            if board.piece_type_at(move.to_square) != chess.KING or move == chess.Move.null():
                child = board.copy()
                child.push(move)
                if rng.random() < 0.05:
                    child.castling_rights |= chess.BB_CORNERS  # raw rights, rooks or not
                children.append(child)
    return rng.sample(children, count)
