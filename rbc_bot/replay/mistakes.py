"""Judge every move of a side on the TRUE board and on the boards its player BELIEVED, and say what kind
of mistake each bad move was.

Why two judgements: in RBC a move that lost on the true board may have been the right decision on
what the player could know. On the true board the best and the played move come from one search
(:mod:`rbc_bot.replay.judge`). On a sample of the believed boards (the re-simulated belief after the
sense) the same request is judged the same way, each board with its own RBC revision. A bad move is:

- ``blunder``: bad (a loss of half the true loss, at least ``MISTAKE_CP``, at most ``BLUNDER_CP``) on
  most believed boards, where another request (one of the moves most often best on those boards) lost
  at least ``MISTAKE_CP`` less on average: the player could have known;
- ``no_good_move``: bad on most believed boards, and no other request tried there did that much
  better: each board had its own answer and no single move was good on the belief, so the fix is in
  sensing, not in choosing the move;
- ``gamble``: fine on most believed boards, but bad on a real share of them (``RARE_SHARE`` or more),
  or a king-capture attempt that missed: a risk taken knowingly that came true;
- ``unseen_threat``: bad on fewer than ``RARE_SHARE`` of the believed boards: the true board was a rare
  one in the belief (or not in it at all); the fix is in sensing and belief, not in choosing the move.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import chess
import numpy as np
from reconchess import GameHistory

from rbc_bot.engine import KING_CAPTURE_SCORE
from rbc_bot.likely import rank_weights
from rbc_bot.replay.judge import BLUNDER_CP, LOSS_CLIP, MISTAKE_CP, BoardJudgement, Searcher
from rbc_bot.replay.load import turns_of

logger = logging.getLogger(__name__)

EVAL_CLIP = 2000
MOST_SHARE = 0.5  # "bad on most believed boards"
RARE_SHARE = 0.1  # below this share of the believed boards, the true board was a rare one
KINDS = ("blunder", "gamble", "unseen_threat", "no_good_move")
ALTERNATIVES = 3  # the believed boards' most common best moves, tried as other requests for a blunder


@dataclass
class BeliefJudgement:
    """The request judged on a sample of the boards its player believed possible when moving."""

    boards: int  # believed boards judged
    expected_loss: float  # mean loss over them (each clipped at LOSS_CLIP)
    bad_share: float  # share on which the move was bad (see ``bad_threshold``)
    hang_share: float  # share on which it lost BLUNDER_CP or more against the board's best move, or the king
    king_hung_share: float  # share on which the opponent can then capture the king
    king_capture_share: float  # share on which the request captures the enemy king
    king_capturable_share: float = 0.0  # share on which some move captures the enemy king
    best_moves: list[tuple[str, int]] = field(default_factory=list)  # engine's best moves there, counted
    alternative: str | None = None  # of the other requests tried, the one that lost least on average
    alternative_loss: float | None = None  # ... and its mean loss there (None: no other request tried)
    weights: str = "uniform"  # how the boards counted in these shares and means (``judged_weights``)


@dataclass
class MoveScore:
    color: str
    turn: int
    requested: str
    played: str  # the move taken on the true board ("pass" for none)
    best: str | None
    eval_before: float  # the best move's score for the mover (from the same search as the played move)
    eval_after: float  # the played move's score for the mover
    eval_white: float
    cp_loss: float
    tags: list[str] = field(default_factory=list)  # what went wrong on the true board
    belief: BeliefJudgement | None = None
    kind: str | None = None  # for a mistake: one of KINDS (None without a belief judgement)

    @property
    def is_mistake(self) -> bool:
        return bool(self.tags)


def _clip(value: float, limit: float) -> float:
    return max(-limit, min(limit, value))


def bad_threshold(true_loss: float) -> float:
    """The loss that makes a believed board count as bad: half the true loss, at least ``MISTAKE_CP``,
    and a blunder there (``BLUNDER_CP``) always counts: losing a rook on a believed board is bad even if
    the true board lost the king."""
    return min(float(BLUNDER_CP), max(float(MISTAKE_CP), true_loss / 2))


def judged_weights(judged: Sequence[BoardJudgement], how: str = "uniform") -> np.ndarray:
    """How much each judged board counts: one each (``uniform``), or ``likely``: by how likely the
    opponent's play made it, as the bot weighs its boards (rbc_bot.likely's rank of how well the mover
    can stand there, the board's best score; a board where the opponent left its king capturable
    counts least)."""
    if how == "likely":
        return rank_weights(np.array([j.best_score for j in judged], dtype=np.float64))
    if how != "uniform":
        raise ValueError(f"unknown board weights {how!r} (uniform, likely)")
    return np.ones(len(judged))


def weighted_mean(values: Sequence[float], weights: np.ndarray | None = None) -> float:
    """The mean of one value per judged board, each board counting its weight (None: one each); of
    0/1 values, the boards' (weighted) share."""
    return float(np.average(np.asarray(values, dtype=np.float64), weights=weights))


