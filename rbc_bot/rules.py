"""RBC rules on top of ``reconchess.utilities``: what a player can actually do and what it reveals.

reconchess is the rules reference. Where we generate moves faster than its literal
``move_actions`` + ``revise_move`` path (the belief tracker's hot loop), tests hold the two equal.
"""

from __future__ import annotations

from collections.abc import Iterator

import chess
from reconchess.utilities import add_pawn_queen_promotion, capture_square_of_move, revise_move

CASTLE_PATHS = {
    # king move -> (rook square, squares that must be empty between king and rook)
    chess.Move(chess.E1, chess.G1): (chess.H1, chess.BB_F1 | chess.BB_G1),
    chess.Move(chess.E1, chess.C1): (chess.A1, chess.BB_B1 | chess.BB_C1 | chess.BB_D1),
    chess.Move(chess.E8, chess.G8): (chess.H8, chess.BB_F8 | chess.BB_G8),
    chess.Move(chess.E8, chess.C8): (chess.A8, chess.BB_B8 | chess.BB_C8 | chess.BB_D8),
}


def rbc_castling_moves(board: chess.Board) -> Iterator[chess.Move]:
    """Castles the side to move may take in RBC: rights and empty squares suffice (check is irrelevant)."""
    rights = board.clean_castling_rights()
    for move, (rook_square, between) in CASTLE_PATHS.items():
        if (
            board.turn == (move.from_square == chess.E1)
            and rights & chess.BB_SQUARES[rook_square]
            and not board.occupied & between
        ):
            yield move


def taken_moves(
    board: chess.Board, from_mask: int = chess.BB_ALL, to_mask: int = chess.BB_ALL
) -> Iterator[chess.Move]:
    """Every move the side to move can actually *take* (not request) in RBC, except the pass.

    That is python-chess's pseudo-legal moves (king captures and moves into check included) with its
    check-aware castling replaced by RBC castling. Any request revises into one of these or a pass.
    """
    for move in board.generate_pseudo_legal_moves(from_mask, to_mask):
        if not (
            board.kings & chess.BB_SQUARES[move.from_square] and abs(move.to_square - move.from_square) == 2
        ):
            yield move
    if from_mask & board.kings & board.occupied_co[board.turn]:
        for move in rbc_castling_moves(board):
            if chess.BB_SQUARES[move.to_square] & to_mask:
                yield move


def opponent_moves(board: chess.Board) -> list[chess.Move | None]:
    """All moves the side to move can take, ``None`` (the pass) included."""
    return [*taken_moves(board), None]


def revise(board: chess.Board, requested: chess.Move | None) -> tuple[chess.Move | None, int | None]:
    """The move taken and the capture square when ``requested`` is asked for on ``board`` (LocalGame.move)."""
    if requested is None:
        return None, None
    requested = add_pawn_queen_promotion(board, requested)
    taken = revise_move(board, requested)
    return taken, capture_square_of_move(board, taken)


def sense_window(square: int) -> list[int]:
    """The squares a sense at ``square`` reveals, in LocalGame's order (rank+1..rank-1, file-1..file+1)."""
    if not 0 <= square < 64:
        raise ValueError(f"sense square {square} is not on the board (0..63)")
    rank, file = chess.square_rank(square), chess.square_file(square)
    return [
        chess.square(f, r)
        for r in (rank + 1, rank, rank - 1)
        for f in (file - 1, file, file + 1)
        if 0 <= r < 8 and 0 <= f < 8
    ]


def inward(square: int) -> int:
    """Shift an edge square one step inward so its 3x3 window lies wholly on the board."""
    file = min(max(chess.square_file(square), 1), 6)
    rank = min(max(chess.square_rank(square), 1), 6)
    return chess.square(file, rank)
