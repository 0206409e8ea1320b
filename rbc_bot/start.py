"""Where a game starts: the standard position, or one given as FEN (a file of them for a match).

Engine testers start games from a book of positions so a match measures more than one opening;
for RBC the same lets a match start in the endings a bot must convert (a rook against a lone
king, say), which games from the start position reach too rarely to gate a change by. RBC games
start with White to move (``LocalGame`` and the server both say so), so a position must too.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import chess
from reconchess import GameHistory

STANDARD = chess.STARTING_FEN


class StartPositionError(ValueError):
    """A start position that no game can be played from; the message says which and why."""


def start_board(fen: str | None) -> chess.Board:
    """The board a game starts from: the standard one for None, else ``fen`` once it is playable.

    Playable: a legal chess position (one king each, no pawn on the back ranks, the side not to
    move not in check: its king could be captured before anyone senses) with White to move.
    """
    if fen is None:
        return chess.Board()
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise StartPositionError(f"start position {fen!r} is not a FEN: {exc}") from exc
    if board.turn != chess.WHITE:
        raise StartPositionError(f"start position {fen!r}: RBC games start with White to move")
    if not board.is_valid():
        problems = ", ".join(_status_names(board.status()))
        raise StartPositionError(f"start position {fen!r} is not a legal position: {problems}")
    return board


def _status_names(status: chess.Status) -> list[str]:
    members = chess.Status.__members__.items()
    return [name.lower().replace("_", " ") for name, flag in members if flag and flag in status]


def position_for(positions: Sequence[str], pair: int) -> str | None:
    """Where game pair ``pair`` starts: the positions in turn, or None (the standard position)."""
    return positions[pair % len(positions)] if positions else None


def load_positions(path: Path) -> list[str]:
    """The start positions in a text file: one FEN a line; blank lines and ``#`` comments skipped.

    Every line is checked (``start_board``) before any game, and the error names the line.
    """
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise StartPositionError(f"--positions {path}: cannot read it ({exc})") from exc
    positions = []
    for number, line in enumerate(lines, 1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        try:
            start_board(text)
        except StartPositionError as exc:
            raise StartPositionError(f"--positions {path}:{number}: {exc}") from exc
        positions.append(text)
    if not positions:
        raise StartPositionError(f"--positions {path}: no positions in it")
    return positions


def history_start_board(history: GameHistory) -> chess.Board:
    """The board a recorded game started from: the truth before White's first move.

    A history keeps no start position of its own; a game whose first turn has no move (White flagged
    before moving) is taken to have started from the standard position.
    """
    if history.is_empty():
        return chess.Board()
    first = history.first_turn()
    if not history.has_move(first):
        return chess.Board()
    return chess.Board(history.truth_fen_before_move(first))
