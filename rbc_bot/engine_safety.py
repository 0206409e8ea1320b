"""What Stockfish must never be fed, and how positions it can't take are scored without it.

Stockfish 15.1 dies with SIGSEGV when the side to move can capture the king, when a king is missing, and
on castling rights without rooks -- all common in RBC belief boards -- and python-chess can block forever
on a move history whose root is illegal. So every board is sanitised by :func:`engine_safe_board` and
sent as a bare FEN (:func:`safe_fen`); the rest are scored by :func:`fallback_score` (a won or lost
king, else material), which is also the scoring of a game whose engine can't be kept alive.
"""

from __future__ import annotations

import chess

KING_CAPTURE_SCORE = 30_000
"""Side to move can capture the enemy king (a won RBC game), in centipawns from the side to move."""

PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}


def can_capture_king(board: chess.Board) -> bool:
    """True when the side to move attacks the enemy king (it wins by taking it in RBC)."""
    king = board.king(not board.turn)
    return king is not None and board.is_attacked_by(board.turn, king)


def king_capture_moves(board: chess.Board) -> list[chess.Move]:
    """Every move of the side to move that captures the enemy king (pawns promote to a queen)."""
    king = board.king(not board.turn)
    if king is None:
        return []
    moves = []
    back_rank = 7 if board.turn == chess.WHITE else 0
    for attacker in board.attackers(board.turn, king):
        pawn_promotes = board.piece_type_at(attacker) == chess.PAWN and chess.square_rank(king) == back_rank
        moves.append(chess.Move(attacker, king, promotion=chess.QUEEN if pawn_promotes else None))
    return moves


def engine_safe_board(board: chess.Board) -> chess.Board | None:
    """A copy Stockfish 15.1 can search (no move stack, clean castling rights, en passant only when a
    legal en-passant capture exists), or None when it can't take the position at all: a king missing, the
    enemy king capturable (the caller scores that as a win), or ``is_valid()`` false for another reason.
    """
    if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
        return None
    if can_capture_king(board):
        return None
    safe = board.copy(stack=False)
    safe.castling_rights = safe.clean_castling_rights()
    if safe.ep_square is not None and not safe.has_legal_en_passant():
        safe.ep_square = None
    if not safe.is_valid():
        return None
    return safe


def engine_fen(board: chess.Board) -> str | None:
    """``safe_fen(engine_safe_board(board))``, without the copy when the board needs no cleaning (no
    castling rights or clean ones, no en-passant square): the pool builds one FEN per evaluation, so
    the copy and the checks are a visible share of a depth-1 search's Python cost."""
    if board.ep_square is not None or (
        board.castling_rights and (board.move_stack or board.clean_castling_rights() != board.castling_rights)
    ):
        safe = engine_safe_board(board)  # a move stack hides unclean rights from clean_castling_rights
        return None if safe is None else safe_fen(safe)
    return safe_fen(board) if _engine_can_take(board) else None


def _engine_can_take(board: chess.Board) -> bool:
    """``engine_safe_board(board) is not None`` for a board with no en-passant square and clean castling
    rights: both kings there, the enemy king not capturable, and the rest of python-chess's
    ``is_valid()`` that such a board can fail (kings, piece and pawn counts, back-rank pawns, checkers),
    with one attack computation per king instead of ``is_valid()``'s three."""
    black, white = board.occupied_co  # indexed by colour: chess.BLACK is 0
    us, them = (white, black) if board.turn else (black, white)
    kings, pawns = board.kings, board.pawns
    our_king, their_king = kings & us & ~board.promoted, kings & them & ~board.promoted
    if not our_king or not their_king or kings.bit_count() > 2:
        return False
    if white.bit_count() > 16 or black.bit_count() > 16 or pawns & chess.BB_BACKRANKS:
        return False
    if (white & pawns).bit_count() > 8 or (black & pawns).bit_count() > 8:
        return False
    if board.attackers_mask(board.turn, chess.msb(their_king)):
        return False  # the side to move can capture the king
    checkers = board.attackers_mask(not board.turn, chess.msb(our_king))
    count = checkers.bit_count()
    return count < 2 or (count == 2 and not chess.ray(chess.lsb(checkers), chess.msb(checkers)) & our_king)


