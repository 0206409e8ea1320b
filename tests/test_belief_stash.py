"""Sampling and the stash: the boards kept are a uniform draw, and a contradicted belief is recovered
from the earliest stash first, within its time."""

from __future__ import annotations

import time

import chess
import numpy as np
import pytest
from belief_helpers import board_of, first_black_replies

from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_rows import encode
from rbc_bot.belief_stash import MERGE_SECONDS_PER_ROW, StashStore
from rbc_bot.rules import sense_window

CHI2_20_DOF_P001 = 45.315  # the chi-square distribution's 0.999 quantile at 20 degrees of freedom


def _chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / len(counts)
    return float(((counts - expected) ** 2 / expected).sum())


def test_sampling_is_uniform_over_many_draws() -> None:
    """3,000 seeded samples of 5 of the 21 children: each child is kept about 3000 x 5/21 times (a
    chi-square test over the 21 counts, at the 0.1 % level), while a sampler that favours the first rows
    is rejected by the same test."""
    children = {r.tobytes(): i for i, r in enumerate(first_black_replies(0, cap=None).rows)}
    assert len(children) == 21
    counts = np.zeros(21)
    first_rows = np.zeros(21)
    for seed in range(3000):
        tracker = first_black_replies(seed)
        assert tracker.live_size == 5 and tracker.stashed_size == 16
        for row in tracker.rows:
            counts[children[row.tobytes()]] += 1
        everything = np.concatenate([tracker.rows, tracker.stashes[0].rows])
        biased = sorted(everything.tolist())[:5]  # the same five children every time
        for row in biased:
            first_rows[children[np.asarray(row, dtype=np.int8).tobytes()]] += 1
    assert counts.sum() == 15_000
    assert _chi_square(counts) < CHI2_20_DOF_P001, counts
    assert _chi_square(first_rows) > CHI2_20_DOF_P001


def test_sampling_is_reproducible() -> None:
    picks = [{r.tobytes() for r in first_black_replies(seed).rows} for seed in (1, 1, 2)]
    assert picks[0] == picks[1] and picks[0] != picks[2]


def test_the_earliest_of_several_stashes_is_resimulated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three stashes (after each of Black's three replies, cap 1); the truth's first reply is one of
    the boards sampled away. A sense that contradicts the live board re-simulates the EARLIEST stash
    first, through every later observation (so the later stashes receive its sampled-away children;
    a recovery draws a whole small stash, so an emptied one is followed by the next earliest), and the
    truth is then live or stashed at its index."""
    tracker = BeliefTracker(chess.WHITE, cap=1, seed=3)
    truth = chess.Board()
    truth_at = {0: truth.copy()}
    taken: list[int] = []
    original_take = StashStore.take

    def spy(self: StashStore, index: int, *args: object, **kwargs: object) -> np.ndarray | None:
        taken.append(index)
        return original_take(self, index, *args, **kwargs)  # type: ignore[arg-type]

    for ours, theirs in (("e2e4", None), ("d2d4", None), ("g1f3", None)):
        move = chess.Move.from_uci(ours)
        tracker.on_own_move(move, move, None)
        truth.push(move)
        truth_at[len(tracker.observations)] = truth.copy()
        tracker.on_opponent_move(None)
        if len(tracker.observations) == 2:  # the truth's first reply is one of the boards sampled away
            theirs = "g8f6"
            child = truth.copy()
            child.push_uci(theirs)
            assert not tracker.contains(child) and tracker.stash_contains(2, child)
        truth.push(chess.Move.from_uci(theirs) if theirs else chess.Move.null())
        truth_at[len(tracker.observations)] = truth.copy()
    assert [s.index for s in tracker.stashes] == [2, 4, 6]
    sizes = {s.index: len(s.rows) for s in tracker.stashes}
    window = [(sq, truth.piece_at(sq)) for sq in sense_window(chess.F7)]
    assert not tracker.contains(truth)
    monkeypatch.setattr(StashStore, "take", spy)
    tracker.on_sense(chess.F7, window)
    assert taken and taken[0] == 2 and taken == sorted(taken), taken
    later = {s.index: len(s.rows) for s in tracker.stashes}
    assert 2 not in later and later.get(6, 0) > sizes[6], (sizes, later)
    assert tracker.stats.rebuilds == 0
    truth_at[7] = truth
    assert tracker.contains(truth) or any(
        tracker.stash_contains(s.index, truth_at[s.index]) for s in tracker.stashes
    )


def test_stash_memory_bound_drops_oldest_first() -> None:
    tracker = BeliefTracker(chess.WHITE, cap=3, seed=0, max_stashed=40)
    for uci in ["e2e4", "d2d4", "g1f3"]:
        move = chess.Move.from_uci(uci)
        tracker.on_own_move(move, move, None)
        tracker.on_opponent_move(None)
    assert tracker.stats.boards_dropped > 0
    assert [s.index for s in tracker.stashes] == [6]  # only the newest stash is left
    assert tracker.live_size == 3


def test_recovery_out_of_time_keeps_the_stash_and_rebuilds() -> None:
    """With no time for recovery the tracker rebuilds at once, and keeps the stashed boards."""
    tracker = BeliefTracker(chess.WHITE, cap=1, seed=0)
    tracker.recovery_seconds = 0.0
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    stashed = tracker.stashed_size
    live = tracker.rows[0].copy()
    truth = chess.Board()
    truth.push_uci("e2e4")
    truth.push_uci("g8f6")
    seen = [(sq, truth.piece_at(sq)) for sq in sense_window(chess.G7)]
    if (tracker.rows[:, [sq for sq, _ in seen]] == [encode(truth)[sq] for sq, _ in seen]).all():
        pytest.skip("the sampled board already fits the sense")
    tracker.on_sense(chess.G7, seen)
    assert tracker.stats.recoveries_timed_out == 1 and tracker.stats.rebuilds == 1
    assert tracker.stashed_size == stashed  # nothing thrown away
    assert tracker.live_size == 1 and tracker.rows[0].tobytes() != live.tobytes()


def test_recovery_does_not_start_a_merge_past_its_deadline() -> None:
    """A stash of three million boards in two blocks takes seconds to merge (deduplicate, shuffle). With
    0.3 s for recovery the merge is not started: the tracker rebuilds at once and keeps the stash."""
    tracker = first_black_replies(seed=0, cap=1)
    rng = np.random.default_rng(0)
    for _ in range(2):
        tracker._stash.add(2, rng.integers(0, 13, size=(1_500_000, 66), dtype=np.int8))
    stashed = tracker.stashed_size
    assert stashed * MERGE_SECONDS_PER_ROW > 1.0
    tracker.recovery_seconds = 0.3
    live = board_of(tracker.rows[0])
    square = chess.E6
    # Every square of the window shown the other way round from the live board: it contradicts it.
    seen = [
        (sq, None if live.piece_at(sq) else chess.Piece(chess.PAWN, chess.BLACK))
        for sq in sense_window(square)
    ]
    started = time.perf_counter()
    tracker.on_sense(square, seen)
    elapsed = time.perf_counter() - started
    assert tracker.stats.recoveries_timed_out == 1 and tracker.stats.rebuilds == 1
    assert tracker.recoveries == 0  # no recovery was started
    assert tracker.stashed_size == stashed
    assert elapsed < 1.0
