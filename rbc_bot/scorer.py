"""Scoring positions for the move selector within a time budget: Stockfish when there is one, material
otherwise, and the depth that fits the budget (planned from a learned cost per evaluation, then deepened
while time is left when ``engine.fill_budget`` is on)."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence

import chess

from rbc_bot.config import EngineConfig
from rbc_bot.engine import EnginePool, fallback_score, fallback_top_moves


class Scorer:
    """Scores positions from the side to move: Stockfish when there is one, material otherwise.

    It learns what one depth-1 evaluation costs and picks the deepest search that fits a budget
    (each extra ply costs about ``DEPTH_GROWTH`` times more), so few boards get deep searches.
    """

    DEPTH_GROWTH = 1.8  # cost ratio of one more ply (measured on the go: the estimate self-corrects)
    MULTIPV_COST = 3  # a MultiPV search costs about this many single evaluations (benchmarks/engine.py)
    MIN_GROWTH, MAX_GROWTH = 1.2, 4.0  # bounds on a measured ply-to-ply cost ratio (noise at tiny passes)
    LAST_PASS_SHARE = 0.2  # with fill_budget, a pass predicted not to fit still runs if this much is left
    MIN_MOVETIME = 0.002  # seconds: the shortest movetime a search is given
    PROBE_FEN = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"  # fixed-cost probe
    PROBE_SEARCHES = 8  # per engine

    def __init__(self, engine: EnginePool | None, config: EngineConfig) -> None:
        self.engine = engine
        self.config = config
        self.seconds_per_eval = 0.0005  # at depth 1; refined from measurements as the game goes
        self.fixed_cost: float | None = None  # seconds a search costs past its movetime (probe_fixed_cost)
        self.fixed_cost_probes: deque[float] = deque(maxlen=config.fixed_cost_probes)
        self.evaluations = 0
        self.last_pass_seconds = 0.0  # how long evaluate_deepening's deepest pass took

    def plan_depth(self, evaluations: int, budget_seconds: float) -> int:
        """The deepest depth (config.depth .. config.max_depth) whose estimated cost fits the budget."""
        depth = self.config.depth
        while depth < self.config.max_depth and evaluations * self.eval_cost(depth + 1) <= budget_seconds:
            depth += 1
        return depth

    def eval_cost(self, depth: int) -> float:
        """The learned seconds one evaluation at ``depth`` costs: the depth-1 cost times ``DEPTH_GROWTH``
        a ply."""
        return max(self.seconds_per_eval, 1e-5) * self.DEPTH_GROWTH ** (depth - 1)

    def _movetime(self, searches: int, budget_seconds: float | None) -> float | None:
        """Seconds one search may take so that ``searches`` spread over the engines fit the budget with
        each one's fixed cost (the exchange with the engine, which no movetime caps: thousands of
        searches pay seconds of it), and well inside the engine's per-search timeout (past which it
        would be restarted)."""
        if budget_seconds is None or self.engine is None or searches == 0:
            return None
        share = budget_seconds / self._rounds(searches) - self.measure_fixed_cost()
        return min(max(self.MIN_MOVETIME, share), 0.5 * self.engine.timeout)

    def most_searches(self, budget_seconds: float) -> int:
        """The most searches that fit ``budget_seconds`` on the engines when each takes the least
        movetime plus its fixed cost: more than this overrun the budget whatever their depth. No
        bound without an engine or under node limits (no movetime then)."""
        if self.engine is None or self.config.nodes is not None:
            return 2**31
        floor = self.measure_fixed_cost() + self.MIN_MOVETIME
        return self.engine.workers * int(budget_seconds / floor)

    def searches_at_depth(self, depth: int, budget_seconds: float) -> int:
        """The most evaluations the learned cost says fit ``budget_seconds`` at ``depth`` (each ply
        costing ``DEPTH_GROWTH`` times the last): the bound that keeps a pass at least that deep."""
        return int(budget_seconds / self.eval_cost(depth))

    def _rounds(self, searches: int) -> int:
        """Searches one engine runs one after another when ``searches`` are spread over the engines."""
        return -(-searches // (self.engine.workers if self.engine is not None else 1))

    def measure_fixed_cost(self) -> float:
        """What one search costs however short its movetime: probed the first time it is needed (see
        ``probe_fixed_cost``) and kept. 0 without an engine or under node limits (no movetime then)."""
        if self.fixed_cost is None:
            self.probe_fixed_cost()
        return self.fixed_cost or 0.0

    def probe_fixed_cost(self) -> None:
        """Probe the fixed cost again: the time per search of depth-1 searches of one position, which
        the engine answers from its hash (the exchange with the engine, nothing else), and keep the
        least of the last ``engine.fixed_cost_probes`` probes. A probe of a few milliseconds on engines
        started a moment before, or one the scheduler interrupts, reads several to a hundred times the
        cost, and that bound on the searches a budget can pay then holds the move to a few boards for
        the whole game; a cold engine or an interruption only adds, so the least of several probes is
        the cost."""
        if self.engine is None or self.config.nodes is not None:
            self.fixed_cost = 0.0
            return
        probe = [chess.Board(self.PROBE_FEN)] * (self.PROBE_SEARCHES * self.engine.workers)
        started = time.perf_counter()
        self.engine.evaluate(probe, depth=1, movetime=0.05)  # a hung engine costs ~1 s
        self.fixed_cost_probes.append((time.perf_counter() - started) / self.PROBE_SEARCHES)
        self.fixed_cost = min(self.fixed_cost_probes)

    def _limits(self, depth: int | None, movetime: float | None) -> dict[str, int | float | None]:
        if self.config.nodes is not None:  # deterministic: node limits only
            return {"nodes": self.config.nodes}
        return {"depth": depth or self.config.depth, "movetime": movetime}

    def evaluate(
        self,
        boards: Sequence[chess.Board],
        depth: int | None = None,
        budget_seconds: float | None = None,
        learn: bool = True,
    ) -> list[float]:
        """Scores for the side to move; with ``budget_seconds`` each search is also capped in time, so a
        depth planned on a stale cost estimate cannot overrun the turn. ``learn=False``: the time taken
        says nothing of a depth-1 evaluation's cost (searches as deep as their movetime allows)."""
        if not boards:
            return []
        started = time.perf_counter()
        movetime = self._movetime(len(boards), budget_seconds)
        if self.engine is None:
            scores = [fallback_score(b) for b in boards]
        else:
            scores = self.engine.evaluate(boards, **self._limits(depth, movetime))  # type: ignore[arg-type]
        elapsed = time.perf_counter() - started
        self.evaluations += len(boards)
        truncated = budget_seconds is not None and elapsed >= 0.8 * budget_seconds
        if learn and not truncated:  # a search stopped by its time cap says nothing of its depth's cost
            scale = self.DEPTH_GROWTH ** ((depth or self.config.depth) - 1)
            self.seconds_per_eval = 0.7 * self.seconds_per_eval + 0.3 * (elapsed / len(boards) / scale)
        return scores

    def evaluate_deepening(
        self, boards: Sequence[chess.Board], depth: int, budget_seconds: float
    ) -> tuple[list[float], int]:
        """Scores at the planned ``depth``, then, with ``fill_budget``, one ply deeper at a time while the
        next pass is predicted to fit what is left: the depth plan errs on the cautious side (Stockfish's
        shallow plies cost far less than ``DEPTH_GROWTH`` each, so it can leave nine tenths of a turn
        unused). The prediction is the last pass's time times the growth the passes showed; each pass is
        also capped by its movetime, so a wrong prediction costs at most the budget. When the next pass
        is predicted not to fit, a last one may still run, cut short by its movetimes
        (``next_pass_budget``), so the budget is spent rather than up to three quarters of it left over."""
        started = time.perf_counter()
        scores = self.evaluate(boards, depth, budget_seconds)
        last_pass = time.perf_counter() - started
        growth = self.DEPTH_GROWTH
        deepens = self.config.fill_budget and self.engine is not None and self.config.nodes is None
        while deepens and depth < self.config.max_depth:  # (under node limits every pass is the same)
            left = budget_seconds - (time.perf_counter() - started)
            pass_budget = self.next_pass_budget(left, last_pass, growth, budget_seconds, len(boards))
            if pass_budget is None:
                break
            pass_started = time.perf_counter()
            scores = self.evaluate(boards, depth + 1, pass_budget)
            depth += 1
            this_pass = time.perf_counter() - pass_started
            growth = min(max(this_pass / max(last_pass, 1e-4), self.MIN_GROWTH), self.MAX_GROWTH)
            last_pass = this_pass
        self.last_pass_seconds = last_pass
        return scores, depth

    def next_pass_budget(
        self, left: float, last_pass: float, growth: float, budget: float, searches: int
    ) -> float | None:
        """The time the next pass, one ply deeper, may take (``None``: stop deepening): all that is left
        if the last pass's time times ``growth`` fits in it. Else a last pass cut short by its movetimes
        (a search stopped inside a ply reports Stockfish's best line so far) gets it too, if that is at
        least ``LAST_PASS_SHARE`` of the budget. Either way each of the ``searches`` must get more than
        the least movetime beyond its fixed cost: below that, thousands of searches overrun the budget
        on their fixed costs and least movetimes alone, however fast the last pass was. Without
        ``fill_last_pass`` only passes predicted to fit run, so every board is scored at one depth."""
        if self.engine is None:
            return None
        if searches > self.most_searches(left):
            return None
        if last_pass * growth <= left:
            return left
        last_pass_fits = self.config.fill_last_pass and left >= self.LAST_PASS_SHARE * budget
        return left if last_pass_fits else None

    def top_moves(
        self, boards: Sequence[chess.Board], k: int, budget_seconds: float | None = None
    ) -> list[list[tuple[chess.Move, float]]]:
        """Stockfish's ``k`` best moves per board (MultiPV), searched as deep as ``budget_seconds`` allows
        (a MultiPV search costs about ``MULTIPV_COST`` single evaluations)."""
        if self.engine is None:
            return [fallback_top_moves(b, k) for b in boards]
        depth, movetime = self.config.depth, None
        if budget_seconds is not None:
            depth = self.plan_depth(len(boards) * self.MULTIPV_COST, budget_seconds)
            movetime = self._movetime(len(boards), budget_seconds)
        return self.engine.top_moves(boards, k, **self._limits(depth, movetime))  # type: ignore[arg-type]
