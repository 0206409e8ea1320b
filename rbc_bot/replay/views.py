"""What one side believed at each turn, kept small: samples of its believed boards, a heat map of its
enemy's pieces, and the share of boards where its own king is attacked.

Why: judging a move against the belief, asking whether a sense changed the decision, and drawing the
belief in the board viewer all need the believed boards of that moment, but the belief can hold tens
of thousands of boards per turn. A uniform sample (own random stream, so the re-simulation itself is
unchanged) and per-square shares are enough for all three.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import chess
import numpy as np
from reconchess import Turn

ATTACK_SAMPLE = 1_000  # boards checked for an attacked king (a share: a sample is enough)


@dataclass
class TurnView:
    """One turn of one side: believed boards before and after its sense (samples), and shares."""

    color: chess.Color
    turn: int
    before_sense: list[chess.Board] = field(default_factory=list)
    after_sense: list[chess.Board] = field(default_factory=list)
    size_before_sense: int = 0
    size_after_sense: int = 0
    heat: list[float] = field(default_factory=lambda: [0.0] * 64)  # share of boards with an enemy piece
    king_attacked_share: float | None = None  # after the sense, over up to ATTACK_SAMPLE boards


def enemy_heat(pieces: np.ndarray, color: chess.Color) -> list[float]:
    """Per square, the share of boards (rows of 64 piece codes) holding a piece of ``color``'s enemy.
    Codes are 1-6 for white pieces and 7-12 for black ones (``rbc_bot.belief``)."""
    if len(pieces) == 0:
        return [0.0] * 64
    enemy = (pieces >= 7) if color == chess.WHITE else ((pieces >= 1) & (pieces <= 6))
    return [float(x) for x in enemy.mean(axis=0)]


def king_attacked_share(boards: list[chess.Board]) -> float | None:
    """Share of boards (the player to move) on which the player's own king is attacked."""
    if not boards:
        return None
    attacked = 0
    for board in boards:
        king = board.king(board.turn)
        attacked += king is not None and board.is_attacked_by(not board.turn, king)
    return attacked / len(boards)


class ViewRecorder:
    """An observer for :func:`rbc_bot.replay.resim.resimulate` that keeps a :class:`TurnView` per turn."""

    def __init__(self, color: chess.Color, sample: int = 16, seed: int = 0) -> None:
        self.color = color
        self.sample = sample
        self.rng = np.random.default_rng(seed)
        self.views: dict[int, TurnView] = {}

    def __call__(self, turn: Turn, stage: str, tracker: Any) -> None:
        view = self.views.setdefault(turn.turn_number, TurnView(self.color, turn.turn_number))
        if stage == "opponent":
            view.size_before_sense = tracker.live_size
            view.before_sense = tracker.sample(self.sample, self.rng) if self.sample else []
            return
        view.size_after_sense = tracker.live_size
        view.after_sense = tracker.sample(self.sample, self.rng) if self.sample else []
        view.heat = enemy_heat(np.asarray(tracker.pieces), self.color)
        checked = tracker.sample(ATTACK_SAMPLE, self.rng)
        view.king_attacked_share = king_attacked_share(checked)
