"""Candidates played out on the scored boards: each (candidate, board) cell's position after the move
with RBC revision, each distinct position once for the engine, and the centipawns the engine cannot
see (a captured king, progress near the 100-ply rule, quiet checks, the opening plan's bonuses)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from rbc_bot.board_sample import check_threat
from rbc_bot.config import MoveConfig
from rbc_bot.engine import KING_CAPTURE_SCORE
from rbc_bot.probing import outcome_code
from rbc_bot.ranking import with_check_odds
from rbc_bot.rules import revise


def _position_key(board: chess.Board) -> tuple[int, ...]:
    """Identity of a position for deduplicating evaluations (public bitboards only)."""
    return (
        board.pawns, board.knights, board.bishops, board.rooks, board.queens, board.kings,
        board.occupied_co[chess.WHITE], board.castling_rights, board.ep_square or -1, int(board.turn),
    )  # fmt: skip


@dataclass
class PlayedOut:
    """Every candidate played on every scored board: the distinct positions to evaluate, which one
    each (candidate, board) cell reached, the cells scored without the engine (a captured king), the
    centipawns the engine cannot see, and the quiet checks, whose odds of winning at once it cannot see
    either."""

    children: list[chess.Board]
    cell: np.ndarray
    fixed: np.ndarray
    bonus: np.ndarray
    checks: np.ndarray  # the cells where the candidate is a quiet check that ``check_odds`` values
    outcomes: np.ndarray  # each cell's answer to the request (rbc_bot.probing.outcome_code)
    check_odds: float = 0.0

    def scores(self, child_scores: np.ndarray) -> np.ndarray:
        """Our centipawns for each (candidate, board), from the children's scores (our side)."""
        engine = child_scores[self.cell] if len(self.children) else 0.0
        scores = np.where(np.isnan(self.fixed), engine, self.fixed) + self.bonus
        if not self.check_odds:
            return scores
        return np.where(self.checks, with_check_odds(scores, self.check_odds), scores)


def play_out(
    candidates: Sequence[chess.Move | None],
    boards: Sequence[chess.Board],
    config: MoveConfig,
    progress_bonus: float,
    move_bonuses: dict[chess.Move | None, float] | None = None,
) -> PlayedOut:
    """Play each candidate on each board with RBC revision; evaluate each distinct position once.

    Bonuses: progress (a pawn move or capture, near the 100-ply rule), a quiet check (the opponent is
    told nothing of it, and unless it senses the checker it loses its king: ``quiet_check_bonus``
    centipawns, or its chance of winning at once, ``quiet_check_odds``, if set), and ``move_bonuses``
    (a move's centipawns on every board, e.g. the opening plan's). A penalty: ``king_exposure_cp`` off
    each board where the opponent could then check our king quietly, the same risk on our side, which
    the engine, assuming we see every check, does not price."""
    children: list[chess.Board] = []
    index_of: dict[tuple[int, ...], int] = {}
    cell = np.zeros((len(candidates), len(boards)), dtype=np.int64)
    fixed = np.full((len(candidates), len(boards)), np.nan)
    bonus = np.zeros((len(candidates), len(boards)))
    checks = np.zeros((len(candidates), len(boards)), dtype=bool)
    outcomes = np.zeros((len(candidates), len(boards)), dtype=np.int64)
    exposed: list[bool] = []  # per child: the opponent could check our king quietly
    value_checks = config.quiet_check_bonus or config.quiet_check_odds
    for j, board in enumerate(boards):
        for i, candidate in enumerate(candidates):
            taken, captured = revise(board, candidate) if candidate is not None else (None, None)
            outcomes[i, j] = outcome_code(taken, captured)
            progress = taken is not None and (
                captured is not None or board.piece_type_at(taken.from_square) == chess.PAWN
            )
            if progress_bonus and progress:
                bonus[i, j] = progress_bonus
            child = board.copy(stack=False)
            child.push(taken if taken is not None else chess.Move.null())
            if child.king(not board.turn) is None:
                fixed[i, j] = KING_CAPTURE_SCORE
                continue
            if value_checks and captured is None and taken is not None and child.is_check():
                checks[i, j] = True
            key = _position_key(child)
            if key not in index_of:
                index_of[key] = len(children)
                children.append(child)
                exposed.append(bool(config.king_exposure_cp) and check_threat(child, board.turn, quiet=True))
            cell[i, j] = index_of[key]
            if exposed[cell[i, j]]:
                bonus[i, j] -= config.king_exposure_cp
    if not config.quiet_check_odds:
        bonus += checks * config.quiet_check_bonus
    if move_bonuses:
        bonus += np.array([move_bonuses.get(m, 0.0) for m in candidates])[:, None]
    return PlayedOut(children, cell, fixed, bonus, checks, outcomes, config.quiet_check_odds)
