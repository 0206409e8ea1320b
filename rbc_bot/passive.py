"""The passing-opponent watch: the boards the game would be on if the opponent had passed since some turn.

Some bots stop moving (AttackerBot passes for good once its rush fails). The belief cannot tell: every
opponent turn multiplies each board by its ~30 moves, the live boards are sampled down from hundreds of
thousands, and the move choice then guards against pieces that never moved. The watch keeps, beside
the belief, the boards on which the opponent passed on each turn since they were taken: every sense and
every move result filters them as it filters the belief. While they survive, each sense that could have
caught a moved piece and did not is one more piece of evidence; after enough of them on few boards, the
move choice can play on those boards alone (``move.passive_senses``).

A watch that loses its last board starts again from the belief's boards at the next opponent turn, if
there are few enough of them to be worth watching.
"""

from __future__ import annotations

from collections.abc import Sequence

import chess
import numpy as np

from rbc_bot import belief_observations as observe
from rbc_bot.belief_ops import apply_one_move

START_BOARDS = 1_000  # most belief boards a watch starts from: past that, surviving a sense says little


class PassiveWatch:
    """The boards consistent with an opponent that has passed every turn since they were taken."""

    def __init__(self, color: chess.Color, start_boards: int = START_BOARDS) -> None:
        self.color = color
        self.start_boards = start_boards  # most belief boards a new watch starts from
        self.rows: np.ndarray | None = None
        self.senses_survived = 0  # senses since the watch started that found every square as it says

    def holds(self, min_senses: int, max_boards: int) -> np.ndarray | None:
        """The watched boards, if ``min_senses`` senses in a row have found them as if the opponent only
        passed and there are at most ``max_boards`` of them; else None (always, if ``min_senses`` is 0)."""
        if self.rows is None or not 0 < min_senses <= self.senses_survived or len(self.rows) > max_boards:
            return None
        return self.rows

    def on_opponent_move(self, capture_square: int | None, belief_rows: np.ndarray) -> None:
        """The opponent's turn ended (``belief_rows``: our belief before it). A capture is no pass."""
        if capture_square is not None:
            self._drop()
            return
        if self.rows is None:
            if len(belief_rows) == 0 or len(belief_rows) > self.start_boards:
                return
            self.rows = belief_rows.copy()
        self.rows = apply_one_move(self.rows, None, not self.color)

    def on_sense(self, square: int | None, result: Sequence[tuple[int, chess.Piece | None]]) -> None:
        if self.rows is None or square is None:
            return
        self._keep(observe.apply_observation(self.rows, observe.sense(square, result), self.color))
        if self.rows is not None:
            self.senses_survived += 1

    def on_own_move(
        self, requested: chess.Move | None, taken: chess.Move | None, capture_square: int | None
    ) -> None:
        if self.rows is None:
            return
        move = observe.own_move(requested, taken, capture_square)
        self._keep(observe.apply_observation(self.rows, move, self.color))

    def _keep(self, rows: np.ndarray) -> None:
        if len(rows) == 0:
            self._drop()
        else:
            self.rows = rows

    def _drop(self) -> None:
        self.rows = None
        self.senses_survived = 0
