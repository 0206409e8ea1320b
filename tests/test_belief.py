"""The belief tracker never loses the true board: checked after every observation of real games."""

from __future__ import annotations

import hashlib

import chess
import pytest
from belief_helpers import OPPONENTS, Observer, observe_game, run_games

from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_ops import filter_sense, partition_counts
from rbc_bot.config import BeliefConfig


@pytest.mark.parametrize("cap", [None, 64, 8])
def test_truth_always_held_against_reconchess_bots(cap: int | None) -> None:
    """20 games per cap, 60 in all: random/attacker x 2 colours x 4 seeds, trout x 2 colours x 2 seeds."""
    observers = run_games(cap, range(4), ["random", "attacker"], turns=12)
    observers += run_games(cap, range(2), ["trout"], turns=10)
    assert len(observers) == 20
    stats = [o.tracker.stats for o in observers]
    if cap is None:
        assert all(s.samplings == 0 and s.recoveries == 0 for s in stats)
        assert max(max(h[1] for h in s.history) for s in stats) > 1_000  # the belief really grew
    else:
        assert sum(s.samplings for s in stats) >= 20
        assert sum(s.recoveries for s in stats) >= 10
        assert sum(1 for s in stats if s.recoveries) >= 3


def test_truth_held_with_expansion_slack() -> None:
    """The sample drawn after the sense rather than after the opponent's move: the truth is still live
    or stashed at its index, the live set may exceed the cap only right after an opponent move, and on
    the same games (the true game does not depend on the tracker) the truth is live more often."""
    tight = run_games(16, range(3), ["random", "attacker"], turns=10)
    slack = run_games(16, range(3), ["random", "attacker"], turns=10, slack=8)
    live_rate = [sum(o.truth_live for o in run) / sum(o.checks for o in run) for run in (tight, slack)]
    assert sum(o.tracker.stats.samplings for o in slack) >= 10
    assert any(
        size > 16 for o in slack for kind, size, _ in o.tracker.stats.history if kind == "OpponentMove"
    )
    assert live_rate[1] > live_rate[0], live_rate


def test_truth_held_over_a_sample_of_the_long_games() -> None:
    """The long test's invariant on the part of its games that fits the default suite (78 s on this
    repository's 2-core machine with a match running beside it): its cap-64 games of 16 turns against
    RandomBot and AttackerBot, both colours, seeds 100-107 (32 games; TroutBot games are in the test
    above). Every observation is checked, as there."""
    observers = run_games(64, range(100, 108), ["random", "attacker"], turns=16)
    assert len(observers) == 32
    stats = [o.tracker.stats for o in observers]
    assert sum(s.samplings for s in stats) >= 100 and sum(s.recoveries for s in stats) >= 100


@pytest.mark.long
@pytest.mark.parametrize("cap", [None, 64, 8])
def test_truth_always_held_long(cap: int | None) -> None:
    """>= 200 games over the three caps: run with `pytest -m long`."""
    observers = run_games(cap, range(100, 116), ["random", "attacker"], turns=16)
    observers += run_games(cap, range(100, 102), ["trout"], turns=12)
    assert len(observers) == 68


def test_observation_shape_errors() -> None:
    tracker = BeliefTracker(chess.BLACK)
    with pytest.raises(ValueError, match="not on the board"):
        tracker.on_opponent_move(64)
    with pytest.raises(ValueError, match="none of our pieces"):
        tracker.on_opponent_move(chess.E4)
    tracker.on_opponent_move(None)
    with pytest.raises(ValueError, match="not its window"):
        tracker.on_sense(chess.E4, [(chess.A1, None)])
    with pytest.raises(ValueError, match="not on the board"):
        tracker.on_sense(99, [])
    with pytest.raises(ValueError, match="not taken"):
        tracker.on_own_move(chess.Move.from_uci("e7e5"), None, chess.E5)
    with pytest.raises(ValueError):
        BeliefTracker(chess.WHITE, cap=0)


def test_white_first_turn_is_not_an_opponent_move() -> None:
    tracker = BeliefTracker(chess.WHITE)
    tracker.on_opponent_move(None)
    assert tracker.live_size == 1 and not tracker.observations


def test_partition_counts_and_sense_filter() -> None:
    tracker = BeliefTracker(chess.WHITE)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    counts = partition_counts(tracker.rows)
    assert counts.shape == (64, 13) and (counts.sum(axis=1) == tracker.live_size).all()
    # On e7 the pawn stays in all but the e7 pawn moves (e6, e5).
    assert counts[chess.E7, 7] == tracker.live_size - 2
    kept = filter_sense(tracker.rows, [chess.E5], [7])
    assert len(kept) == 1


def _digest(observer: Observer) -> str:
    """A fingerprint of a tracker's whole course: sizes after every observation, final rows, stashes."""
    digest = hashlib.sha256()
    for entry in observer.tracker.stats.history:
        digest.update(repr(entry).encode())
    digest.update(observer.tracker.rows.tobytes())
    for stash in observer.tracker.stashes:
        digest.update(str(stash.index).encode())
        digest.update(stash.rows.tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(
    ("name", "color", "cap", "seed", "slack", "expected"),
    [
        ("random", chess.WHITE, 8, 1, 4, "a71a42a5edef0d9d"),  # 20 recoveries, 45 samplings
        ("attacker", chess.BLACK, 16, 2, 1, "4de38bf0dc75099c"),
        ("random", chess.BLACK, 32, 3, 20, "934f9033ad22fed4"),
    ],
)
def test_same_boards_and_draws_as_before_the_split(
    name: str, color: chess.Color, cap: int, seed: int, slack: int, expected: str
) -> None:
    """Seeded games give the tracker the same rows, stashes and sizes after every observation as the
    single-module tracker did (fingerprints taken from it, commit 4d1d408): the split changed no draw.
    The first game recovers, and its fingerprint is the one taken when recovery began to draw at least
    ``RECOVERY_BATCH`` stashed boards (the two games without recoveries kept theirs)."""
    assert _digest(observe_game(OPPONENTS[name], color, cap, seed, 12, slack)) == expected


def test_settings_by_keyword_or_config() -> None:
    config = BeliefConfig(max_cap=5, seed=1, max_stashed=1000, expansion_slack=2)
    by_config = BeliefTracker(chess.WHITE, config=config)
    by_keyword = BeliefTracker(chess.WHITE, cap=5, seed=1, max_stashed=1000, expansion_slack=2)
    with pytest.raises(TypeError):
        BeliefTracker(chess.WHITE, None, 5, 1, 1000, 2)  # type: ignore[misc]
    for tracker in (by_config, by_keyword):
        assert (tracker.cap, tracker.max_stashed, tracker.expansion_slack) == (5, 1000, 2)
        tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
        tracker.on_opponent_move(None)
    assert by_config.rows.tobytes() == by_keyword.rows.tobytes()
    with pytest.raises(TypeError, match="not both"):
        BeliefTracker(chess.WHITE, config=config, cap=5)
