"""Read and check finished games: reconchess GameHistory JSON (local or server-wrapped) and our turn logs.

A history is checked in full before any analysis: its shape, then every turn replayed through
reconchess' own rules (sense results, requested -> taken move, capture squares, FENs). A bad file
raises :class:`ReplayError` naming the file and the first thing wrong, so a folder run can list it
and go on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import chess
from reconchess import GameHistory, Turn
from reconchess.history import GameHistoryDecoder
from reconchess.utilities import add_pawn_queen_promotion, capture_square_of_move, move_actions, revise_move

from rbc_bot.notation import square_name
from rbc_bot.rules import sense_window
from rbc_bot.start import history_start_board

logger = logging.getLogger(__name__)

PER_COLOR_KEYS = (
    "senses",
    "sense_results",
    "requested_moves",
    "taken_moves",
    "capture_squares",
    "fens_before_move",
    "fens_after_move",
)
MOVE_KEYS = ("requested_moves", "taken_moves", "capture_squares", "fens_before_move", "fens_after_move")


class ReplayError(ValueError):
    """A game file that cannot be analysed; the message names the file and what is wrong."""


@dataclass
class LoadedGame:
    """One checked game plus our bot's per-turn log when it lies beside the history."""

    path: Path
    history: GameHistory
    turn_log: dict[tuple[bool, int], dict[str, Any]] = field(default_factory=dict)
    turn_log_path: Path | None = None
    warnings: list[str] = field(default_factory=list)

    @property
    def white_name(self) -> str:
        return str(self.history.get_white_player_name() or "white")

    @property
    def black_name(self) -> str:
        return str(self.history.get_black_player_name() or "black")

    def name(self, color: chess.Color) -> str:
        return self.white_name if color == chess.WHITE else self.black_name

    @property
    def our_color(self) -> chess.Color | None:
        """The colour our bot played, known only from its turn log."""
        colors = {color for color, _ in self.turn_log}
        return colors.pop() if len(colors) == 1 else None


def turns_of(history: GameHistory, color: chess.Color | None = None) -> Iterator[Turn]:
    """All turns in play order (optionally one colour's), empty for an empty history."""
    return iter(list(history.turns(color))) if not history.is_empty() else iter(())


def load_game(path: Path) -> LoadedGame:
    """Load, shape-check and rule-check one history, and attach its turn log if there is one."""
    path = Path(path)
    history = _decode(path, _read_json(path))
    check_rules(history, path)
    game = LoadedGame(path=path, history=history)
    logs = find_turn_logs(path)
    if logs:
        game.turn_log_path = logs[0]
    for log_path in logs:
        rows, warnings = load_turn_log(log_path)
        game.turn_log.update(rows)
        game.warnings += warnings
    game.turn_log = align_turn_log(history, game.turn_log)
    return game


def align_turn_log(
    history: GameHistory, rows: dict[tuple[bool, int], dict[str, Any]]
) -> dict[tuple[bool, int], dict[str, Any]]:
    """Re-key log rows to the history's 0-based turn numbers: a bot may count its turns from 1. The offset
    is the one under which the logged sense squares agree with the history's most often."""
    aligned: dict[tuple[bool, int], dict[str, Any]] = {}
    for color in chess.COLORS:
        mine = {turn: row for (c, turn), row in rows.items() if c == color}
        if not mine:
            continue
        senses = {t.turn_number: square_name(history.sense(t)) for t in turns_of(history, color)}

        def agreement(
            offset: int, mine: dict[int, dict[str, Any]] = mine, senses: dict[int, Any] = senses
        ) -> int:
            return sum(
                t + offset in senses and row.get("sense_square") == senses[t + offset]
                for t, row in mine.items()
            )

        offset = max((0, -1, 1), key=agreement)
        if offset:
            logger.info("turn log of %s counts turns from %d: shifted", chess.COLOR_NAMES[color], -offset)
        aligned.update({(color, turn + offset): row for turn, row in mine.items()})
    return aligned


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{path}: not a text (UTF-8) file: {exc.reason} at byte {exc.start}") from exc
    if not text.strip():
        raise ReplayError(f"{path}: empty file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        hint = "" if text.rstrip().endswith(("}", "]")) else " (the file looks truncated)"
        where = f"line {exc.lineno} column {exc.colno}"
        raise ReplayError(f"{path}: malformed JSON: {exc.msg} at {where}{hint}") from exc