def bad_share(judged: Sequence[BoardJudgement], threshold: float, weights: np.ndarray | None = None) -> float:
    return weighted_mean([j.loss >= threshold for j in judged], weights)


def mean_loss(judged: Sequence[BoardJudgement], weights: np.ndarray | None = None) -> float:
    return weighted_mean([min(j.loss, LOSS_CLIP) for j in judged], weights)


def other_requests(judged: Sequence[BoardJudgement], requested: chess.Move | None) -> list[chess.Move]:
    """The moves most often best on the believed boards, the request aside: what a player who knew only
    the belief could have asked for instead (``ALTERNATIVES`` of them)."""
    counts = Counter(j.best for j in judged if j.best is not None and j.best != requested)
    return [move for move, _ in counts.most_common(ALTERNATIVES)]


def judge_belief(
    judged: Sequence[BoardJudgement],
    true_loss: float,
    alternatives: Mapping[chess.Move, Sequence[BoardJudgement]] | None = None,
    weights: str = "uniform",
) -> BeliefJudgement | None:
    """The request judged over the believed boards, each counting by ``weights`` (``judged_weights``);
    ``alternatives``: other requests judged on the same boards, of which the one that lost least on
    average is kept."""
    if not judged:
        return None
    w = judged_weights(judged, weights)
    threshold = bad_threshold(true_loss)
    best = Counter(j.best.uci() for j in judged if j.best is not None)
    losses = {move: mean_loss(other, w) for move, other in (alternatives or {}).items() if other}
    alternative = min(losses, key=lambda move: losses[move]) if losses else None
    return BeliefJudgement(
        boards=len(judged),
        expected_loss=mean_loss(judged, w),
        bad_share=bad_share(judged, threshold, w),
        hang_share=weighted_mean([j.king_hung or j.loss >= BLUNDER_CP for j in judged], w),
        king_hung_share=weighted_mean([j.king_hung for j in judged], w),
        king_capture_share=weighted_mean([j.king_captured for j in judged], w),
        king_capturable_share=weighted_mean([j.best_score >= KING_CAPTURE_SCORE for j in judged], w),
        best_moves=best.most_common(5),
        alternative=None if alternative is None else alternative.uci(),
        alternative_loss=None if alternative is None else losses[alternative],
        weights=weights,
    )


def classify(score: MoveScore) -> str | None:
    """The kind of a mistake (see the module's docstring); None for a good move or with no belief."""
    belief = score.belief
    if not score.is_mistake or belief is None:
        return None
    if belief.bad_share >= MOST_SHARE:
        other = belief.alternative_loss
        return (
            "no_good_move" if other is not None and other > belief.expected_loss - MISTAKE_CP else "blunder"
        )
    # A king capture tried on a visible share of the boards, and the king was not there: a bet.
    missed_king = belief.king_capture_share >= RARE_SHARE and score.eval_after < KING_CAPTURE_SCORE
    if belief.bad_share >= RARE_SHARE or missed_king:
        return "gamble"
    return "unseen_threat"


def tags_of(truth: BoardJudgement) -> list[str]:
    tags: list[str] = []
    if truth.king_hung and truth.played_score != truth.best_score:
        tags.append("king left capturable")
    if truth.best_score >= KING_CAPTURE_SCORE and not truth.king_captured:
        tags.append("king capture missed")
    if not tags and truth.loss >= BLUNDER_CP:
        tags.append(f"lost {BLUNDER_CP}+ cp")
    elif not tags and truth.loss >= MISTAKE_CP:
        tags.append(f"lost {MISTAKE_CP}+ cp")
    return tags


def score_moves(
    history: GameHistory,
    colors: list[chess.Color],
    searcher: Searcher,
    believed: Mapping[tuple[chess.Color, int], Sequence[chess.Board]] | None = None,
    belief_nodes: int | None = None,
    weights: str = "uniform",
) -> list[MoveScore]:
    """One :class:`MoveScore` per move of ``colors`` in play order. ``believed``: the sampled boards each
    player believed when moving (keyed by colour and turn), judged at ``belief_nodes``, each counting by
    ``weights`` (``judged_weights``); a move bad on most of them has the boards' most common best moves
    judged there too (``other_requests``)."""
    believed = believed or {}
    turns = [t for t in turns_of(history) if t.color in colors and history.has_move(t)]
    requests = [history.requested_move(t) for t in turns]
    pairs = list(zip(turns, requests, strict=True))
    boards = [believed.get((t.color, t.turn_number), ()) for t in turns]
    truths = searcher.judge([(history.truth_board_before_move(t), r) for t, r in pairs])
    groups = [[(b, r) for b in sample] for (_, r), sample in zip(pairs, boards, strict=True)]
    judged = judge_groups(searcher, groups, belief_nodes)
    alternatives = judge_alternatives(searcher, requests, truths, judged, boards, belief_nodes, weights)
    return [
        move_score(turn.color, turn.turn_number, requested, truth, j, alts, weights)
        for (turn, requested), truth, j, alts in zip(pairs, truths, judged, alternatives, strict=True)
    ]


