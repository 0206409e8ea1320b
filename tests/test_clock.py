"""The clock never budgets past the time left minus its margin, and simulated games with untimed work
never flag."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from rbc_bot.clock import Clock, TurnBudget, panic_move_config
from rbc_bot.config import BeliefConfig, BotConfig, ClockConfig, MoveConfig, validate

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


# The model of a turn. Untimed work: the belief expansion (before the sense, on our clock, sized by the
# cap the previous turn's budget set) on a machine twice as slow as Clock.belief_cap assumes, the Player
# calls' overhead, and every fifth turn a recovery that runs to its time bound (the bot's
# max(0.2 s, budget / 3)). Timed work overshoots its budget by 20 %.
SLOWDOWN = 2.0
OVERSHOOT = 1.2
OVERHEAD = 0.03
RECOVERY_EVERY = 5
PARENTS_PER_SECOND = 15_000  # Clock.belief_cap's expansion speed


def simulate(
    clock: Clock,
    seconds: float,
    increment: float,
    turns: int,
    share: Callable[[int], float] = lambda _: OVERSHOOT,
) -> tuple[int | None, float]:
    """(the turn our flag falls, or None; the least time left after a move), the increment added after
    each move as reconchess does; a turn's timed work spends ``share(turn)`` of its budget."""
    left = lowest = seconds
    cap = BeliefConfig().max_cap  # the first turn expands a full-size belief
    for turn in range(turns):
        expansion = cap / PARENTS_PER_SECOND * SLOWDOWN
        budget = clock.budget(left - expansion)  # the bot reads the clock after the expansion
        timed = budget.total * share(turn)
        used = expansion + timed + OVERHEAD
        if turn % RECOVERY_EVERY == 0:
            used += max(0.2, budget.total / 3)
        cap = Clock.belief_cap(BeliefConfig(), budget)
        left -= used
        if left <= 0:
            return turn, lowest
        lowest = min(lowest, left)
        left += increment
        clock.end_turn(budget, timed)
    return None, lowest


@pytest.mark.parametrize(
    ("seconds", "increment", "turns"),
    [
        *[(seconds, increment, 150) for seconds, increment in CLOCKS if increment > 0],
        (20.0, 2.0, 150),
        *[(seconds, 0.0, 80) for seconds in (60.0, 30.0, 15.0)],
    ],
)
def test_simulated_game_with_untimed_work_never_flags(seconds: float, increment: float, turns: int) -> None:
    """Games of ``turns`` turns (no-increment games: 160 plies, longer than most RBC games) whose turns
    cost more than the budget (the model above) never flag, and the clock is actually used."""
    flagged, lowest = simulate(Clock(ClockConfig(), increment), seconds, increment, turns)
    assert flagged is None, f"flagged at turn {flagged}"
    if seconds >= 60:
        assert lowest < seconds / 2  # the clock is used, not hoarded


@pytest.mark.parametrize(("seconds", "increment"), [(900.0, 5.0), (120.0, 5.0), (60.0, 2.0), (60.0, 0.0)])
def test_the_model_flags_a_clock_without_margin_or_panic(seconds: float, increment: float) -> None:
    """The simulation can fail: a clock that keeps no margin, never panics and plans for 20 turns spends
    its time before the untimed work is paid for."""
    naive = ClockConfig(margin=0.0, panic=0.0, min_turns_left=1, expected_turns=20)
    flagged, _ = simulate(Clock(naive, increment), seconds, increment, 150)
    assert flagged is not None


def test_the_spend_target_stretches_budgets_by_the_share_spent() -> None:
    """Turns that spend half their budgets make the next 0.9 / 0.5 = 1.8 times the plan; turns that
    spend nothing at most twice; turns that spend it all never shrink it. Panic turns and tiny budgets
    teach nothing, and without the setting nothing changes."""
    plan = Clock(ClockConfig(), 5.0).budget(100.0)
    clock = Clock(ClockConfig(spend_target=0.9), 5.0)
    assert clock.budget(100.0) == plan, "nothing learned yet"
    clock.end_turn(plan, 0.5 * plan.total)
    assert clock.stretch() == pytest.approx(1.8)
    clock.turns_played = 0
    assert clock.budget(100.0).total == pytest.approx(1.8 * plan.total)
    for _ in range(20):
        clock.end_turn(plan, 0.0)
    assert clock.stretch() == Clock.MAX_STRETCH
    for _ in range(40):
        clock.end_turn(plan, 2 * plan.total)
    assert clock.stretch() == 1.0
    learned = clock.spent_share
    clock.end_turn(Clock(ClockConfig(), 5.0).budget(15.0), 0.0)  # panic
    clock.end_turn(TurnBudget(0.5, 0.1, 0.4, False), 0.0)  # too small to learn from
    clock.end_turn()  # a turn without the figures (a move that failed)
    assert clock.spent_share == learned
    off = Clock(ClockConfig(), 5.0)
    off.end_turn(plan, 0.1)
    assert off.stretch() == 1.0


@pytest.mark.parametrize(("seconds", "increment"), [(900.0, 5.0), (300.0, 5.0), (120.0, 5.0), (60.0, 2.0)])
def test_the_spend_target_uses_more_of_the_clock_and_never_flags(seconds: float, increment: float) -> None:
    """Turns that spend 40 % of their budgets, and every third 120 % (a deepening that stops early,
    and one that overruns), with the untimed work of the model above: with the spend target the game
    comes closer to the end of the clock, and never past it."""

    def share(turn: int) -> float:
        return OVERSHOOT if turn % 3 == 0 else 0.4

    for turns in (40, 150):
        flagged, lowest = simulate(
            Clock(ClockConfig(spend_target=0.9), increment), seconds, increment, turns, share
        )
        assert flagged is None, f"flagged at turn {flagged}"
        _, lowest_off = simulate(Clock(ClockConfig(), increment), seconds, increment, turns, share)
        assert lowest < lowest_off


def test_panic_move_config_derives_from_the_users() -> None:
    """The default settings give the panic selector the bot has always used; the user's other settings
    (aggregate, bonuses) are kept, and limits below the panic ones are never raised."""
    assert panic_move_config(MoveConfig()) == MoveConfig(
        top_k=1, max_candidates=4, max_boards=8, min_boards=2, consider_pass=True
    )
    user = MoveConfig(aggregate="mix", mix_min_weight=0.3, quiet_check_bonus=0.0, max_boards=5, min_boards=5)
    panic = panic_move_config(user)
    assert (panic.aggregate, panic.mix_min_weight, panic.quiet_check_bonus) == ("mix", 0.3, 0.0)
    assert (panic.top_k, panic.max_candidates, panic.max_boards, panic.min_boards) == (1, 4, 5, 2)
    config = BotConfig(move=panic)
    validate(config)
    tiny = panic_move_config(MoveConfig(max_boards=1, min_boards=1, max_candidates=2))
    assert (tiny.max_boards, tiny.min_boards, tiny.max_candidates) == (1, 1, 2)
