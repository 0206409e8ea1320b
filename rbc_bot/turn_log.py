"""The turn log: one JSON line per turn of what the bot believed, chose and spent.

``benchmarks/turn_logs.py``, ``analyze`` and the turn screens read these lines; the bot only fills them.
Keeping the record apart from ``RbcBot`` leaves the Player to wire the parts.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import chess

if TYPE_CHECKING:
    from rbc_bot.belief import BeliefTracker
    from rbc_bot.move import MoveDecision
    from rbc_bot.scorer import Scorer

SHOWN_CANDIDATES = 12  # a turn's candidates kept in its line, best first


class TurnLog:
    """The record of the turn under way, written as one line when the turn ends (no file: kept only
    for ``RbcBot.turn_record``)."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.record: dict[str, Any] = {}

    def start_game(self) -> None:
        """An empty log for a new game."""
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_text("")

    def start_turn(self, turn: int, color: chess.Color) -> None:
        self.record = {"turn": turn, "color": chess.COLOR_NAMES[color], "belief": {}}

    def update(self, **fields: Any) -> None:
        self.record.update(fields)

    def count(self, key: str, amount: int) -> None:
        """Add ``amount`` to a count kept over the turn's observations (recoveries, say)."""
        self.record[key] = self.record.get(key, 0) + amount

    def belief(self, stage: str, tracker: BeliefTracker) -> None:
        """The live and stashed boards after ``stage`` (the opponent's move, the sense, our move)."""
        self.record["belief"][stage] = [tracker.live_size, tracker.stashed_size]

    def write(self) -> None:
        if self.path is None:
            return
        with self.path.open("a") as handle:
            handle.write(json.dumps(self.record) + "\n")


def move_fields(decision: MoveDecision, move: chess.Move | None, scorer: Scorer) -> dict[str, Any]:
    """What the turn log holds of a move decision: its reason, breadth, depth and best candidates, and
    what bounds the boards scored (the learned cost of a depth-1 search and the engine's fixed cost)."""
    return {
        "move_reason": decision.reason,
        "boards_scored": decision.boards_scored,
        "boards_widened": decision.widened,
        "evaluations": decision.evaluations,
        "depth": decision.depth,
        "threatened": decision.threatened,
        "candidates": [
            {
                "move": c.move.uci() if c.move else None,
                "worst": round(c.worst, 1),
                "mean": round(c.mean, 1),
                "standing": round(c.standing, 1),
                **({} if decision.probe_pay is None else {"probe_pay": round(decision.probe_pay[c.move], 1)}),
            }
            for c in decision.candidates[:SHOWN_CANDIDATES]
        ],
        "chosen_move": move.uci() if move else None,
        "fixed_cost_ms": None if scorer.fixed_cost is None else round(1000 * scorer.fixed_cost, 3),
        "eval_cost_ms": round(1000 * scorer.seconds_per_eval, 4),
    }
