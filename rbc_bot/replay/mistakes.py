"""Score every move of a side on the TRUE board with Stockfish: what it cost, and the RBC blunders.

The true board can be illegal in chess (the mover may attack the enemy king), so the engine module's
guards decide first: a capturable king is scored ``KING_CAPTURE_SCORE`` without asking Stockfish.
The loss of a move is ``best - played`` for the mover, where ``best`` is the engine's score before
the move and ``played`` minus its score of the position after it (node limits: reproducible).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import Any

import chess
from reconchess import GameHistory

from rbc_bot.engine import KING_CAPTURE_SCORE, MATE_SCORE, EnginePool, can_capture_king, king_capture_moves
from rbc_bot.replay.load import turns_of

logger = logging.getLogger(__name__)

MISTAKE_CP = 100  # thresholds as on lichess: inaccuracy 50, mistake 100, blunder 300
BLUNDER_CP = 300
LOSS_CLIP = 1000  # losses past a clear blunder count the same in averages (mate scores are huge)
EVAL_CLIP = 2000


@dataclass
class MoveScore:
    color: str
    turn: int
    played: str
    best: str | None
    eval_before: float  # for the mover, before the move (white's view is in ``eval_white``)
    eval_after: float  # for the mover, after the move
    eval_white: float
    cp_loss: float
    kinds: list[str] = field(default_factory=list)

    @property
    def is_mistake(self) -> bool:
        return bool(self.kinds)


def _clip(value: float, limit: float) -> float:
    return max(-limit, min(limit, value))


def score_moves(
    history: GameHistory, colors: list[chess.Color], pool: EnginePool, nodes: int
) -> list[MoveScore]:
    """One :class:`MoveScore` per move of ``colors`` in play order, all boards in two engine batches."""
    turns = [t for t in turns_of(history) if t.color in colors and history.has_move(t)]
    befores = [history.truth_board_before_move(t) for t in turns]
    afters = [chess.Board(history.truth_fen_after_move(t)) for t in turns]  # FEN turn: the opponent
    best_lines = pool.top_moves(befores, 1, nodes=nodes) if befores else []
    no_move = [i for i, line in enumerate(best_lines) if not line]
    fallback = dict(zip(no_move, pool.evaluate([befores[i] for i in no_move], nodes=nodes), strict=True))
    scores_before = [line[0][1] if line else fallback[i] for i, line in enumerate(best_lines)]
    scores_after = pool.evaluate(afters, nodes=nodes) if afters else []
    out: list[MoveScore] = []
    for turn, before, after, line, best_score, after_score in zip(
        turns, befores, afters, best_lines, scores_before, scores_after, strict=True
    ):
        taken = history.taken_move(turn)
        kinds: list[str] = []
        best_move = line[0][0] if line else None
        if can_capture_king(before):
            best_score = float(KING_CAPTURE_SCORE)
            best_move = king_capture_moves(before)[0]
        if after.king(after.turn) is None:  # we took the king
            played = float(KING_CAPTURE_SCORE)
        elif can_capture_king(after):
            # Already mated (no chess-legal move): every move leaves the king en prise; not a mistake.
            mated = best_score <= -MATE_SCORE
            played = best_score if mated else -float(KING_CAPTURE_SCORE)
            if not mated:
                kinds.append("king left capturable")
        else:
            played = -after_score
        if can_capture_king(before) and played < KING_CAPTURE_SCORE:
            kinds.append("king capture missed")
        loss = max(0.0, best_score - played)
        if not kinds and loss >= BLUNDER_CP:
            kinds.append("blunder")
        elif not kinds and loss >= MISTAKE_CP:
            kinds.append("mistake")
        white_view = best_score if turn.color == chess.WHITE else -best_score
        out.append(
            MoveScore(
                color=chess.COLOR_NAMES[turn.color],
                turn=turn.turn_number,
                played=taken.uci() if taken else "pass",
                best=best_move.uci() if best_move else None,
                eval_before=best_score,
                eval_after=played,
                eval_white=_clip(white_view, EVAL_CLIP),
                cp_loss=loss,
                kinds=kinds,
            )
        )
    return out


def summarise(scores: list[MoveScore]) -> dict[str, Any]:
    """Mistake list and rates for summary.json and the reports."""
    moves = len(scores)
    mistakes = [s for s in scores if s.is_mistake]
    return {
        "moves": moves,
        "mistake_count": len(mistakes),
        "mistake_rate": len(mistakes) / moves if moves else 0.0,
        "mean_cp_loss": sum(min(s.cp_loss, LOSS_CLIP) for s in scores) / moves if moves else 0.0,
        "king_captures_missed": sum("king capture missed" in s.kinds for s in scores),
        "kings_left_capturable": sum("king left capturable" in s.kinds for s in scores),
        "mistakes": [
            {
                "color": s.color,
                "turn": s.turn,
                "kinds": s.kinds,
                "played": s.played,
                "best": s.best,
                "cp_loss": round(s.cp_loss, 1),
            }
            for s in mistakes
        ],
    }


def as_dicts(scores: list[MoveScore]) -> list[dict[str, Any]]:
    return [asdict(s) for s in scores]
