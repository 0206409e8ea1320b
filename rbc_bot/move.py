"""Move selectors: the move that does best over the boards we believe possible, worst case and likely case.

Candidates are Stockfish's top moves over a sample of boards (boards where our king is attacked first,
so their escapes are proposed), plus the pass. Every candidate is played on every scored board with RBC
revision and the position after it is scored from our side; among the moves that leave our king
capturable on the fewest boards, the one whose aggregate expected score is best wins (by default 0.3 of
its worst board and 0.7 of its mean, each board weighed by how likely it is). A king capture possible on
enough believed boards is taken at once, if a miss cannot cost our king. Quiet checks earn a bonus: the
opponent is not told it is in check.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from rbc_bot.board_sample import Draw, PriorDraw, Tiers, uniform
from rbc_bot.config import MoveConfig
from rbc_bot.likely import WEIGHT_TABLES, LikelyDraw, best_candidate_weights
from rbc_bot.playout import play_out
from rbc_bot.probing import probe_bonuses
from rbc_bot.raid import SAFETY_SAMPLE, exposes_king, king_captures
from rbc_bot.ranking import (
    Candidate,
    board_likelihoods,
    capture_share,
    on_curve,
    rank,
    win_probability,
    worth_raiding,
)
from rbc_bot.scorer import Scorer


@dataclass
class MoveDecision:
    move: chess.Move | None
    reason: str  # "king-capture", "best-worst", "only-move", "no-boards"
    candidates: list[Candidate]
    boards_scored: int
    evaluations: int
    depth: int = 0
    threatened: int = 0  # believed boards where the opponent could check our king at once (threat_share)
    widened: int = 0  # of the boards scored, those the breadth fill added (move.fill_breadth)
    probe_pay: dict[chess.Move | None, float] | None = None  # each candidate's pay (move.probe_cp)


def quiet_checks(boards: Sequence[chess.Board], legal: set[chess.Move]) -> Counter[chess.Move]:
    """For each legal request that checks without capturing on some board, on how many boards it does."""
    counts: Counter[chess.Move] = Counter()
    for board in boards:
        for move in board.pseudo_legal_moves:
            if move in legal and not board.is_capture(move) and board.gives_check(move):
                counts[move] += 1
    return counts


def pawn_pushes(board: chess.Board, legal: set[chess.Move]) -> list[chess.Move]:
    """Our pawns' forward moves among ``legal`` (promotions to a queen only), in a fixed order. Our own
    pieces stand alike on every believed board, so one board tells them."""
    return sorted(
        (
            m
            for m in legal
            if board.piece_at(m.from_square) == chess.Piece(chess.PAWN, board.turn)
            and chess.square_file(m.from_square) == chess.square_file(m.to_square)
            and m.promotion in (None, chess.QUEEN)
        ),
        key=lambda m: (m.from_square, m.to_square),
    )


def choose_move(
    boards: Sequence[chess.Board],
    move_actions: Sequence[chess.Move],
    scorer: Scorer,
    config: MoveConfig,
    budget_seconds: float,
    rng: np.random.Generator,
    progress_bonus: float = 0.0,
    move_bonuses: dict[chess.Move | None, float] | None = None,
    prior: BoardPrior | None = None,
) -> MoveDecision:
    """The best-worst move over ``boards`` (our side to move on each) within about ``budget_seconds``:
    a safe king capture at once, else propose candidates, play them out on the scored boards, rank.
    ``move_bonuses`` (centipawns on every board, e.g. the opening plan) also make their moves candidates,
    and with a ``progress_bonus`` and ``config.progress_pushes`` so do our pawn pushes: in a won ending
    the engine proposes the moves that keep every board won, and the push the 100-ply rule needs may be
    none of them. ``prior`` (the belief's carried weights, rbc_bot.belief_weights) weighs the scored
    boards in the averages besides the config's weights, or with ``config.prior_draw`` draws them.
    ``config.probe_cp`` pays each candidate for the believed boards its answer would rule out
    (rbc_bot.probing)."""
    started = time.perf_counter()
    legal = set(move_actions)
    if not boards:
        return MoveDecision(None, "no-boards", [], 0, 0)
    captures = king_captures(boards, legal)
    raid = None  # a king capture possible on enough boards, if its worth is to be weighed first
    if captures:
        capture, count = captures.most_common(1)[0]
        share = capture_share(boards, count, config.blunder_board_weight)
        if share >= config.king_capture_share and not exposes_king(
            boards, capture, SAFETY_SAMPLE, rng, config.king_capture_guard_value
        ):
            if not config.king_capture_by_value:
                return MoveDecision(capture, "king-capture", [], len(boards), 0)
            raid = capture

    tiers = Tiers.of(boards, config.threat_share > 0, config.queen_share > 0)
    draw = calm_draw(scorer, config, budget_seconds, prior)
    candidates = propose(tiers, len(boards), legal, captures, scorer, config, budget_seconds, rng, draw)
    bonuses = move_bonuses or {}
    candidates += [m for m, b in bonuses.items() if b > 0 and m not in candidates]
    if progress_bonus > 0 and config.progress_pushes:
        candidates += [m for m in pawn_pushes(boards[0], legal) if m not in candidates]
    if len(candidates) == 1:
        return MoveDecision(candidates[0], "only-move", [], 0, 0)

    remaining = max(0.0, budget_seconds - (time.perf_counter() - started))
    n_boards = int(remaining / max(scorer.seconds_per_eval, 1e-5) / len(candidates))
    # However cheap the learned cost per evaluation says a search is, each pays its fixed cost and at
    # least the least movetime: more boards than those allow would overrun the budget.
    n_boards = min(config.max_boards, n_boards, scorer.most_searches(0.85 * remaining) // len(candidates))
    if config.min_depth:  # depth before breadth: no more boards than a pass at min_depth can score
        n_boards = min(
            n_boards, scorer.searches_at_depth(config.min_depth, 0.85 * remaining) // len(candidates)
        )
    n_boards = max(config.min_boards, n_boards)
    scored_boards, represented = tiers.sample(
        n_boards, config.threat_share, rng, queen_share=config.queen_share, draw_calm=draw
    )
    played = play_out(candidates, scored_boards, config, progress_bonus, bonuses)
    look_share = config.second_look_share if config.second_look > 1 else 0.0
    remaining = max(0.0, budget_seconds - (time.perf_counter() - started)) * 0.85 * (1 - look_share)
    depth = scorer.plan_depth(len(played.children), remaining)
    raw_scores, depth = scorer.evaluate_deepening(played.children, depth, remaining)
    child_scores = -np.asarray(raw_scores, dtype=np.float64)  # our side
    scores = played.scores(child_scores)
    pay = np.zeros((len(candidates), 1))  # the probes' pay: on every board, here and in what follows
    probes = None
    if config.probe_cp:
        probes = probe_bonuses(candidates, played.outcomes, represented, len(boards), config.probe_cp)
        pay[:, 0] = [probes[m] for m in candidates]
        scores = scores + pay
        bonuses = {m: bonuses.get(m, 0.0) + probes[m] for m in candidates}
    first_sample = len(scored_boards)
    if config.fill_breadth and len(scored_boards) < len(boards):
        left = max(0.0, budget_seconds - (time.perf_counter() - started)) * 0.85 * (1 - look_share)
        widening = Widening(tiers, candidates, config, scorer, rng, draw, progress_bonus, bonuses)
        scored_boards, represented, scores = widening.widen(scored_boards, represented, scores, depth, left)
    weights = move_weights(scored_boards, scores - pay, config, represented)  # how likely, not what pays
    if prior is not None and not config.prior_draw and len(scored_boards):
        weights = prior(scored_boards) * (1.0 if weights is None else weights)
    ranked = rank(candidates, scores, config, weights, represented)
    if look_share:
        left = max(0.0, budget_seconds - (time.perf_counter() - started)) * 0.85
        look = SecondLook(candidates, scored_boards, scores, weights)
        ranked = look.rerank(ranked, scorer, config, left, progress_bonus, bonuses)
    move, reason = ranked[0].move, "best-worst"
    if raid is not None and worth_raiding(
        on_curve(scores, config.score_curve), candidates.index(raid), candidates.index(move), weights
    ):
        move, reason = raid, "king-capture"
    return MoveDecision(
        move, reason, ranked, len(scored_boards), len(played.children), depth, len(tiers.threatened),
        len(scored_boards) - first_sample, probes,
    )  # fmt: skip


BoardPrior = Callable[[Sequence[chess.Board]], np.ndarray]
"""Each board's weight from outside the move (one per board, mean about 1)."""


def move_weights(
    boards: Sequence[chess.Board],
    scores: np.ndarray,
    config: MoveConfig,
    represented: np.ndarray | None = None,
) -> np.ndarray | None:
    """How much each scored board weighs in the averaging aggregates (None: alike): with
    ``blunder_board_weight`` below 1, boards where the opponent left its king en prise weigh that much;
    with ``likely_weights``, each board's rank weight (rbc_bot.likely) by our best candidate's score
    there (``scores``: candidates x boards), so the boards worst for us, the likeliest, weigh most; with
    ``weigh_represented``, times the believed boards each stands for (``represented``), scaled to at
    most 1: every attacked board is scored, so counted alike a check on 2 % of the belief can fill a
    quarter of the sample and of the mean."""
    weighed = config.blunder_board_weight < 1.0  # at 1 every board weighs the same: nothing to look for
    weights = board_likelihoods(boards, config.blunder_board_weight) if weighed else None
    if config.likely_weights and scores.size:
        likely = best_candidate_weights(scores, WEIGHT_TABLES[config.likely_table])
        weights = likely if weights is None else weights * likely
    if config.weigh_represented and represented is not None and len(represented):
        share = np.asarray(represented, dtype=np.float64) / float(np.max(represented))
        weights = share if weights is None else weights * share
    return weights


def calm_draw(scorer: Scorer, config: MoveConfig, budget_seconds: float, prior: BoardPrior | None) -> Draw:
    """How the calm boards are drawn when not all fit: by the belief's carried weights (``prior``) with
    ``prior_draw``, by how likely each is with ``likely_pool``, else uniformly."""
    if prior is not None and config.prior_draw:
        return PriorDraw(prior)
    if not config.likely_pool:
        return uniform
    return LikelyDraw(scorer, config.likely_pool, config.likely_pool_share * budget_seconds)


def propose(
    tiers: Tiers,
    n_boards: int,
    legal: set[chess.Move],
    captures: Counter[chess.Move],
    scorer: Scorer,
    config: MoveConfig,
    budget_seconds: float,
    rng: np.random.Generator,
    draw: Draw = uniform,
) -> list[chess.Move | None]:
    """The candidates: Stockfish's top moves over a sample of boards (attacked boards first, so their
    escapes are proposed, up to ``proposal_attacked_share`` of the sample when there are others: a
    rare threat must not leave only king moves to choose from; then, with ``queen_share``, boards
    where our queen is attacked, so its escapes are proposed, and with ``threat_share``, boards where
    the opponent could check our king at once, so the moves that parry a mate in one are proposed;
    the calm boards by ``draw``), the king captures too rare to take
    blindly, the quiet checks (which the engine rarely proposes: it assumes the opponent sees them)
    and the pass."""
    k = max(8, config.max_candidates)
    from_attacked = k if not tiers.quiet else max(1, int(k * config.proposal_attacked_share))
    proposal_boards, _ = tiers.sample(
        k, config.threat_share, rng, from_attacked, queen_share=config.queen_share, draw_calm=draw
    )
    votes: Counter[chess.Move | None] = Counter()
    top_k = config.top_k if n_boards > 8 else max(config.top_k, 8)  # few boards: widen the search
    for board_moves in scorer.top_moves(proposal_boards, top_k, budget_seconds * config.proposal_share):
        for move, _ in board_moves:
            if move in legal:
                votes[move] += 1
            elif (
                move.promotion is None and chess.Move(move.from_square, move.to_square, chess.QUEEN) in legal
            ):
                votes[chess.Move(move.from_square, move.to_square, chess.QUEEN)] += 1
    candidates: list[chess.Move | None] = [m for m, _ in votes.most_common(config.max_candidates)]
    candidates += [m for m, _ in captures.most_common(4) if m not in candidates]
    if config.quiet_check_bonus or config.quiet_check_odds:
        checks = quiet_checks(proposal_boards, legal)
        candidates += [m for m, _ in checks.most_common(4) if m not in candidates]
    if config.consider_pass or not candidates:
        candidates.append(None)
    return candidates


@dataclass
class Widening:
    """More boards scored at the depth the deepening reached, in the time it left (``move.fill_breadth``):
    the deepening stops with up to half the turn unused when the next ply is predicted not to fit, and
    this spends that time on breadth rather than on a pass that would mix depths across boards."""

    tiers: Tiers
    candidates: list[chess.Move | None]
    config: MoveConfig
    scorer: Scorer
    rng: np.random.Generator
    draw: Draw
    progress_bonus: float
    bonuses: dict[chess.Move | None, float]

    CHUNKS = 4  # the extra boards are scored a quarter of the first sample at a time
    MARGIN = 0.5  # ... each only if predicted to take at most this share of what is left

    def widen(
        self,
        scored: list[chess.Board],
        represented: np.ndarray,
        scores: np.ndarray,
        depth: int,
        seconds: float,
    ) -> tuple[list[chess.Board], np.ndarray, np.ndarray]:
        """The scored boards, how many believed boards each stands for and the scores (candidates x
        boards), with more boards up to ``fill_breadth`` in all, scored within ``seconds`` a chunk at a
        time (a ``CHUNKS``-th of the first sample): each chunk only if the time per board measured so far
        says it takes at most ``MARGIN`` of what is left (search times at one depth vary from board to
        board) and its searches cannot overrun on their fixed costs, so a misjudged chunk costs at most
        what was left, and a turn short of time keeps the first sample alone."""
        started = time.perf_counter()
        per_board = self.scorer.last_pass_seconds / max(len(scored), 1)
        chunk = max(self.config.min_boards, len(scored) // self.CHUNKS)
        boards, parts = list(scored), [scores]
        while True:
            left = seconds - (time.perf_counter() - started)
            room = self.config.fill_breadth - len(boards)
            size = min(chunk, room, int(self.MARGIN * left / max(per_board, 1e-6)))
            if size <= 0 or size < min(self.config.min_boards, room):  # too little time for a chunk
                break
            chunk_started = time.perf_counter()
            extra = self.tiers.widen(
                boards, size, self.config.threat_share, self.rng, self.config.queen_share, self.draw
            )
            played = play_out(self.candidates, extra, self.config, self.progress_bonus, self.bonuses)
            if not extra or len(played.children) > self.scorer.most_searches(left):
                break
            raw = self.scorer.evaluate(played.children, depth, left)
            parts.append(played.scores(-np.asarray(raw, dtype=np.float64)))
            boards += extra
            per_board = (time.perf_counter() - chunk_started) / len(extra)
        if len(boards) == len(scored):
            return scored, represented, scores
        return boards, self.tiers.stands_for(boards), np.hstack(parts)


@dataclass
class SecondLook:
    """A deeper look at the best few candidates where it matters: the boards that set their worst
    values. Under large beliefs the first pass searches a few plies deep, and two runs of the same bot
    choose differently on about 4 uncertain turns in 10: near-equal candidates are told apart by the
    depth of the searches on their worst boards, so those boards get the deeper searches."""

    candidates: Sequence[chess.Move | None]
    boards: Sequence[chess.Board]
    scores: np.ndarray  # candidates x boards, our centipawns from the first pass
    weights: np.ndarray | None

    def rerank(
        self,
        ranked: list[Candidate],
        scorer: Scorer,
        config: MoveConfig,
        seconds: float,
        progress_bonus: float,
        move_bonuses: dict[chess.Move | None, float],
    ) -> list[Candidate]:
        """``ranked`` with its top ``config.second_look`` candidates (as safe as the best) re-ranked on
        their ``config.second_look_boards`` worst boards each, searched again within ``seconds``."""
        top = [c for c in ranked[: config.second_look] if c.king_losses == ranked[0].king_losses]
        if len(top) < 2 or seconds <= 0:
            return ranked
        moves = [c.move for c in top]
        rows = self.scores[[self.candidates.index(m) for m in moves]]
        worst = np.argsort(rows, axis=1)[:, : config.second_look_boards]
        columns = sorted(set(worst.ravel().tolist()))
        played = play_out(moves, [self.boards[j] for j in columns], config, progress_bonus, move_bonuses)
        deep = scorer.evaluate(played.children, scorer.config.max_depth, seconds, learn=False)
        rows[:, columns] = played.scores(-np.asarray(deep, dtype=np.float64))
        return rank(moves, rows, config, self.weights) + ranked[len(top) :]


def candidate_values(
    boards: Sequence[chess.Board],
    legal: set[chess.Move],
    scorer: Scorer,
    config: MoveConfig,
    budget_seconds: float,
    rng: np.random.Generator,
) -> np.ndarray:
    """Each candidate's expected score (``win_probability``) on each of ``boards``, candidates x boards:
    what a sense that serves the move compares (rbc_bot.sense.decision_square)."""
    started = time.perf_counter()
    captures = king_captures(boards, legal)
    tiers = Tiers.of(boards, config.threat_share > 0, config.queen_share > 0)
    candidates = propose(tiers, len(boards), legal, captures, scorer, config, budget_seconds, rng)
    played = play_out(candidates, boards, config, 0.0)
    remaining = max(0.0, budget_seconds - (time.perf_counter() - started))
    depth = scorer.plan_depth(len(played.children), remaining)
    child_scores = -np.asarray(scorer.evaluate(played.children, depth, remaining), dtype=np.float64)
    return win_probability(on_curve(played.scores(child_scores), config.score_curve))
