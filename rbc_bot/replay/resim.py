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

from rbc_bot.belief import BeliefTracker
from rbc_bot.config import BeliefConfig
from rbc_bot.notation import square_name
from rbc_bot.replay.load import turns_of
from rbc_bot.sense import survivors_at
from rbc_bot.start import history_start_board

logger = logging.getLogger(__name__)

# The bot's own belief settings, so that a re-simulated belief is the one the bot would have held.
DEFAULT_CAP = BeliefConfig().max_cap
DEFAULT_SLACK = BeliefConfig().expansion_slack
DEFAULT_STASH_LIMIT = 2_000_000  # boards (66 bytes each): the tracker's stash is otherwise unbounded
DEFAULT_SECONDS = 120.0
# An edge centre's window is a subset of its inward neighbour's, so the best centre is always inner.
INNER_CENTRES = [chess.square(f, r) for r in range(1, 7) for f in range(1, 7)]


@dataclass
class TurnBelief:
    """One turn of one side: sizes after each observation and whether the truth survived it.

    Under a cap the truth may be stashed rather than live (sampled away); the tracker holds it either
    way and recovers it when the live boards run out, so ``truth_after_*`` count live or stashed, and
    ``truth_sampled_away`` says the truth was only in the stash at some point of the turn.
    """

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
    return {centre: len(pieces) - survivors_at(pieces, centre) for centre in centres}


def truth_at_turn_start(history: GameHistory, turn: Turn) -> chess.Board:
    """The true board when ``turn`` begins (before its sense): after the opponent's previous move."""
    if history.is_first_turn(turn):
        return history_start_board(history)
    return chess.Board(history.truth_fen_after_move(turn.previous))


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
    expansion_slack: int = DEFAULT_SLACK,
    observe: Observer | None = None,
) -> SideBelief:
    """Run the belief tracker over ``color``'s observations (``expansion_slack`` as the tracker's).

    A tracker failure, or going past ``seconds`` or ``stash_limit`` stashed boards (the tracker keeps
    every sampled-away board, which grows without bound against bots that sense poorly), ends the
    re-simulation early; the turns done so far are kept and ``error`` says why.
    """
    side = SideBelief(color=chess.COLOR_NAMES[color], cap=cap)
    start = history_start_board(history)
    tracker = BeliefTracker(color, start, cap=cap, seed=seed, expansion_slack=expansion_slack)
    run = _Run(history, tracker, time.perf_counter() + seconds, seconds, stash_limit, observe, {0: start})
    for turn in turns_of(history, color):
        try:
            side.turns.append(run.turn(turn))
        except _Stop as exc:
            side.error = f"{side.color} turn {turn.turn_number}: {exc}"
            logger.warning("%s", side.error)
            break
        except (ValueError, IndexError) as exc:
            side.error = f"{side.color} turn {turn.turn_number}: belief tracker failed: {exc}"
            logger.error("%s", side.error)
            break
        logger.debug("resim %s", side.turns[-1])
    return side


@dataclass
class _Run:
    """One side's re-simulation, a turn at a time: the opponent's move, the sense, our move."""

    history: GameHistory
    tracker: BeliefTracker
    deadline: float
    seconds: float
    stash_limit: int
    observe: Observer | None
    truth_at: dict[int, chess.Board]  # the true board after each observation count (0: the start)

    def guard(self) -> None:
        if self.tracker.stashed_size > self.stash_limit:
            raise _Stop(f"stopped: {self.tracker.stashed_size:,} stashed boards (limit {self.stash_limit:,})")
        if time.perf_counter() > self.deadline:
            raise _Stop(f"stopped: over the {self.seconds:g} s budget")

    def turn(self, turn: Turn) -> TurnBelief:
        started = time.perf_counter()
        before = self.tracker.live_size
        truth = truth_at_turn_start(self.history, turn)
        capture = None if self.history.is_first_turn(turn) else self.history.capture_square(turn.previous)
        after_opponent, truth_opponent, sampled_away = self.opponent_move(turn, capture, truth)
        square = self.history.sense(turn)
        scores, after_sense, truth_sense, stashed_at_sense = self.sense(turn, square, truth)
        size_move, truth_move = self.own_move(turn)
        best = max(scores, key=lambda sq: scores[sq]) if scores else None
        return TurnBelief(
            color=chess.COLOR_NAMES[turn.color],
            turn=turn.turn_number,
            opponent_capture=square_name(capture),
            size_before=before,
            size_after_opponent=after_opponent,
            truth_after_opponent=truth_opponent,
            truth_sampled_away=sampled_away or stashed_at_sense,
            sense_square=square_name(square),
            size_after_sense=after_sense,
            truth_after_sense=truth_sense,
            sense_eliminated=after_opponent - after_sense,
            sense_expected=scores.get(square) if square is not None else None,
            best_sense_square=square_name(best),
            best_sense_expected=scores[best] if best is not None else None,
            size_after_move=size_move,
            truth_after_move=truth_move,
            stashed=self.tracker.stashed_size,
            recoveries=self.tracker.recoveries,
            seconds=time.perf_counter() - started,
        )

    def opponent_move(self, turn: Turn, capture: int | None, truth: chess.Board) -> tuple[int, bool, bool]:
        """Belief size after the opponent's move, whether the truth is held (live or stashed), and
        whether it is only stashed (sampled away by the cap: not a tracker bug)."""
        self.tracker.on_opponent_move(capture)
        self.guard()
        live, held = self.locate(truth)
        if self.observe is not None:
            self.observe(turn, "opponent", self.tracker)
        return self.tracker.live_size, held, held and not live

    def sense(
        self, turn: Turn, square: int | None, truth: chess.Board
    ) -> tuple[dict[int, float], int, bool, bool]:
        """Every centre's expected boards eliminated (scored before the sense), then the sense itself:
        the scores, the size after it, whether the truth is held and whether it is only stashed."""
        scores: dict[int, float] = {}
        if square is not None:
            scores = expected_eliminated(self.tracker.pieces, sorted({*INNER_CENTRES, square}))
        self.tracker.on_sense(square, self.history.sense_result(turn))
        self.guard()
        live, held = self.locate(truth)
        if self.observe is not None:
            self.observe(turn, "sense", self.tracker)
        return scores, self.tracker.live_size, held, held and not live

    def own_move(self, turn: Turn) -> tuple[int | None, bool | None]:
        """Belief size after our move and whether the truth is held (None: no move, or a king capture,
        after which the game is over and castling bookkeeping differs: not judged)."""
        if not self.history.has_move(turn):
            return None, None
        self.tracker.on_own_move(*self.history.move_result(turn))
        after = chess.Board(self.history.truth_fen_after_move(turn))
        if after.king(not turn.color) is None:
            return self.tracker.live_size, None
        _, held = self.locate(after)
        return self.tracker.live_size, held

    def locate(self, truth: chess.Board) -> tuple[bool, bool]:
        """Whether ``truth`` (the true board now) is live, and whether it is held: live, or in a stash
        as the true board was when that stash was made (each stash is tagged with its observation
        count, and ``truth_at`` keeps the true board after every count)."""
        self.truth_at[len(self.tracker.observations)] = truth
        if self.tracker.contains(truth):
            return True, True
        stashed = any(self.tracker.stash_contains(i, self.truth_at[i]) for i in self.tracker.stash_indices)
        return False, stashed
