"""The belief tracker: every board the opponent could have, updated by one player's observations.

The rows are :mod:`rbc_bot.belief_rows`, the operations on them :mod:`rbc_bot.belief_ops`, what each
observation means for them :mod:`rbc_bot.belief_observations`, the stash :mod:`rbc_bot.belief_stash`.
This module decides which rows each observation is applied to. When the set grows past ``cap`` it is
uniformly sampled down and the rest is stashed, tagged with the number of observations it has seen.
When an observation contradicts every live board, the EARLIEST stash is re-simulated through all later
observations (the seed design's choice, to amortise recovery). Two safety valves give up the guarantee
that live plus stash hold the truth, each logged and counted: a memory bound on the stash and a time
bound on recovery; past either, the belief is rebuilt from the last live set.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import chess
import numpy as np

from rbc_bot import belief_observations as observe
from rbc_bot.belief_observations import (
    Observation,
    OpponentMove,
    OwnMove,
    apply_observation,
    apply_weighted,
    force_observation,
    pieces_after,
)
from rbc_bot.belief_ops import partition_counts
from rbc_bot.belief_rows import N_CODES as N_CODES  # re-exported: rbc_bot.sense imports it from here
from rbc_bot.belief_rows import decode, encode, row_in
from rbc_bot.belief_rows import piece_code as piece_code  # re-exported: rbc_bot.bot imports it from here
from rbc_bot.belief_stash import Stash, StashStore
from rbc_bot.belief_weights import normalized
from rbc_bot.config import BeliefConfig

log = logging.getLogger(__name__)


@dataclass
class TrackerStats:
    samplings: int = 0
    recoveries: int = 0
    stashes_exhausted: int = 0
    rebuilds: int = 0
    boards_stashed: int = 0
    boards_dropped: int = 0
    recoveries_timed_out: int = 0
    failed_observations: int = 0  # exact updates that raised (then forced onto the live boards)
    history: list[tuple[str, int, int]] = field(default_factory=list)  # (observation, live, stashed)


class BeliefTracker:
    """The boards one player believes possible, updated by that player's observations.

    Settings by keyword, or all at once as a :class:`~rbc_bot.config.BeliefConfig` (``config``; its
    ``max_cap`` is the cap): ``cap`` None never samples; ``seed`` makes sampling reproducible;
    ``max_stashed`` bounds the stash (None: unbounded); after an opponent move up to cap x
    ``expansion_slack`` boards stay live, so that the sample is drawn after the sense has cut the set.
    The old positional form ``(color, board, cap, seed, max_stashed, expansion_slack)`` still works,
    with a DeprecationWarning. An observation that raises leaves the tracker as it was before it.
    """

    def __init__(
        self,
        color: chess.Color,
        board: chess.Board | None = None,
        *,
        config: BeliefConfig | None = None,
        cap: int | None = None,
        seed: int = 0,
        max_stashed: int | None = None,
        expansion_slack: int = 1,
    ) -> None:
        if config is not None:
            if (cap, seed, max_stashed, expansion_slack) != (None, 0, None, 1):
                raise TypeError("pass BeliefTracker either config or the separate settings, not both")
            cap, seed, max_stashed = config.max_cap, config.seed, config.max_stashed
            expansion_slack = config.expansion_slack
        self.carry_weights = config is not None and config.carry_weights
        if cap is not None and cap < 1:
            raise ValueError(f"belief cap must be >= 1 or None, not {cap}")
        if expansion_slack < 1:
            raise ValueError(f"expansion slack must be >= 1, not {expansion_slack}")
        start = chess.Board() if board is None else board
        self.color = color
        self.cap = cap
        self.max_stashed = max_stashed
        self.expansion_slack = expansion_slack
        self.recovery_seconds: float | None = None  # time bound per observation (the clock sets it)
        self.rng = np.random.default_rng(seed)
        self.rows = encode(start)[None, :]
        self.log_weights = np.zeros(1)  # with carry_weights: each row's (rbc_bot.belief_weights)
        self._lookup: tuple[np.ndarray, dict[bytes, float]] | None = None
        self._stash = StashStore()
        self.observations: list[Observation] = []
        self.to_move: chess.Color = start.turn
        self.fullmove = start.fullmove_number
        self.stats = TrackerStats()
        ours = self.rows[0, :64].copy()
        mine = (ours >= 1) & (ours <= 6) if color == chess.WHITE else ours >= 7
        ours[~mine] = 0
        self._ours = ours  # our own pieces, known exactly

    # --- sizes and views -------------------------------------------------------------------------
    @property
    def live_size(self) -> int:
        return len(self.rows)

    @property
    def stashed_size(self) -> int:
        return self._stash.size

    @property
    def stashes(self) -> list[Stash]:
        """The stashes, earliest first (one per observation index)."""
        return self._stash.stashes()

    @property
    def stash_indices(self) -> list[int]:
        """The observation indices that have a stash, earliest first: :attr:`stashes` without copying
        the boards, for checking a stash's contents with :meth:`stash_contains`."""
        return self._stash.indices()

    @property
    def recoveries(self) -> int:
        return self.stats.recoveries

    @property
    def ours(self) -> np.ndarray:
        """Our own pieces as a row of 64 piece codes (a copy)."""
        return self._ours.copy()

    @property
    def pieces(self) -> np.ndarray:
        """Live boards' piece codes, N x 64 (a view: do not modify)."""
        return self.rows[:, :64]

    def partition_counts(self) -> np.ndarray:
        return partition_counts(self.rows)

    def weights(self) -> np.ndarray:
        """Each live row's weight, mean 1: alike unless ``carry_weights`` (rbc_bot.belief_weights)."""
        if not self.carry_weights:
            return np.ones(len(self.rows))
        return normalized(self.log_weights)

    def weights_of(self, rows: np.ndarray) -> np.ndarray:
        """The weights of ``rows`` drawn from the live ones (1 for a row that is not live)."""
        if not self.carry_weights:
            return np.ones(len(rows))
        if self._lookup is None or self._lookup[0] is not self.rows:
            keys = [row.tobytes() for row in self.rows]
            self._lookup = (self.rows, dict(zip(keys, self.weights().tolist(), strict=True)))
        table = self._lookup[1]
        return np.array([table.get(row.tobytes(), 1.0) for row in rows], dtype=np.float64)

    def weights_of_boards(self, boards: Sequence[chess.Board]) -> np.ndarray:
        """:meth:`weights_of` for boards."""
        return self.weights_of(np.stack([encode(board) for board in boards]) if boards else self.rows[:0])

    def boards(self) -> list[chess.Board]:
        return decode(self.rows, self.to_move, self.fullmove)

    def __iter__(self) -> Iterator[chess.Board]:
        return iter(self.boards())

    def __len__(self) -> int:
        return self.live_size

    def sample(self, k: int, rng: np.random.Generator | None = None) -> list[chess.Board]:
        """A uniform sample of ``k`` live boards (all of them when there are fewer)."""
        if k >= len(self.rows):
            return self.boards()
        pick = (rng or self.rng).choice(len(self.rows), size=k, replace=False)
        return decode(self.rows[np.sort(pick)], self.to_move, self.fullmove)

    def contains(self, board: chess.Board) -> bool:
        return row_in(encode(board), self.rows)

    def stash_contains(self, index: int, board: chess.Board) -> bool:
        """Whether a stash tagged ``index`` holds ``board`` (the truth after ``index`` observations)."""
        return self._stash.contains(index, encode(board))

    # --- observations ----------------------------------------------------------------------------
    def on_opponent_move(self, capture_square: int | None) -> None:
        """The opponent moved and captured on ``capture_square`` (None: no capture).

        A no-op when the opponent has not moved yet (White's first turn).
        """
        if self.to_move == self.color:
            if capture_square is not None:
                raise ValueError("a capture was reported although the opponent has not moved yet")
            return
        self._observe(observe.opponent_move(capture_square, self._ours))

    def on_sense(self, square: int | None, result: Sequence[tuple[int, chess.Piece | None]]) -> None:
        """We sensed at ``square`` and saw ``result`` ((square, piece or None) for each square)."""
        if square is None:
            if result:
                raise ValueError("a sense result was given for no sense")
            return
        self._observe(observe.sense(square, result))

    def on_own_move(
        self, requested: chess.Move | None, taken: chess.Move | None, capture_square: int | None
    ) -> None:
        """Our ``requested`` move was played as ``taken`` and captured on ``capture_square``."""
        self._observe(observe.own_move(requested, taken, capture_square))

    # --- internals -------------------------------------------------------------------------------
    def _observe(self, observation: Observation) -> None:
        """Apply ``observation`` as one transaction (our pieces updated first), so that
        observations, side to move, our pieces, the stash tags and the random draws stay in step.

        If the exact update raises, the state is put back and the observation is forced onto the live
        boards instead (logged, counted as a failed observation and a rebuild): the tracker stays in
        step with the game. If that raises too, the state is put back and the error raised.
        """
        saved = (
            self.rows, len(self.observations), self.to_move, self.fullmove, self._ours, self._stash.copy(),
            dataclasses.replace(self.stats, history=list(self.stats.history)), self.rng.bit_generator.state,
            self.log_weights,
        )  # fmt: skip

        def restore() -> None:  # copies again: the forced attempt works on the restored state
            (self.rows, count, self.to_move, self.fullmove, self._ours, stash, stats, rng_state,
             self.log_weights) = saved  # fmt: skip
            self._stash, self.rng.bit_generator.state = stash.copy(), rng_state
            self.stats = dataclasses.replace(stats, history=list(stats.history))
            del self.observations[count:]

        ours = pieces_after(observation, self._ours, self.color)
        try:
            self._ours = ours
            self._update(observation, forced=False)
            return
        except Exception:
            restore()
            log.exception("belief: %s failed; forcing it onto the live boards", observation)
        except BaseException:
            restore()
            raise
        try:
            self._ours = ours
            self.stats.failed_observations += 1
            self._update(observation, forced=True)
        except BaseException:
            restore()
            raise

    def _update(self, observation: Observation, forced: bool) -> None:
        previous = self.rows
        self.observations.append(observation)
        now = len(self.observations)
        if forced:
            self.rows = self._rebuild(previous, observation)
            self.log_weights = np.zeros(len(self.rows))
            self._advance(observation)
            return
        if self.carry_weights:
            rows, weights = apply_weighted(self.rows, self.log_weights, observation, self.color)
        else:
            rows = apply_observation(self.rows, observation, self.color)
            weights = np.zeros(len(rows))
        rows, weights = self._capped(rows, now, weights)
        deadline = None if self.recovery_seconds is None else time.perf_counter() + self.recovery_seconds
        while len(rows) == 0 and self._stash:
            recovered = None if _past(deadline) else self._recover(now, deadline)
            if recovered is None:
                self.stats.recoveries_timed_out += 1
                log.warning(
                    "belief: recovery out of time (%.1f s); rebuilding instead", self.recovery_seconds
                )
                break
            rows, weights = recovered, np.zeros(len(recovered))  # recovered boards carry no history: alike
        if len(rows) == 0:
            self.stats.stashes_exhausted += 1
            rows = self._rebuild(previous, observation)
            weights = np.zeros(len(rows))  # nor do rebuilt ones
        self.rows, self.log_weights = rows, weights
        self._advance(observation)

    def _advance(self, observation: Observation) -> None:
        """Side to move, move number and the size history after ``observation``."""
        if isinstance(observation, OpponentMove | OwnMove):
            mover = (not self.color) if isinstance(observation, OpponentMove) else self.color
            if mover == chess.BLACK:
                self.fullmove += 1
            self.to_move = not mover
        self.stats.history.append((type(observation).__name__, self.live_size, self.stashed_size))

    def _capped(self, rows: np.ndarray, index: int, log_weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Sample ``rows`` down to the cap (times the slack after an opponent move), stashing the rest
        tagged with ``index``. The rows' ``log_weights`` follow them: the sample is uniform
        and the boards kept keep their weights."""
        if self.cap is None:
            return rows, log_weights
        limit = self.cap
        if isinstance(self.observations[index - 1], OpponentMove):
            limit *= self.expansion_slack
        if len(rows) <= limit:
            return rows, log_weights
        order = self.rng.permutation(len(rows))
        keep, rest = np.sort(order[:limit]), order[limit:]
        self._stash.add(index, rows[rest])
        self.stats.boards_dropped += self._stash.bound(self.max_stashed)
        self.stats.samplings += 1
        self.stats.boards_stashed += len(rest)
        return rows[keep], log_weights[keep]

    def _recover(self, now: int, deadline: float | None = None) -> np.ndarray | None:
        """Re-simulate the earliest stash through every later observation; None when out of time.

        Past ``deadline`` the boards in flight are stashed where they are, so nothing is lost.
        """
        start = self._stash.earliest
        batch = None if self.cap is None else max(self.cap, RECOVERY_BATCH)
        rows = self._stash.take(start, batch, self.rng, deadline)
        if rows is None:
            return None
        self.stats.recoveries += 1
        log.info("belief: all live boards contradicted; recovering %d boards stashed at observation %d of %d",
                 len(rows), start, now)  # fmt: skip
        for index in range(start, now):
            if _past(deadline):
                self._stash.add(index, rows)
                return None
            rows = apply_observation(rows, self.observations[index], self.color)
            rows, _ = self._capped(rows, index + 1, np.zeros(len(rows)))
            if len(rows) == 0:
                break
        return rows

    def _rebuild(self, previous: np.ndarray, observation: Observation) -> np.ndarray:
        """Every board and stash contradicted (or out of time): force the latest observation onto the
        last live set (see :func:`~rbc_bot.belief_ops.force_observation`)."""
        self.stats.rebuilds += 1
        log.error("belief: every board and stash contradicted by %s; rebuilding from %d boards",
                  observation, len(previous))  # fmt: skip
        return force_observation(previous, observation, self.color, self._ours)


RECOVERY_BATCH = 2_048
"""Fewest stashed boards one recovery re-simulates (the cap, if larger). Each observation costs a
fixed overhead per call besides its cost per board, so a small cap re-simulated a few boards at a
time spends most of a recovery in that overhead; survivors beyond the cap are stashed again by
``_capped``, as in any observation, so the larger draw loses nothing and stays uniform."""


def _past(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() > deadline
