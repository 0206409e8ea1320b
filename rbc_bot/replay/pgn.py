"""The true game as PGN (python-chess), with RBC facts as comments.

RBC allows moves chess does not (moving into check, castling through check, capturing the king), so
SAN cannot always name them. Such moves are written in long algebraic form (``Ke1-e2``, ``Qd1xe8``),
which the SAN grammar accepts; :class:`RbcGameBuilder` reads them back by matching RBC's move set
instead of chess-legal moves. Passes are null moves (``--``). Chess-legal moves stay plain SAN, so
ordinary viewers read every game up to its first RBC-only move.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import chess
import chess.pgn
from reconchess import GameHistory, Turn
from reconchess.utilities import is_psuedo_legal_castle

from rbc_bot.replay.load import turns_of
from rbc_bot.start import history_start_board

CASTLES = {
    "O-O": {chess.WHITE: chess.Move(chess.E1, chess.G1), chess.BLACK: chess.Move(chess.E8, chess.G8)},
    "O-O-O": {chess.WHITE: chess.Move(chess.E1, chess.C1), chess.BLACK: chess.Move(chess.E8, chess.C8)},
}
RESULTS = {chess.WHITE: "1-0", chess.BLACK: "0-1"}


def rbc_moves(board: chess.Board) -> list[chess.Move]:
    """Moves the side to move can take in RBC (pseudo-legal, RBC castling), pass excluded."""
    moves = [
        m
        for m in board.generate_pseudo_legal_moves()
        if not (board.is_castling(m) and board.piece_type_at(m.from_square) == chess.KING)
    ]
    for castle in CASTLES.values():
        move = castle[board.turn]
        if board.piece_at(move.from_square) == chess.Piece(chess.KING, board.turn) and is_psuedo_legal_castle(
            board, move
        ):
            moves.append(move)
    return moves


def rbc_token(board: chess.Board, move: chess.Move) -> str:
    """SAN when chess agrees the move is legal, else unambiguous long algebraic notation."""
    if not move or board.is_legal(move):
        return board.san(move)
    return board.lan(move)


def result_of(history: GameHistory) -> str:
    winner = history.get_winner_color()
    if winner is not None:
        return RESULTS[winner]
    return "1/2-1/2" if history.get_win_reason() is not None else "*"


def build_game(history: GameHistory, notes: Mapping[tuple[bool, int], str] | None = None) -> chess.pgn.Game:
    """The true game; ``notes[(color, turn)]`` is appended to that move's comment (e.g. belief sizes)."""
    notes = notes or {}
    game = chess.pgn.Game()
    game.headers["Event"] = "Reconnaissance Blind Chess"
    game.headers["Site"] = "?"
    game.headers["White"] = str(history.get_white_player_name() or "?")
    game.headers["Black"] = str(history.get_black_player_name() or "?")
    game.headers["Result"] = result_of(history)
    reason = history.get_win_reason()
    if reason is not None:
        game.headers["Termination"] = reason.name.lower().replace("_", " ")
    board = history_start_board(history)
    if board.fen() != chess.STARTING_FEN:
        game.setup(board)  # SetUp and FEN headers, as PGN requires for a game from a position
    node: chess.pgn.GameNode = game
    for turn in turns_of(history):
        if not history.has_move(turn):
            who = chess.COLOR_NAMES[turn.color]
            last = f"then {who}: {_sense_text(history, turn)}, no move (time ran out)"
            node.comment = "; ".join(filter(None, [node.comment, last]))
            break
        requested, taken, capture = history.move_result(turn)
        parts = [_sense_text(history, turn)]
        if requested != taken:
            parts.append(f"requested {requested.uci() if requested else 'pass'}")
        if capture is not None:
            captured = board.piece_at(capture)
            name = chess.piece_name(captured.piece_type) if captured else "piece"
            parts.append(f"captures {name} on {chess.square_name(capture)}")
        if (turn.color, turn.turn_number) in notes:
            parts.append(notes[turn.color, turn.turn_number])
        move = taken if taken is not None else chess.Move.null()
        node = node.add_variation(move, comment="; ".join(p for p in parts if p))
        board.push(move)
    return game


def _sense_text(history: GameHistory, turn: Turn) -> str:
    square = history.sense(turn)
    return f"sense {chess.square_name(square)}" if square is not None else "no sense"


class RbcExporter(chess.pgn.StringExporter):
    """StringExporter that writes RBC-only moves in long algebraic form instead of failing SAN."""

    def visit_move(self, board: chess.Board, move: chess.Move) -> None:
        if self.variations or not self.variation_depth:
            if board.turn == chess.WHITE:
                self.write_token(f"{board.fullmove_number}. ")
            elif self.force_movenumber:
                self.write_token(f"{board.fullmove_number}... ")
            self.write_token(rbc_token(board, move) + " ")
            self.force_movenumber = False


def export(game: chess.pgn.Game) -> str:
    return game.accept(RbcExporter(headers=True, variations=True, comments=True)) + "\n"


def write_pgn(history: GameHistory, path: Path, notes: Mapping[tuple[bool, int], str] | None = None) -> Path:
    path.write_text(export(build_game(history, notes)), encoding="utf-8")
    return path


SAN_RE = re.compile(r"^([NBKRQ])?([a-h])?([1-8])?[\-x]?([a-h][1-8])(=?[nbrqkNBRQK])?[\+#]?\Z")


class RbcGameBuilder(chess.pgn.GameBuilder):
    """GameBuilder that also accepts moves legal in RBC but not in chess (see the module docstring)."""

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return board.parse_san(san)
        except ValueError:
            return parse_rbc_move(board, san)


def parse_rbc_move(board: chess.Board, san: str) -> chess.Move:
    """Match a SAN/LAN token against RBC's move set; ValueError unless exactly one move fits."""
    token = san.rstrip("+#")
    if token in CASTLES:
        move = CASTLES[token][board.turn]
        if move in rbc_moves(board):
            return move
        raise chess.IllegalMoveError(f"castling {san!r} is not possible in RBC in {board.fen()}")
    match = SAN_RE.match(san)
    if not match:
        raise chess.InvalidMoveError(f"invalid move text: {san!r}")
    piece = chess.PIECE_SYMBOLS.index(match.group(1).lower()) if match.group(1) else chess.PAWN
    to_square = chess.parse_square(match.group(4))
    promotion = chess.PIECE_SYMBOLS.index(match.group(5)[-1].lower()) if match.group(5) else None
    found = [
        m
        for m in rbc_moves(board)
        if m.to_square == to_square
        and board.piece_type_at(m.from_square) == piece
        and m.promotion == promotion
        and (not match.group(2) or chess.square_file(m.from_square) == "abcdefgh".index(match.group(2)))
        and (not match.group(3) or chess.square_rank(m.from_square) == int(match.group(3)) - 1)
    ]
    if len(found) != 1:
        kind = "ambiguous" if found else "impossible"
        raise chess.IllegalMoveError(f"{kind} move {san!r} in {board.fen()}")
    return found[0]


def read_pgn(path: Path) -> chess.pgn.Game | None:
    with path.open(encoding="utf-8") as handle:
        return chess.pgn.read_game(handle, Visitor=RbcGameBuilder)
