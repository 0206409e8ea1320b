"""Shared by the move selector's tests (tests/test_move.py, tests/test_raid.py): a deterministic engine
and hand-built beliefs with the requests reconchess would offer on them."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import MoveDecision, choose_move
from rbc_bot.raid import king_safe_after
from rbc_bot.scorer import Scorer

DEPTH = 8


def deterministic_scorer() -> Iterator[Scorer]:
    """One engine process, Threads=1, a fixed search depth (plan_depth cannot deepen it): the same
    beliefs always get the same scores (the body of each test module's ``scorer`` fixture)."""
    with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
        yield Scorer(pool, EngineConfig(depth=DEPTH, max_depth=DEPTH))


def boards_of(*fens: str) -> list[chess.Board]:
    return [chess.Board(fen) for fen in fens]


def actions(boards: Sequence[chess.Board]) -> list[chess.Move]:
    """The requests reconchess offers: they depend on our pieces only, which every board shares."""
    offered = {m for b in boards for m in move_actions(b)}
    return sorted(offered, key=lambda m: m.uci())


def decide(boards: list[chess.Board], scorer: Scorer, aggregate: str = "min", seed: int = 0) -> MoveDecision:
    config = MoveConfig(aggregate=aggregate)  # type: ignore[arg-type]
    return choose_move(boards, actions(boards), scorer, config, 2.0, np.random.default_rng(seed))


def king_capturable_after(board: chess.Board, move: chess.Move | None) -> bool:
    """Whether the opponent can take our king after we request ``move`` on ``board`` (RBC revision)."""
    return not king_safe_after(board, move)


def safe_everywhere(boards: Sequence[chess.Board], move: chess.Move | None) -> bool:
    return not any(king_capturable_after(b, move) for b in boards)
