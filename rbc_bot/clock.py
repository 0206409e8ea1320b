"""Time management: how much of the clock a turn may spend, and how much work fits in it.

A turn's budget is the time left (minus a hard margin) spread over the turns still expected, plus most
of the increment; it is split between sensing and moving. Below the panic threshold every phase uses
its fastest fallback (the move selector: :func:`panic_move_config` of the user's settings), so the bot
never loses on time.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from rbc_bot.config import BeliefConfig, ClockConfig, MoveConfig

PANIC_WORK = {"top_k": 1, "max_candidates": 4, "max_boards": 8, "min_boards": 2}
"""The move selector's work in panic: one engine move per board, four candidates, at most 8 boards."""


def panic_move_config(config: MoveConfig) -> MoveConfig:
    """The user's move configuration with the work cut to :data:`PANIC_WORK` (never raised above the
    user's own limits); every other setting (aggregate, bonuses, the pass) is the user's."""
    max_boards = min(config.max_boards, PANIC_WORK["max_boards"])
    return dataclasses.replace(
        config,
        top_k=min(config.top_k, PANIC_WORK["top_k"]),
        max_candidates=min(config.max_candidates, PANIC_WORK["max_candidates"]),
        max_boards=max_boards,
        min_boards=min(config.min_boards, PANIC_WORK["min_boards"], max_boards),
    )


@dataclass(frozen=True)
class TurnBudget:
    total: float  # seconds this turn may use
    sense: float
    move: float
    panic: bool  # fastest fallbacks only


class Clock:
    """Budgets for one game: call :meth:`budget` at the start of each turn with the seconds left."""

    MAX_STRETCH = 2.0  # budgets grow at most this much for the spend target
    SPENT_SMOOTHING = 0.3  # weight of the last turn in the running share of budgets spent
    LEAST_LEARNED = 1.0  # turns with smaller budgets (or in panic) teach nothing of the share spent

    def __init__(self, config: ClockConfig, increment: float = 5.0) -> None:
        self.config = config
        self.increment = increment
        self.turns_played = 0
        self.spent_share: float | None = None  # running share of their budgets the turns spent

    def budget(self, seconds_left: float) -> TurnBudget:
        c = self.config
        spendable = max(0.0, seconds_left - c.margin)
        turns_left = max(c.min_turns_left, c.expected_turns - self.turns_played)
        total = (spendable / turns_left + c.increment_share * self.increment) * self.stretch()
        total = min(total, c.max_turn, spendable)
        panic = seconds_left <= c.panic or total < 0.3
        if panic:
            total = min(total, max(0.0, seconds_left - 1.0) * 0.05)
        sense = total * c.sense_share
        return TurnBudget(total=total, sense=sense, move=total - sense, panic=panic)

    def stretch(self) -> float:
        """How much larger than planned budgets are: ``spend_target`` over the share of their budgets
        the recent turns spent, between 1 and :attr:`MAX_STRETCH`. Why: the move's deepening stops
        when the next ply is predicted not to fit, so a turn spends a half to two thirds of its budget
        and a plan of the whole clock leaves much of it unused; the stretch makes the plan what is spent."""
        if not self.config.spend_target or self.spent_share is None:
            return 1.0
        return min(self.MAX_STRETCH, max(1.0, self.config.spend_target / max(self.spent_share, 1e-6)))

    def end_turn(self, budget: TurnBudget | None = None, spent: float | None = None) -> None:
        """Count the turn; with its ``budget`` and the seconds it ``spent``, learn the share spent."""
        self.turns_played += 1
        if budget is None or spent is None or budget.panic or budget.total < self.LEAST_LEARNED:
            return
        share = min(1.0, spent / budget.total)
        previous = share if self.spent_share is None else self.spent_share
        self.spent_share = previous + self.SPENT_SMOOTHING * (share - previous)

    @staticmethod
    def belief_cap(config: BeliefConfig, budget: TurnBudget) -> int:
        """Live boards to keep: expansion costs about 60 µs per parent (benchmarks/belief.py: ~30 children
        each at ~0.7-0.8 M children/s), and may take about a third of the turn."""
        parents_per_second = 15_000
        cap = int(budget.total / 3 * parents_per_second)
        return max(config.min_cap, min(config.max_cap, cap))
