"""Re-simulate one side's belief from a GameHistory alone, so any bot's game can be judged.

Our :class:`~rbc_bot.belief.BeliefTracker` is fed exactly what that side was told (the opponent's
capture square, its sense result, its move result). After every observation we record the number of
boards and whether the true board is still among them. For each sense we also score every possible
centre over the same belief: the expected number of boards a sense there eliminates, if the truth is
any of the boards with equal chance, is ``N - sum(n_i**2) / N`` over the partitions ``n_i`` of the
3x3 window's contents. The chosen centre is compared with the best one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import chess
import numpy as np
from reconchess import GameHistory, Turn

from rbc_bot.replay.load import turns_of
from rbc_bot.rules import sense_window

logger = logging.getLogger(__name__)

DEFAULT_CAP = 50_000
DEFAULT_STASH_LIMIT = 2_000_000  # boards (66 bytes each): the tracker's stash is otherwise unbounded
DEFAULT_SECONDS = 120.0
# An edge centre's window is a subset of its inward neighbour's, so the best centre is always inner.
INNER_CENTRES = [chess.square(f, r) for r in range(1, 7) for f in range(1, 7)]
_WINDOW_INDEX = {sq: np.array(sense_window(sq)) for sq in chess.SQUARES}
_POWERS = (13 ** np.arange(9, dtype=np.int64)).astype(np.int64)


@dataclass
class TurnBelief:
    """One turn of one side: sizes after each observation and whether the truth survived it."""

    color: str
    turn: int
    opponent_capture: str | None
    size_before: int
    size_after_opponent: int
    truth_after_opponent: bool
    truth_sampled_away: bool
    sense_square: str | None
    size_after_sense: int
    truth_after_sense: bool
    sense_eliminated: int
    sense_expected: float | None
    best_sense_square: str | None
    best_sense_expected: float | None
    size_after_move: int | None
    truth_after_move: bool | None
    stashed: int
    recoveries: int
    seconds: float

    @property
    def truth_kept(self) -> bool:
        return self.truth_after_opponent and self.truth_after_sense and self.truth_after_move is not False


@dataclass
class SideBelief:
    color: str
    cap: int | None
    turns: list[TurnBelief] = field(default_factory=list)
    error: str | None = None

    @property
    def truth_always_in_belief(self) -> bool | None:
        """True/False over the turns re-simulated; None when stopped early and the truth was kept so far."""
        if not all(t.truth_kept for t in self.turns):
            return False
        return True if self.error is None else None

    @property
    def first_truth_lost(self) -> int | None:
        return next((t.turn for t in self.turns if not t.truth_kept), None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "color": self.color,
            "cap": self.cap,
            "error": self.error,
            "truth_always_in_belief": self.truth_always_in_belief,
            "first_truth_lost": self.first_truth_lost,
            "turns": [asdict(t) for t in self.turns],
        }


def expected_eliminated(pieces: np.ndarray, centres: list[int]) -> dict[int, float]:
    """For each centre, the expected boards a sense there removes from ``pieces`` (N x 64 codes)."""
    n = len(pieces)
    out: dict[int, float] = {}
    if n == 0:
        return dict.fromkeys(centres, 0.0)
    codes = pieces.astype(np.int64)
    for centre in centres:
        squares = _WINDOW_INDEX[centre]
        keys = codes[:, squares] @ _POWERS[: len(squares)]
        _, counts = np.unique(keys, return_counts=True)
        out[centre] = float(n - (counts.astype(np.float64) ** 2).sum() / n)
    return out


def _pieces_of(tracker: Any) -> np.ndarray:
    """The live boards' piece codes; built from the boards when the tracker exposes no array."""
    pieces = getattr(tracker, "pieces", None)
    if isinstance(pieces, np.ndarray):
        return pieces
    rows = [[_code(board.piece_at(sq)) for sq in chess.SQUARES] for board in tracker]
    return np.array(rows, dtype=np.int8).reshape(-1, 64)


def _code(piece: chess.Piece | None) -> int:
    return 0 if piece is None else piece.piece_type + (0 if piece.color == chess.WHITE else 6)


def _in_new_stash(tracker: Any, board: chess.Board) -> bool:
    observations = getattr(tracker, "observations", None)
    if observations is None or not hasattr(tracker, "stash_contains"):
        return False
    return bool(tracker.stash_contains(len(observations), board))


def truth_at_turn_start(history: GameHistory, turn: Turn) -> chess.Board:
    """The true board when ``turn`` begins (before its sense): after the opponent's previous move."""
    if history.is_first_turn(turn):
        return chess.Board()
    return chess.Board(history.truth_fen_after_move(turn.previous))


