"""Ranking the move selector's candidates from their scores over the believed boards: expected scores
from centipawns, aggregates over boards (worst, mean, mixes, regret), board likelihoods, safety first,
and the near-tie rule; and whether a king capture is worth more than the ranking's choice."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import chess
import numpy as np

from rbc_bot.config import MoveConfig
from rbc_bot.engine import KING_CAPTURE_SCORE, king_capture_moves


@dataclass
class Candidate:
    move: chess.Move | None
    worst: float
    mean: float
    score: float  # the aggregate the choice is made on
    king_losses: int = 0  # scored boards on which the opponent can then capture our king
    standing: float = 0.0  # the mean with each board's centipawns clipped as ``win_probability`` clips


CP_CLIP = 4000.0  # centipawns past which a board counts as won or lost: a captured king (30,000) no more


def win_probability(cp: np.ndarray) -> np.ndarray:
    """Expected score from centipawns (logistic: 400 cp is 10:1 odds). Aggregating these rather than raw
    centipawns keeps a mate on one board (+20,000) from outweighing a lost queen on three others."""
    return 1.0 / (1.0 + np.power(10.0, -np.clip(cp, -CP_CLIP, CP_CLIP) / 400.0))


# Our score against StrangeFish by the chosen move's mean (session 26: 4,123 turns of 141 games of the
# default's rows; docs/strength-log.md), smoothed to rise monotonically: flat from -300 to +300 cp,
# steep beyond. The logistic puts a move 50 cp better when level at +0.036 and a lost queen at -0.49;
# here they are +0.013 and -0.6, so a rare hang costs what it costs in these games.
MEASURED_CP = np.array([-CP_CLIP, -1500.0, -800.0, -600.0, -300.0, 0.0, 300.0, 600.0, 1200.0, CP_CLIP])
MEASURED_SCORE = np.array([0.0, 0.02, 0.10, 0.28, 0.60, 0.66, 0.74, 0.87, 0.95, 1.0])


def on_curve(cp: np.ndarray, curve: str) -> np.ndarray:
    """Centipawns re-expressed so that ``win_probability`` of them is the expected score under
    ``curve``: ``logistic`` leaves them as they are, ``measured`` maps them through our measured score
    against StrangeFish (``MEASURED_SCORE``). Re-expressing keeps every aggregate as it is; what counts
    as a lost king (``rank``'s king losses) is read from the plain centipawns."""
    if curve == "logistic":
        return cp
    if curve != "measured":
        raise ValueError(f"unknown score curve {curve!r} (logistic, measured)")
    p = np.clip(np.interp(cp, MEASURED_CP, MEASURED_SCORE), 1e-9, 1.0 - 1e-9)
    return 400.0 * np.log10(p / (1.0 - p))


def with_check_odds(cp: np.ndarray, odds: float) -> np.ndarray:
    """Centipawns of positions our quiet check reached, if it wins at once with chance ``odds`` (the
    opponent, told nothing, leaves its king capturable) and is otherwise worth ``cp``: the expected
    score ``odds + (1 - odds) p`` back on the centipawn scale. Worth most when we stand worst, where a
    fixed bonus in centipawns barely moves the expected score; never below ``cp``; a position where
    the opponent can capture our king stays lost (it takes ours first)."""
    p = odds + (1.0 - odds) * win_probability(cp)
    value = np.maximum(cp, 400.0 * np.log10(p / (1.0 - p)))
    return np.where(cp <= -KING_CAPTURE_SCORE / 2, cp, value)


def aggregate(
    scores: np.ndarray,
    method: str,
    min_weight: float,
    board_weights: np.ndarray | None = None,
    tail_share: float = 0.1,
    temperature: float = 0.05,
) -> np.ndarray:
    """Each candidate's value over the boards (``scores``: candidates x boards, centipawns), as an
    expected score in [0, 1]: the worst board (``min``), the average board (``mean``), ``min_weight`` of
    the worst plus the rest of the average (``mix``), ``min_weight`` of one minus the largest regret
    plus the rest of the average (``regret``), or the average of its worst ``tail_share`` of the boards
    (``tail``), or the average over the boards weighed as a rational opponent would have chosen them
    (``rational``, see ``rational_mean``). A board's regret is how much worse the move does there than
    the best candidate on that board: a board on which every move loses costs no candidate anything,
    where under ``min`` it sets every candidate's value and hides their differences; ``tail`` keeps
    min's caution but sees past one such board to the next worst ones. ``board_weights`` (one per
    board; at most 1, or how many believed boards each stands for under ``rational``) say how likely
    each board is: they weigh the average, the tail and each board's regret, so an unlikely board can
    neither buy a move nor condemn one; the worst board stays unweighted (a board is either possible
    or not)."""
    p = win_probability(scores)
    w = np.ones(p.shape[1]) if board_weights is None else np.asarray(board_weights, dtype=np.float64)
    mean = (p * w).sum(axis=1) / max(float(w.sum()), 1e-12)
    if method == "min":
        return p.min(axis=1)
    if method == "mean":
        return mean
    if method == "mix":
        return min_weight * p.min(axis=1) + (1 - min_weight) * mean
    if method == "regret":
        regret = (p.max(axis=0, keepdims=True) - p) * w
        return min_weight * (1.0 - regret.max(axis=1)) + (1 - min_weight) * mean
    if method == "tail":
        return tail_mean(p, w, tail_share)
    if method == "rational":
        return rational_mean(p, w, temperature)
    raise ValueError(f"unknown aggregate {method!r} (min, mean, mix, regret, tail, rational)")


def clipped_mean(cp: np.ndarray) -> float:
    """The mean of ``cp`` with each board clipped to +-``CP_CLIP``: how well a move stands over the
    boards, where one board in ten on which a king can be captured (+-30,000) would set the plain mean
    by itself, whichever way it falls."""
    return float(np.clip(cp, -CP_CLIP, CP_CLIP).mean())


def rational_mean(p: np.ndarray, weights: np.ndarray, temperature: float) -> np.ndarray:
    """Each row's average over the boards, each board weighed by how likely a strong opponent made it:
    ``exp(-d / temperature)``, ``d`` how much more our best candidate expects there than on the board
    where it expects least. A board only a blunder reaches (our best reply wins its queen) then barely
    counts, while boards on which the opponent did equally well count equally: the worst board of a
    move decides only as far as the opponent was likely to leave it, where ``min`` lets any board
    decide and ``mean`` lets every board count alike."""
    best = p.max(axis=0)
    likely = weights * np.exp(-(best - best.min()) / temperature)
    return (p * likely).sum(axis=1) / max(float(likely.sum()), 1e-12)


def tail_mean(p: np.ndarray, weights: np.ndarray, share: float) -> np.ndarray:
    """Each row's weighted average over its worst boards holding ``share`` of the total weight (the
    board on the boundary counted in part): the expected score when things go as badly as they do in
    that share of the boards. ``share`` -> 0 is the worst board, 1 the mean."""
    order = np.argsort(p, axis=1)
    ordered = np.take_along_axis(p, order, axis=1)
    w = weights[order]
    target = max(share * float(weights.sum()), 1e-12)
    before = np.cumsum(w, axis=1) - w
    taken = np.clip(target - before, 0.0, w)
    return (ordered * taken).sum(axis=1) / target


def board_likelihoods(boards: Sequence[chess.Board], blunder_weight: float) -> np.ndarray:
    """How likely each board is, given that the opponent moved last: ``blunder_weight`` where it left
    its king capturable (a strong opponent rarely does), 1 elsewhere."""
    return np.array([blunder_weight if king_capture_moves(b) else 1.0 for b in boards], dtype=np.float64)


def capture_share(boards: Sequence[chess.Board], hits: int, blunder_weight: float) -> float:
    """The share of ``boards`` on which a king capture possible on ``hits`` of them works, each board
    weighed by its likelihood (see ``board_likelihoods``; every board it works on is one where the
    opponent left its king en prise). Counted alike, the boards where an opponent ignored our check
    outnumber its few escapes, though a sensing opponent nearly always escapes."""
    if blunder_weight >= 1.0:
        return hits / len(boards)
    return blunder_weight * hits / float(board_likelihoods(boards, blunder_weight).sum())


def rank(
    candidates: Sequence[chess.Move | None],
    scores: np.ndarray,
    config: MoveConfig,
    board_weights: np.ndarray | None = None,
    stand_for: np.ndarray | None = None,
) -> list[Candidate]:
    """Safety first: fewest boards where our king can then be captured, then the aggregate, then the
    mean. (With "min" the aggregate alone hides it: every move that loses somewhere scores the same.)
    With ``config.near_tie``, candidates within that much expected score of the best aggregate are
    ranked by their expected score over all boards: a worst board a few centipawns apart, which the
    search's depth decides, then no longer outweighs what the move does on every other board.
    ``stand_for``: how many believed boards each scored board stands for (see ``king_risk_ranking``).
    With ``king_risk="survivors"`` the worst board is taken over the boards where our king survives the
    move: once every candidate loses it somewhere, the lost boards are counted first and would
    otherwise set every worst board alike, leaving the choice to a centipawn mean in which one king
    capture either way (+-30,000) outweighs a queen hung on a tenth of the boards. With
    ``king_risk="aggregate"`` nothing is counted first: under an averaging aggregate a lost king scores
    0 on its board, so a move losing it on one board in forty can beat a king walk that hangs a rook
    on a third of them."""
    believed = board_weights  # likelihood times the believed boards each scored board stands for
    if stand_for is not None and not config.weigh_represented:  # (which the weights hold already)
        believed = stand_for if board_weights is None else board_weights * stand_for
    rational = config.aggregate == "rational"
    curved = on_curve(scores, config.score_curve)
    king_lost = scores <= -KING_CAPTURE_SCORE / 2  # candidates x boards
    values = aggregate(
        np.where(king_lost, CP_CLIP, curved) if config.king_risk == "survivors" else curved,
        config.aggregate,
        config.mix_min_weight,
        believed if rational else board_weights,
        config.tail_share,
        config.rational_temperature,
    )
    losses = counted_king_losses(king_lost, stand_for, config.king_risk_share)
    ranked = [
        Candidate(move, float(row.min()), float(row.mean()), float(value), int(lost), clipped_mean(row))
        for move, row, value, lost in zip(candidates, scores, values, losses, strict=True)
    ]
    if config.king_risk == "aggregate":
        ranked.sort(key=lambda c: (c.score, c.mean), reverse=True)
    else:
        ranked.sort(key=lambda c: (-c.king_losses, c.score, c.mean), reverse=True)
    if config.king_risk == "expected" and ranked and ranked[0].king_losses > 0:
        return king_risk_ranking(ranked, candidates, curved, believed)
    if config.near_tie > 0 and len(ranked) > 1:
        expected = dict(zip(candidates, aggregate(curved, "mean", 0.0, board_weights), strict=True))
        top = ranked[0]
        tied = (c for c in ranked if c.king_losses == top.king_losses)
        near = [c for c in tied if top.score - c.score <= config.near_tie]
        best = max(near, key=lambda c: expected[c.move])
        ranked.remove(best)
        ranked.insert(0, best)
    return ranked


def counted_king_losses(king_lost: np.ndarray, stand_for: np.ndarray | None, share: float) -> np.ndarray:
    """Each candidate's scored boards on which our king can then be captured, as the ranking counts them
    first (``king_lost``: candidates x boards). With ``share`` set, a candidate that loses it on less
    than that share of the believed boards (each scored board weighed by the boards it stands for)
    counts none: its averaging aggregate prices the loss (a lost king scores 0), so a check on one
    board in fifty no longer forces a king walk that hangs a rook on a third of them."""
    counts = king_lost.sum(axis=1)
    if share <= 0 or not king_lost.size:
        return counts
    believed = np.ones(king_lost.shape[1]) if stand_for is None else np.asarray(stand_for, dtype=np.float64)
    lost_share = (king_lost * believed).sum(axis=1) / max(float(believed.sum()), 1e-12)
    return np.where(lost_share < share, 0, counts)


def king_risk_ranking(
    ranked: list[Candidate],
    candidates: Sequence[chess.Move | None],
    scores: np.ndarray,
    believed: np.ndarray | None,
) -> list[Candidate]:
    """The candidates by expected score over the believed boards, a lost king scoring 0: the order
    when every candidate can lose our king on some scored board. Counting those boards first would
    let one board in forty outweigh a queen lost on the rest, and the worst board is a lost king for
    every candidate alike. The scored boards hold every board where our king is attacked and a
    sample of the others, so each weighs ``believed``: the boards it stands for, times its likelihood."""
    expected = dict(zip(candidates, aggregate(scores, "mean", 0.0, believed), strict=True))
    return sorted(ranked, key=lambda c: expected[c.move], reverse=True)


def worth_raiding(scores: np.ndarray, raid: int, best: int, board_weights: np.ndarray | None = None) -> bool:
    """Whether the king capture in row ``raid`` of ``scores`` expects at least what the ranking's choice
    (row ``best``) expects: its hits count 1 each, its misses what the engine says of them, each board
    weighed by ``board_weights`` (likelihoods; alike if None). A raid that hits on a third of the boards
    and hangs the queen on the rest expects ~0.4 where a quiet move in an even game expects ~0.5; one
    that hits on half of them and keeps the piece safe expects more."""
    expected = aggregate(scores[[raid, best]], "mean", 0.0, board_weights)
    return bool(expected[0] >= expected[1])
