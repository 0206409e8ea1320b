"""King captures: which requests capture the enemy king on how many believed boards, the share
they work on, and whether one taken at once is safe if it misses (our king must not be capturable
after it, and with a guard the moving piece must not hang). The move selector takes a raid from here;
the sense rules sense to tell the boards it works on from the others.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence

import chess
import numpy as np

from rbc_bot.board_sample import PIECE_VALUES
from rbc_bot.config import MoveConfig
from rbc_bot.engine import can_capture_king, king_capture_moves
from rbc_bot.ranking import capture_share
from rbc_bot.rules import revise


def king_captures(boards: Sequence[chess.Board], legal: set[chess.Move]) -> Counter[chess.Move]:
    """For each legal request that captures the enemy king on some board, on how many boards it does."""
    counts: Counter[chess.Move] = Counter()
    for board in boards:
        for move in king_capture_moves(board):
            if move in legal:
                counts[move] += 1
    return counts


def likeliest_raid(
    boards: Sequence[chess.Board], legal: set[chess.Move], blunder_weight: float
) -> tuple[chess.Move, float] | None:
    """The legal request that captures the enemy king on the most boards and the share of the boards
    it works on, each weighed as :func:`capture_share` weighs them (None if no board allows one)."""
    captures = king_captures(boards, legal)
    if not captures:
        return None
    capture, count = captures.most_common(1)[0]
    return capture, capture_share(boards, count, blunder_weight)


def king_capture(boards: Sequence[chess.Board], legal: set[chess.Move]) -> chess.Move | None:
    """The legal request that captures the enemy king on the most boards, if any board allows one."""
    captures = king_captures(boards, legal)
    return captures.most_common(1)[0][0] if captures else None


SAFETY_SAMPLE = 300  # boards checked before a king capture is taken at once


def exposes_king(
    boards: Sequence[chess.Board], move: chess.Move, k: int, rng: np.random.Generator, guard_value: int = 0
) -> bool:
    """Whether, on some of (a sample of ``k``) ``boards`` where ``move`` does not end the game, the
    opponent can then capture our king: a capture that misses must not lose the game (we were in
    check on the other boards, say). With ``guard_value``, a miss that leaves the moving piece (worth
    at least that many pawns) where the opponent attacks it counts too: a king capture that misses
    must not hang the queen."""
    sample = boards if len(boards) <= k else [boards[i] for i in rng.choice(len(boards), k, replace=False)]
    for board in sample:
        taken, _ = revise(board, move)
        piece = board.piece_at(move.from_square)
        child = board.copy(stack=False)
        child.push(taken if taken is not None else chess.Move.null())
        if child.king(not board.turn) is None:
            continue
        if can_capture_king(child):
            return True
        valuable = guard_value and piece is not None and PIECE_VALUES[piece.piece_type] >= guard_value
        if valuable and taken is not None and child.is_attacked_by(child.turn, taken.to_square):
            return True
    return False


def guard_for_turn(config: MoveConfig, turn: int) -> MoveConfig:
    """``config`` for our ``turn`` (1-based): past ``king_capture_guard_turns`` (when set) the guard on
    king captures taken at once is lifted. In the opening a sensing opponent answers a check at once,
    so the boards where its king is still en prise are mostly wrong and the raid's piece lands on the
    blocker, defended; later it knows less of our pieces, raids hit about as often as they miss, and a
    hit wins the game."""
    if config.king_capture_guard_turns and turn > config.king_capture_guard_turns:
        return dataclasses.replace(config, king_capture_guard_value=0)
    return config