def _decode(path: Path, raw: Any) -> GameHistory:
    """Check the JSON shape field by field, then let reconchess' own decoder build the history."""
    if isinstance(raw, dict) and "game_history" in raw:
        raw = raw["game_history"]
        where = "game_history"
    else:
        where = "top level"
    if not isinstance(raw, dict):
        raise ReplayError(f"{path}: {where} is a JSON {type(raw).__name__}, expected a GameHistory object")
    if raw.get("type") != "GameHistory":
        raise ReplayError(f'{path}: {where} has no "type": "GameHistory" (got {raw.get("type")!r})')
    missing = [key for key in (*PER_COLOR_KEYS, "winner_color", "win_reason") if key not in raw]
    if missing:
        raise ReplayError(f"{path}: GameHistory is missing {', '.join(missing)}")
    lengths: dict[tuple[str, str], int] = {}
    for key in PER_COLOR_KEYS:
        value = raw[key]
        if not isinstance(value, dict) or not {"true", "false"} <= value.keys():
            raise ReplayError(f'{path}: "{key}" must be an object with "true" and "false" lists')
        for color_key in ("true", "false"):
            if not isinstance(value[color_key], list):
                raise ReplayError(f'{path}: "{key}"."{color_key}" must be a list')
            lengths[key, color_key] = len(value[color_key])
    for color_key, color_name in (("true", "white"), ("false", "black")):
        senses = lengths["senses", color_key]
        if lengths["sense_results", color_key] != senses:
            raise ReplayError(f"{path}: {color_name} has {senses} senses but a different number of results")
        moves = {lengths[key, color_key] for key in MOVE_KEYS}
        if len(moves) != 1:
            raise ReplayError(f"{path}: {color_name}'s move lists have different lengths {sorted(moves)}")
        if moves.pop() not in (senses, senses - 1):
            raise ReplayError(f"{path}: {color_name} has more or fewer moves than senses allow")
    white, black = lengths["senses", "true"], lengths["senses", "false"]
    if white not in (black, black + 1):
        raise ReplayError(f"{path}: white has {white} turns and black {black}; turns must alternate")
    try:
        history = json.loads(json.dumps(raw), cls=GameHistoryDecoder)
    except (ValueError, KeyError, TypeError, IndexError) as exc:
        raise ReplayError(f"{path}: bad value in GameHistory: {type(exc).__name__}: {exc}") from exc
    if not isinstance(history, GameHistory):
        raise ReplayError(f"{path}: could not decode a GameHistory")
    if history.is_empty():
        raise ReplayError(f"{path}: the game has no turns")
    return history


def _fen_core(fen: str) -> str:
    """Placement, side to move and castling: the parts every writer agrees on (en passant style varies)."""
    return " ".join(fen.split()[:3])


def check_rules(history: GameHistory, path: Path) -> None:
    """Replay every turn with reconchess' rules and stop at the first record that does not follow."""
    board = history_start_board(history)
    turns = list(turns_of(history))
    for index, turn in enumerate(turns):
        label = f"{path}: {chess.COLOR_NAMES[turn.color]} turn {turn.turn_number}"
        if any(board.king(color) is None for color in chess.COLORS):
            raise ReplayError(f"{label}: the game goes on after a king was captured")
        square = history.sense(turn)
        if square is not None and (not isinstance(square, int) or not 0 <= square < 64):
            raise ReplayError(f"{label}: sense square {square!r} is not on the board")
        if square is not None:
            expected = [(sq, board.piece_at(sq)) for sq in sense_window(square)]
            got = [(int(sq), piece) for sq, piece in history.sense_result(turn)]
            if got != expected:
                name = chess.square_name(square)
                raise ReplayError(f"{label}: sense result at {name} disagrees with the board")
        elif history.sense_result(turn):
            raise ReplayError(f"{label}: a sense result without a sense")
        if not history.has_move(turn):
            if index != len(turns) - 1:
                raise ReplayError(f"{label}: a turn without a move that is not the last turn")
            break
        if _fen_core(history.truth_fen_before_move(turn)) != _fen_core(board.fen()):
            raise ReplayError(f"{label}: board before the move does not follow from the moves so far")
        requested, taken, capture = history.move_result(turn)
        if requested is None:
            expected_taken = None
        else:
            promoted = add_pawn_queen_promotion(board, requested)
            if promoted not in move_actions(board):
                raise ReplayError(f"{label}: requested move {requested.uci()} is not a possible move")
            expected_taken = revise_move(board, promoted)
        if taken != expected_taken:
            raise ReplayError(
                f"{label}: taken move {taken.uci() if taken else 'pass'} should be "
                f"{expected_taken.uci() if expected_taken else 'pass'} (illegal move sequence)"
            )
        if capture != capture_square_of_move(board, taken):
            raise ReplayError(f"{label}: capture square {capture!r} does not match the move")
        board.push(taken if taken is not None else chess.Move.null())
        if _fen_core(history.truth_fen_after_move(turn)) != _fen_core(board.fen()):
            raise ReplayError(f"{label}: board after the move does not follow from the move")


def find_turn_logs(path: Path) -> list[Path]:
    """Our bot's per-turn logs beside a history: ``game.json.turns.jsonl`` (or ``game.turns.jsonl``), and
    ``game.json.white.turns.jsonl`` / ``.black.turns.jsonl`` when both sides were ours (rbc_bot.game)."""
    names = [f"{path.name}.turns.jsonl", f"{path.stem}.turns.jsonl"]
    names += [f"{path.name}.{color}.turns.jsonl" for color in ("white", "black")]
    return [path.with_name(name) for name in dict.fromkeys(names) if path.with_name(name).is_file()]


def load_turn_log(path: Path) -> tuple[dict[tuple[bool, int], dict[str, Any]], list[str]]:
    """Rows keyed by (colour, turn). Tolerant: a bad line (e.g. a truncated last line) is a warning."""
    rows: dict[tuple[bool, int], dict[str, Any]] = {}
    warnings: list[str] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        return rows, [f"{path}: cannot read turn log: {exc}"]
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            warnings.append(f"{path}:{number}: skipped malformed line ({exc.msg})")
            continue
        color_name = row.get("color") if isinstance(row, dict) else None
        turn = row.get("turn") if isinstance(row, dict) else None
        if color_name not in ("white", "black") or not isinstance(turn, int):
            warnings.append(f"{path}:{number}: skipped line without color/turn")
            continue
        rows[color_name == "white", turn] = row
    for warning in warnings:
        logger.warning("%s", warning)
    return rows, warnings
