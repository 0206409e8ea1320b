"""King captures: which requests capture the enemy king on how many believed boards, the share
they work on, and whether one taken at once is safe if it misses (our king must not be capturable
after it, and with a guard the moving piece must not hang); and on our side, whether any request keeps
our king safe on every believed board. The move selector takes a raid from here; the sense rules
sense to tell the boards it works on from the others, and sense a check no request parries.
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


def after_request(board: chess.Board, request: chess.Move | None) -> tuple[chess.Move | None, chess.Board]:
    """The move ``request`` becomes on ``board`` (RBC revision; None for the pass or a request that
    cannot move) and the board after it."""
    taken = revise(board, request)[0] if request is not None else None
    child = board.copy(stack=False)
    child.push(taken if taken is not None else chess.Move.null())
    return taken, child


def king_safe_after(board: chess.Board, request: chess.Move | None) -> bool:
    """Whether, after ``request`` on ``board``, the opponent cannot capture our king (or it has none
    left to move: the request captured it)."""
    child = after_request(board, request)[1]
    return child.king(not board.turn) is None or not can_capture_king(child)


def unparried(
    attacked: Sequence[chess.Board], boards: Sequence[chess.Board], legal: Sequence[chess.Move]
) -> bool:
    """Whether every request leaves our king capturable on some board: none is safe on all the
    ``attacked`` boards (where our king is attacked now), or each that is walks into a capture on
    one of ``boards``. Checks from d3 on one board and f3 on another are parried only by Ke2, and on
    two boards of a thousand a bishop on g4 takes the king there: whatever we play, the game can end
    on the next ply, and only a sense can tell which move keeps it going."""
    parries = [r for r in legal if all(king_safe_after(b, r) for b in attacked)]
    return not any(all(king_safe_after(b, r) for b in boards) for r in parries)


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
        taken, child = after_request(board, move)
        piece = board.piece_at(move.from_square)
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
