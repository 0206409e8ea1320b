"""The three observations of a turn, checked as they arrive, and what each means for belief rows.

:func:`apply_observation` is the exact update (the rows that fit, updated); :func:`force_observation`
is the last resort when no row fits. Our own pieces are known exactly and kept apart, as a row of 64
piece codes (:func:`pieces_after`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from rbc_bot.belief_ops import (
    apply_one_move,
    filter_own_move,
    filter_sense,
    own_move_fits,
    sense_fits,
    unique_rows,
)
from rbc_bot.belief_rows import piece_code
from rbc_bot.belief_weights import expand_weighted
from rbc_bot.expand_fast import expand  # belief_ops.expand's output, order included, in bulk
from rbc_bot.rules import sense_window


@dataclass(frozen=True)
class OpponentMove:
    capture_square: int | None


@dataclass(frozen=True)
class Sense:
    square: int | None
    squares: tuple[int, ...]
    codes: tuple[int, ...]


@dataclass(frozen=True)
class OwnMove:
    requested: chess.Move | None
    taken: chess.Move | None
    capture_square: int | None


Observation = OpponentMove | Sense | OwnMove


def opponent_move(capture_square: int | None, ours: np.ndarray) -> OpponentMove:
    """The opponent's move as reported; ValueError unless the capture square holds one of ``ours``."""
    if capture_square is not None:
        if not 0 <= capture_square < 64:
            raise ValueError(f"capture square {capture_square} is not on the board")
        if ours[capture_square] == 0:
            raise ValueError(f"capture square {chess.square_name(capture_square)} holds none of our pieces")
    return OpponentMove(capture_square)


def sense(square: int, result: Sequence[tuple[int, chess.Piece | None]]) -> Sense:
    """A sense at ``square`` that saw ``result``; ValueError unless it shows exactly the window."""
    window = sense_window(square)
    seen = [int(sq) for sq, _ in result]
    if sorted(seen) != sorted(window):
        raise ValueError(
            f"sense at {chess.square_name(square)} shows squares "
            f"{[chess.square_name(s) for s in seen if 0 <= s < 64]}, not its window "
            f"{[chess.square_name(s) for s in window]}"
        )
    return Sense(square, tuple(seen), tuple(piece_code(p) for _, p in result))


def own_move(requested: chess.Move | None, taken: chess.Move | None, capture_square: int | None) -> OwnMove:
    """Our move's result; ValueError when it can't be one."""
    if capture_square is not None and not 0 <= capture_square < 64:
        raise ValueError(f"capture square {capture_square} is not on the board")
    if capture_square is not None and taken is None:
        raise ValueError("a capture was reported for a move that was not taken")
    if requested is None and taken is not None:
        raise ValueError(f"a pass cannot be taken as {taken}")
    return OwnMove(requested, taken, capture_square)


def pieces_after(observation: Observation, ours: np.ndarray, us: chess.Color) -> np.ndarray:
    """Our pieces (a row of 64 codes) after ``observation``, as a new row."""
    ours = ours.copy()
    if isinstance(observation, OpponentMove) and observation.capture_square is not None:
        ours[observation.capture_square] = 0
    elif isinstance(observation, OwnMove) and observation.taken is not None:
        move_own_piece(ours, observation.taken, us)
    return ours


def apply_observation(rows: np.ndarray, observation: Observation, us: chess.Color) -> np.ndarray:
    """The rows (of player ``us``'s belief) that fit ``observation``, updated by it."""
    if isinstance(observation, OpponentMove):
        return expand(rows, not us, observation.capture_square)
    if isinstance(observation, Sense):
        return filter_sense(rows, observation.squares, observation.codes)
    return filter_own_move(rows, us, observation.requested, observation.taken, observation.capture_square)


def apply_weighted(
    rows: np.ndarray, log_weights: np.ndarray, observation: Observation, us: chess.Color
) -> tuple[np.ndarray, np.ndarray]:
    """``apply_observation`` with each row's log-weight (rbc_bot.belief_weights) carried along."""
    if isinstance(observation, OpponentMove):
        return expand_weighted(rows, log_weights, not us, observation.capture_square)
    if isinstance(observation, Sense):
        if not observation.squares or len(rows) == 0:
            return rows, log_weights
        fits = sense_fits(rows, observation.squares, observation.codes)
        return rows[fits], log_weights[fits]
    fits = own_move_fits(rows, us, (observation.requested, observation.taken, observation.capture_square))
    if len(rows) == 0:
        return rows, log_weights
    return apply_one_move(rows[fits], observation.taken, us), log_weights[fits]


def force_observation(
    rows: np.ndarray, observation: Observation, us: chess.Color, ours: np.ndarray
) -> np.ndarray:
    """``rows`` made to fit ``observation`` when none does: what was seen is written in, a move is
    applied as reported, and our own pieces (``ours``, after the observation; known exactly) are
    restored on every row. A capture by the opponent leaves an enemy queen on the square (the capturer
    is unknown: assume the worst)."""
    rows = rows.copy()
    if isinstance(observation, Sense):
        rows[:, list(observation.squares)] = np.asarray(observation.codes, dtype=np.int8)
    elif isinstance(observation, OwnMove):
        if observation.taken is not None:
            rows = apply_one_move(rows, observation.taken, us)
    else:
        rows = expand(rows, not us, None)
        if observation.capture_square is not None:
            rows[:, observation.capture_square] = chess.QUEEN + (6 if us == chess.WHITE else 0)
    mine = ours != 0
    rows[:, :64][:, mine] = ours[mine]
    return unique_rows(rows)


def move_own_piece(ours: np.ndarray, move: chess.Move, color: chess.Color) -> None:
    """Move our piece in place in a row of our own pieces only. Not via apply_moves: a capture lands on
    a square that is empty in this row, which apply_moves would take for en passant and erase the pawn
    behind it."""
    f, t = move.from_square, move.to_square
    piece = int(ours[f])
    ours[f] = 0
    offset = 0 if color == chess.WHITE else 6
    ours[t] = move.promotion + offset if move.promotion else piece
    if piece == chess.KING + offset and abs(t - f) == 2:
        rook_from, rook_to = (f + 3, f + 1) if t > f else (f - 4, f - 1)
        ours[rook_from] = 0
        ours[rook_to] = chess.ROOK + offset