def _square(square: int | None) -> str | None:
    return None if square is None else chess.square_name(square)


Observer = Callable[[Turn, str, Any], None]
"""Called with the turn, the stage (``"opponent"``: after the opponent's move, ``"sense"``: after the
sense) and the tracker, so per-turn views of the belief can be kept without copying every board."""


class _Stop(Exception):
    """The re-simulation went past its time or memory budget."""


def resimulate(
    history: GameHistory,
    color: chess.Color,
    cap: int | None = DEFAULT_CAP,
    seed: int = 0,
    seconds: float = DEFAULT_SECONDS,
    stash_limit: int = DEFAULT_STASH_LIMIT,
    expansion_slack: int = 1,
    observe: Observer | None = None,
) -> SideBelief:
    """Run the belief tracker over ``color``'s observations (``expansion_slack`` as the tracker's).

    A tracker failure, or going past ``seconds`` or ``stash_limit`` stashed boards (the tracker keeps
    every sampled-away board, which grows without bound against bots that sense poorly), ends the
    re-simulation early; the turns done so far are kept and ``error`` says why.
    """
    side = SideBelief(color=chess.COLOR_NAMES[color], cap=cap)
    try:
        from rbc_bot.belief import BeliefTracker
    except ImportError as exc:
        side.error = f"belief tracker unavailable: {exc}"
        logger.error("%s", side.error)
        return side
    tracker = BeliefTracker(color, cap=cap, seed=seed, expansion_slack=expansion_slack)
    deadline = time.perf_counter() + seconds

    def guard() -> None:
        if tracker.stashed_size > stash_limit:
            raise _Stop(f"stopped: {tracker.stashed_size:,} stashed boards (limit {stash_limit:,})")
        if time.perf_counter() > deadline:
            raise _Stop(f"stopped: over the {seconds:g} s budget")

    for turn in turns_of(history, color):
        started = time.perf_counter()
        before = tracker.live_size
        try:
            capture = None if history.is_first_turn(turn) else history.capture_square(turn.previous)
            truth = truth_at_turn_start(history, turn)
            tracker.on_opponent_move(capture)
            guard()
            after_opponent = tracker.live_size
            truth_opponent = tracker.contains(truth)
            # Not live but in the stash just made: the cap sampled the truth away (not a tracker bug).
            sampled_away = not truth_opponent and _in_new_stash(tracker, truth)
            if observe is not None:
                observe(turn, "opponent", tracker)
            square = history.sense(turn)
            scores: dict[int, float] = {}
            if square is not None:
                scores = expected_eliminated(_pieces_of(tracker), sorted({*INNER_CENTRES, square}))
            tracker.on_sense(square, history.sense_result(turn))
            guard()
            after_sense = tracker.live_size
            truth_sense = tracker.contains(truth)
            if observe is not None:
                observe(turn, "sense", tracker)
            size_move: int | None = None
            truth_move: bool | None = None
            if history.has_move(turn):
                tracker.on_own_move(*history.move_result(turn))
                size_move = tracker.live_size
                after = chess.Board(history.truth_fen_after_move(turn))
                # After a king capture the game is over and castling bookkeeping differs: not judged.
                if after.king(not color) is not None:
                    truth_move = tracker.contains(after)
        except _Stop as exc:
            side.error = f"{chess.COLOR_NAMES[color]} turn {turn.turn_number}: {exc}"
            logger.warning("%s", side.error)
            break
        except (ValueError, IndexError) as exc:
            side.error = f"{chess.COLOR_NAMES[color]} turn {turn.turn_number}: belief tracker failed: {exc}"
            logger.error("%s", side.error)
            break
        best = max(scores, key=lambda sq: scores[sq]) if scores else None
        side.turns.append(
            TurnBelief(
                color=side.color,
                turn=turn.turn_number,
                opponent_capture=_square(capture),
                size_before=before,
                size_after_opponent=after_opponent,
                truth_after_opponent=truth_opponent,
                truth_sampled_away=sampled_away,
                sense_square=_square(square),
                size_after_sense=after_sense,
                truth_after_sense=truth_sense,
                sense_eliminated=after_opponent - after_sense,
                sense_expected=scores.get(square) if square is not None else None,
                best_sense_square=_square(best),
                best_sense_expected=scores[best] if best is not None else None,
                size_after_move=size_move,
                truth_after_move=truth_move,
                stashed=tracker.stashed_size,
                recoveries=tracker.recoveries,
                seconds=time.perf_counter() - started,
            )
        )
        logger.debug("resim %s", side.turns[-1])
    return side
