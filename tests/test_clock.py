"""The clock never budgets past the time left minus its margin, and simulated games never flag."""

from __future__ import annotations

import pytest

from rbc_bot.clock import Clock
from rbc_bot.config import BeliefConfig, ClockConfig

CLOCKS = [(900.0, 5.0), (120.0, 5.0), (60.0, 2.0), (60.0, 0.0), (45.0, 2.0), (10.0, 0.0), (1.0, 0.0)]
SECONDS_LEFT = [
    0.0,
    0.05,
    0.5,
    1.0,
    2.0,
    5.0,
    9.9,
    10.0,
    10.5,
    15.0,
    19.9,
    20.0,
    20.1,
    30.0,
    59.0,
    120.0,
    900.0,
]


@pytest.mark.parametrize(("seconds", "increment"), CLOCKS)
@pytest.mark.parametrize("turns_played", [0, 10, 49, 80, 200])
def test_budget_never_passes_time_left_minus_margin(
    seconds: float, increment: float, turns_played: int
) -> None:
    config = ClockConfig()
    clock = Clock(config, increment)
    clock.turns_played = turns_played
    for left in [s for s in SECONDS_LEFT if s <= seconds + increment] + [seconds]:
        budget = clock.budget(left)
        assert 0.0 <= budget.total <= max(0.0, left - config.margin) + 1e-12, (left, budget)
        assert budget.total <= config.max_turn
        assert budget.sense >= 0 and budget.move >= 0
        assert budget.sense + budget.move == pytest.approx(budget.total)
        if left <= config.panic:
            assert budget.panic
        cap = Clock.belief_cap(BeliefConfig(), budget)
        assert BeliefConfig().min_cap <= cap <= BeliefConfig().max_cap


def test_budget_grows_with_time_left_and_panic_is_cheap() -> None:
    clock = Clock(ClockConfig(), 5.0)
    totals = [clock.budget(s).total for s in (25.0, 60.0, 300.0, 900.0)]
    assert totals == sorted(totals) and totals[0] < totals[-1]
    assert not clock.budget(900.0).panic
    panic = clock.budget(15.0)
    assert panic.panic and panic.total <= 0.05 * 14.0 + 1e-12


@pytest.mark.parametrize("margin", [0.0, 3.0, 10.0])
def test_budget_with_other_margins(margin: float) -> None:
    config = ClockConfig(margin=margin, panic=margin + 5)
    clock = Clock(config, 0.0)
    for left in SECONDS_LEFT:
        assert clock.budget(left).total <= max(0.0, left - margin) + 1e-12


@pytest.mark.parametrize(
    ("seconds", "increment"), [(60.0, 0.0), (900.0, 5.0), (120.0, 5.0), (45.0, 2.0), (10.0, 0.0)]
)
@pytest.mark.parametrize("overhead", [0.0, 0.02])
def test_simulated_game_never_flags(seconds: float, increment: float, overhead: float) -> None:
    """150 turns spending the whole budget plus a fixed overhead per turn (the Player calls, the game's
    own bookkeeping), the increment added after each move as reconchess does."""
    config = ClockConfig()
    clock = Clock(config, increment)
    left = seconds
    lowest = left
    for _ in range(150):
        budget = clock.budget(left)
        left -= budget.total + overhead
        assert left > 0, f"flagged at turn {clock.turns_played}"
        lowest = min(lowest, left)
        left += increment
        clock.end_turn()
    if overhead == 0.0 and seconds > config.margin:
        assert lowest >= config.margin - 1e-9  # the margin is never spent by the budget itself
    if seconds >= 60:
        assert lowest < seconds / 2  # and the clock is actually used, not hoarded