def judge_alternatives(
    searcher: Searcher,
    requests: Sequence[chess.Move | None],
    truths: Sequence[BoardJudgement],
    judged: Sequence[Sequence[BoardJudgement]],
    boards: Sequence[Sequence[chess.Board]],
    nodes: int | None,
    weights: str = "uniform",
) -> list[dict[chess.Move, list[BoardJudgement]]]:
    """For each move bad on most of its believed boards (``needs_alternatives``), the boards' most
    common best moves (``other_requests``) judged on the same boards; an empty mapping for the rest."""
    tried = [
        (i, move)
        for i, (request, truth, j) in enumerate(zip(requests, truths, judged, strict=True))
        if needs_alternatives(truth, j, weights)
        for move in other_requests(j, request)
    ]
    groups = [[(b, move) for b in boards[i]] for i, move in tried]
    alternatives: list[dict[chess.Move, list[BoardJudgement]]] = [{} for _ in requests]
    for (i, move), other in zip(tried, judge_groups(searcher, groups, nodes), strict=True):
        alternatives[i][move] = other
    return alternatives


def judge_groups(
    searcher: Searcher, groups: Sequence[Sequence[tuple[chess.Board, chess.Move | None]]], nodes: int | None
) -> list[list[BoardJudgement]]:
    """Each group of (board, request) pairs judged, all in one batch (the searcher's workers kept busy)."""
    items = [item for group in groups for item in group]
    flat = iter(searcher.judge(items, nodes) if items else [])
    return [[next(flat) for _ in group] for group in groups]


def needs_alternatives(
    truth: BoardJudgement, judged: Sequence[BoardJudgement], weights: str = "uniform"
) -> bool:
    """Whether a move is a mistake bad on most believed boards (counted by ``weights``): a blunder only
    if some other request was not (the only moves whose kind other requests decide)."""
    if not (judged and tags_of(truth)):
        return False
    return bad_share(judged, bad_threshold(truth.loss), judged_weights(judged, weights)) >= MOST_SHARE


def move_score(
    color: chess.Color,
    turn: int,
    requested: chess.Move | None,
    truth: BoardJudgement,
    judged: Sequence[BoardJudgement] = (),
    alternatives: Mapping[chess.Move, Sequence[BoardJudgement]] | None = None,
    weights: str = "uniform",
) -> MoveScore:
    """One move's score from its judgement on the true board and on the believed boards (and other
    requests' judgements there, see ``judge_belief``, the boards counting by ``weights``), with its
    kind."""
    white_view = truth.best_score if color == chess.WHITE else -truth.best_score
    score = MoveScore(
        color=chess.COLOR_NAMES[color],
        turn=turn,
        requested=requested.uci() if requested else "pass",
        played=truth.taken.uci() if truth.taken else "pass",
        best=truth.best.uci() if truth.best else None,
        eval_before=truth.best_score,
        eval_after=truth.played_score,
        eval_white=_clip(white_view, EVAL_CLIP),
        cp_loss=truth.loss,
        tags=tags_of(truth),
        belief=judge_belief(judged, truth.loss, alternatives, weights),
    )
    score.kind = classify(score)
    return score


def summarise(scores: list[MoveScore]) -> dict[str, Any]:
    """Mistake list and rates for summary.json and the reports."""
    moves = len(scores)
    mistakes = [s for s in scores if s.is_mistake]
    return {
        "moves": moves,
        "mistake_count": len(mistakes),
        "mistake_rate": len(mistakes) / moves if moves else 0.0,
        "mean_cp_loss": sum(min(s.cp_loss, LOSS_CLIP) for s in scores) / moves if moves else 0.0,
        "king_captures_missed": sum("king capture missed" in s.tags for s in scores),
        "kings_left_capturable": sum("king left capturable" in s.tags for s in scores),
        "kinds": {kind: sum(s.kind == kind for s in mistakes) for kind in KINDS},
        "mistakes": [mistake_dict(s) for s in mistakes],
    }


def mistake_dict(s: MoveScore) -> dict[str, Any]:
    belief = s.belief
    return {
        "color": s.color,
        "turn": s.turn,
        "kind": s.kind,
        "tags": s.tags,
        "requested": s.requested,
        "played": s.played,
        "best": s.best,
        "cp_loss": round(min(s.cp_loss, LOSS_CLIP * 100), 1),
        "expected_loss": None if belief is None else round(belief.expected_loss, 1),
        "bad_share": None if belief is None else round(belief.bad_share, 3),
        "hang_share": None if belief is None else round(belief.hang_share, 3),
        "alternative": None if belief is None else belief.alternative,
        "alternative_loss": None
        if belief is None or belief.alternative_loss is None
        else round(belief.alternative_loss, 1),
        "boards_judged": 0 if belief is None else belief.boards,
    }


def as_dicts(scores: list[MoveScore]) -> list[dict[str, Any]]:
    return [asdict(s) for s in scores]