_PIECES = ("pawns", "knights", "bishops", "rooks", "queens", "kings")
_SYMBOLS = tuple(zip(_PIECES, "PNBRQK", "pnbrqk", strict=True))
_SLOT = [(7 - chess.square_rank(square)) * 9 + chess.square_file(square) for square in chess.SQUARES]
"""Where each square's character sits in the 71 characters of a FEN's placement field."""
_EMPTY = "/".join(["11111111"] * 8)
_RUNS = [("1" * n, str(n)) for n in range(8, 1, -1)]
_CORNERS = ((chess.BB_H1, "K"), (chess.BB_A1, "Q"), (chess.BB_H8, "k"), (chess.BB_A8, "q"))
_CASTLING = {
    rights: "".join(letter for mask, letter in _CORNERS if rights & mask) or "-"
    for rights in (sum(mask for i, (mask, _) in enumerate(_CORNERS) if n >> i & 1) for n in range(16))
}
"""The castling field of every clean set of rights (rooks on their corners only)."""


def safe_fen(safe: chess.Board) -> str:
    """``safe.fen()`` for a board from :func:`engine_safe_board`, several times as fast: FEN building is
    a large share of the Python cost of a depth-1 evaluation. Relies on the sanitising: castling rights
    are corners only, and the en-passant square is a legal one."""
    cells = list(_EMPTY)
    white = safe.occupied_co[chess.WHITE]
    for attribute, upper, lower in _SYMBOLS:
        mask = getattr(safe, attribute)
        for bits, symbol in ((mask & white, upper), (mask & ~white, lower)):
            while bits:
                low = bits & -bits
                cells[_SLOT[low.bit_length() - 1]] = symbol
                bits ^= low
    placement = "".join(cells)
    for run, digit in _RUNS:  # longest first: every run of empty squares becomes one digit
        placement = placement.replace(run, digit)
    ep = chess.SQUARE_NAMES[safe.ep_square] if safe.ep_square is not None else "-"
    turn = "w" if safe.turn else "b"
    castling = _CASTLING[safe.castling_rights]
    return f"{placement} {turn} {castling} {ep} {safe.halfmove_clock} {safe.fullmove_number}"


def fallback_score(board: chess.Board) -> float:
    """Score of a board the engine can't take, for the side to move: a capturable enemy king or a
    missing king decides the game; anything else is counted as material."""
    own_king, their_king = board.king(board.turn), board.king(not board.turn)
    if own_king is not None and their_king is None:
        return float(KING_CAPTURE_SCORE)
    if own_king is None and their_king is not None:
        return float(-KING_CAPTURE_SCORE)
    if can_capture_king(board):
        return float(KING_CAPTURE_SCORE)
    return float(material_balance(board))


def material_balance(board: chess.Board) -> int:
    """Material of the side to move minus the opponent's, in centipawns."""
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        total += value * (
            len(board.pieces(piece_type, board.turn)) - len(board.pieces(piece_type, not board.turn))
        )
    return total


def fallback_top_moves(board: chess.Board, k: int) -> list[tuple[chess.Move, float]]:
    """Top moves without the engine: king captures first, then pseudo-legal moves by material after."""
    captures = king_capture_moves(board)
    if captures:
        return [(move, float(KING_CAPTURE_SCORE)) for move in captures[:k]]
    scored = []
    for move in board.pseudo_legal_moves:
        after = board.copy(stack=False)  # never touch the caller's board, even briefly
        after.push(move)
        scored.append((move, -float(material_balance(after))))
    scored.sort(key=lambda item: -item[1])
    return scored[:k]
