"""RbcBot, the one reconchess Player of this project: it wires the parts and holds no game logic.

Observation -> belief (rbc_bot.belief) -> sense rules or move selector (rbc_bot.sense_rules,
rbc_bot.move), with the engine pool and the clock as services. No Player method ever raises: on an
internal error it logs the traceback and returns a legal fallback (a central sense, a king capture or
the pass).
"""

from __future__ import annotations

import functools
import logging
import random
import time
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import chess
import numpy as np
from reconchess import GameHistory, Player, WinReason

from rbc_bot.belief import BeliefTracker, piece_code
from rbc_bot.belief_rows import decode
from rbc_bot.clock import Clock, TurnBudget, panic_move_config
from rbc_bot.config import BotConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.notation import square_name
from rbc_bot.opening import opening_bonuses
from rbc_bot.passive import PassiveWatch
from rbc_bot.raid import guard_for_turn, king_capture
from rbc_bot.scorer import Scorer
from rbc_bot.sense_rules import SenseInputs, SenseRules
from rbc_bot.turn_log import TurnLog, move_fields

log = logging.getLogger(__name__)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")  # what a prior weighs: rows or boards
PROGRESS_AFTER_PLIES = 40  # plies without capture or pawn move before progress earns a bonus
CHOICE_SAMPLE = 3_000  # boards the move selector sees at most (king captures and check escapes among them)


def guarded(fallback: Callable[..., Any]) -> Callable[[F], F]:
    """Run a Player method; on any exception log it and return ``fallback(self, *args)`` instead."""

    def decorate(method: F) -> F:
        @functools.wraps(method)
        def wrapper(self: RbcBot, *args: Any, **kwargs: Any) -> Any:
            try:
                return method(self, *args, **kwargs)
            except Exception:
                self.errors += 1
                log.exception("%s failed; falling back", method.__name__)
                try:
                    return fallback(self, *args, **kwargs)
                except Exception:
                    log.exception("fallback of %s failed too", method.__name__)
                    return None

        return wrapper  # type: ignore[return-value]

    return decorate


def _no_action(self: RbcBot, *args: Any, **kwargs: Any) -> None:
    return None


def _fallback_sense(self: RbcBot, *args: Any, **kwargs: Any) -> int:
    self._sense_square = chess.E5 if self.color == chess.WHITE else chess.E4
    return self._sense_square


def _fallback_move(
    self: RbcBot, move_actions: Sequence[chess.Move], *args: Any, **kwargs: Any
) -> chess.Move | None:
    """A king capture seen on any live board, else the pass (always legal)."""
    return king_capture(self.tracker.sample(200), set(move_actions))


class RbcBot(Player):
    """Belief tracking, a sense chosen by rule (raid, danger, king hunt, else the configured selector: by
    default the centre that best serves the move choice) and the best-worst Stockfish move, within the
    clock."""

    def __init__(self, config: BotConfig | None = None, turn_log_path: str | Path | None = None) -> None:
        self.config = config or BotConfig()
        self.turn_log = TurnLog(turn_log_path)
        self.errors = 0
        self.engine: EnginePool | None = None
        self.color: chess.Color = chess.WHITE
        self.tracker = BeliefTracker(chess.WHITE)
        self.passive = PassiveWatch(chess.WHITE)
        self.rng = np.random.default_rng(self.config.belief.seed)
        self.clock = Clock(self.config.clock, increment=0.0)
        self.turn = 0
        self.plies_without_progress = 0  # an upper bound of the halfmove clock (their pawn moves unseen)
        self._futile: chess.Move | None = None  # last turn's request that was not played as asked
        self._last_mean = 0.0  # mean and worst centipawns of the last move chosen
        self._last_worst = 0.0
        self._sense_square: int | None = None
        self._budget: TurnBudget | None = None
        self._seconds_at_sense = 0.0
        self._move_started = 0.0
        self._seconds_at_move: float | None = None
        self._move_seconds = 0.0
        self._turn_seconds: float | None = None  # our last turn's seconds, sense to move
        self._turn_started = 0.0

    # --- reconchess Player interface -------------------------------------------------------------
    @guarded(_no_action)
    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self.color = color
        self.opponent_name = opponent_name
        self.tracker = BeliefTracker(color, board, config=self.config.belief)
        self.tracker.recovery_seconds = 2.0
        self.passive = PassiveWatch(color)
        random.seed(self.config.belief.seed)
        self._start_engine()
        self.turn_log.start_game()
        log.info("game start: %s vs %s; engine %s", chess.COLOR_NAMES[color], opponent_name,
                 self.engine.name if self.engine else "none (material scoring)")  # fmt: skip

    @guarded(_no_action)
    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: int | None) -> None:
        self.turn += 1
        self.turn_log.start_turn(self.turn, self.color)
        self._turn_started = time.perf_counter()
        self._turn_seconds = None
        recoveries = self.tracker.recoveries
        opponent_moved, before = self.tracker.to_move != self.color, self.tracker.rows  # not White's first
        self.tracker.on_opponent_move(capture_square)
        if opponent_moved:
            self.passive.on_opponent_move(capture_square, before)
        if capture_square is not None:
            self.plies_without_progress = 0
        self.turn_log.update(opponent_capture_square=square_name(capture_square))
        self.turn_log.belief("after_opponent", self.tracker)
        self.turn_log.count("recoveries", self.tracker.recoveries - recoveries)
        self.turn_log.update(seconds_expand=round(time.perf_counter() - self._turn_started, 4))

    @guarded(_fallback_sense)
    def choose_sense(
        self, sense_actions: Sequence[int], move_actions: Sequence[chess.Move], seconds_left: float
    ) -> int | None:
        started = time.perf_counter()
        self._learn_increment(seconds_left)
        self._budget = budget = self.clock.budget(seconds_left)
        self._wait_for_engines(budget)
        if self.config.engine.fixed_cost_probes > 1 and not budget.panic:
            self.scorer.probe_fixed_cost()
        self._seconds_at_sense = seconds_left
        self.tracker.cap = Clock.belief_cap(self.config.belief, budget)
        self.tracker.recovery_seconds = max(0.2, budget.total / 3)
        rules = SenseRules(self.config, self.scorer, self.rng)
        prior = self._prior(self.config.sense.prior_power, self.tracker.weights_of)
        seen = SenseInputs(self.tracker.rows, self.color, self._last_mean, self._last_worst, move_actions,
                           budget.sense, budget.panic, self.turn, prior)  # fmt: skip
        square, rule = rules.choose(seen)
        if rules.danger_share is not None:
            self.turn_log.update(danger_share=rules.danger_share)
        self._sense_square = square
        self.turn_log.update(
            seconds_left=round(seconds_left, 2), budget=round(budget.total, 2), panic=budget.panic,
            budget_stretch=round(self.clock.stretch(), 3),
            sense_square=square_name(square), sense_rule=rule,
            seconds_sense=round(time.perf_counter() - started, 4),
        )  # fmt: skip
        return square

    @guarded(_no_action)
    def handle_sense_result(self, sense_result: Sequence[tuple[int, chess.Piece | None]]) -> None:
        before = self.tracker.live_size
        recoveries = self.tracker.recoveries
        self.tracker.on_sense(self._sense_square, sense_result)
        self.passive.on_sense(self._sense_square, sense_result)
        self.turn_log.update(sense_eliminated=max(0, before - self.tracker.live_size))
        self.turn_log.belief("after_sense", self.tracker)
        self.turn_log.count("recoveries", self.tracker.recoveries - recoveries)

    @guarded(_fallback_move)
    def choose_move(self, move_actions: Sequence[chess.Move], seconds_left: float) -> chess.Move | None:
        self._move_started = started = time.perf_counter()
        self._seconds_at_move = seconds_left
        budget = self._budget or self.clock.budget(seconds_left)
        self._wait_for_engines(budget)
        # What the sense left of the turn's budget goes to the move (the sense is usually far quicker).
        spent = max(0.0, self._seconds_at_sense - seconds_left) if self._budget else 0.0
        move_seconds = min(
            max(budget.move, budget.total - spent), max(0.0, seconds_left - self.config.clock.margin) * 0.5
        )
        config = panic_move_config(self.config.move) if budget.panic else self.config.move
        config = guard_for_turn(config, self.turn)
        boards = self._move_boards()
        calls = self.engine.stats.calls if self.engine else 0
        restarts = self.engine.stats.restarts if self.engine else 0
        # A request that just failed (a capture of a piece that was not there, say) is not repeated at
        # once: the boards where it works come back with every opponent move, and against a large
        # belief it would be requested turn after turn, a pass in disguise.
        actions = [m for m in move_actions if m != self._futile] or list(move_actions)
        decision = choose_move(
            boards, actions, self.scorer, config, move_seconds, self.rng, self.progress_bonus(),
            self._opening_bonuses(actions),
            self._prior(config.prior_power, self.tracker.weights_of_boards),
        )  # fmt: skip
        move = decision.move if decision.move in set(move_actions) else None
        if decision.candidates:
            best = decision.candidates[0]
            self._last_mean = best.standing if config.clipped_standing else best.mean
            self._last_worst = best.worst
        self.turn_log.update(
            seconds_left_move=round(seconds_left, 2),
            **move_fields(decision, move, self.scorer),
            seconds_move=round(time.perf_counter() - started, 4),
            seconds_turn=round(time.perf_counter() - self._turn_started, 4),  # all of it on our clock
            engine_calls=(self.engine.stats.calls - calls) if self.engine else 0,
            engine_restarts=(self.engine.stats.restarts - restarts) if self.engine else 0,
        )
        self._move_seconds = time.perf_counter() - started
        self._turn_seconds = time.perf_counter() - self._turn_started
        return move

    @guarded(_no_action)
    def handle_move_result(
        self,
        requested_move: chess.Move | None,
        taken_move: chess.Move | None,
        captured_opponent_piece: bool,
        capture_square: int | None,
    ) -> None:
        recoveries = self.tracker.recoveries
        pawn_moved = taken_move is not None and self._is_our_pawn(taken_move.from_square)
        self.plies_without_progress = (
            0 if pawn_moved or capture_square is not None else self.plies_without_progress + 2
        )
        self.tracker.on_own_move(requested_move, taken_move, capture_square)
        self.passive.on_own_move(requested_move, taken_move, capture_square)
        self._futile = requested_move if requested_move is not None and taken_move != requested_move else None
        self.turn_log.update(
            taken_move=taken_move.uci() if taken_move else None, capture_square=square_name(capture_square)
        )
        self.turn_log.belief("after_move", self.tracker)
        self.turn_log.count("recoveries", self.tracker.recoveries - recoveries)
        self.turn_log.update(errors=self.errors)
        self.clock.end_turn(self._budget, self._turn_seconds)
        self.turn_log.write()

    @guarded(_no_action)
    def handle_game_end(
        self, winner_color: chess.Color | None, win_reason: WinReason | None, game_history: GameHistory
    ) -> None:
        winner = None if winner_color is None else chess.COLOR_NAMES[winner_color]
        log.info("game over: winner %s by %s; %d internal errors", winner, win_reason, self.errors)
        self.close()

    # --- helpers ---------------------------------------------------------------------------------
    def resume(
        self,
        tracker: BeliefTracker,
        turn: int,
        increment: float,
        last_mean: float = 0.0,
        last_worst: float = 0.0,
    ) -> None:
        """Take up a game at the start of our turn ``turn`` (counted from 1), believing ``tracker``'s
        boards after the opponent's move: a recorded position's sense and move are then chosen exactly as
        in the game (``last_mean``/``last_worst``: the last move's centipawns, which steer the sense
        rules). The engine is started once and kept across resumed positions."""
        self.color = tracker.color
        self.tracker = tracker
        self.turn = turn
        self.clock = Clock(self.config.clock, increment)
        self.clock.turns_played = turn - 1
        self._last_mean, self._last_worst = last_mean, last_worst
        self.passive = PassiveWatch(tracker.color)
        self._futile = None
        self._seconds_at_move = None
        self._turn_started = time.perf_counter()
        self.turn_log.start_turn(turn, self.color)
        if self.engine is None:
            self._start_engine()

    @property
    def turn_record(self) -> dict[str, Any]:
        """What the turn log will hold for the turn under way (sense rule and square, belief sizes...)."""
        return dict(self.turn_log.record)

    def close(self) -> None:
        """Quit the engine processes (also called at game end)."""
        if self.engine is not None:
            self.engine.close()
            self.engine = None
        self.scorer = Scorer(None, self.config.engine)

    def _start_engine(self) -> None:
        cfg = self.config.engine
        if cfg.material_only:
            self.engine = None
            self.scorer = Scorer(None, cfg)
            return
        try:
            self.engine = EnginePool(cfg.path, cfg.workers, cfg.hash_mb, cfg.timeout, cfg.deterministic)
            weakref.finalize(self, self.engine.close)
        except Exception:
            log.exception("Stockfish could not start; scoring by material only")
            self.engine = None
        self.scorer = Scorer(self.engine, cfg)

    def _wait_for_engines(self, budget: TurnBudget) -> None:
        """In panic the clock can't pay for waiting on an engine kept from a CPU (up to
        ``deadline.MAX_STARVED_WAIT`` a call): a late search then fails at its timeout, as it did
        before that wait existed."""
        if self.engine is not None:
            self.engine.patience = 0.0 if budget.panic else None

    def _opening_bonuses(self, actions: Sequence[chess.Move]) -> dict[chess.Move | None, float]:
        move = self.config.move
        queens: set[int] = set()
        if move.opening_turns and self.tracker.live_size:
            code = piece_code(chess.Piece(chess.QUEEN, self.color))
            queens = {int(sq) for sq in np.flatnonzero(self.tracker.rows[0, :64] == code)}
        return opening_bonuses(
            self.color, self.turn, move.opening_turns, move.opening_bonus, move.opening_queen_penalty,
            set(actions), queens,
        )  # fmt: skip

    def _prior(self, power: float, weights: Callable[[T], np.ndarray]) -> Callable[[T], np.ndarray] | None:
        """The belief's carried weights raised to ``power`` (None: not carried, or power 0)."""
        if not self.tracker.carry_weights or power == 0:
            return None
        return weights if power == 1 else lambda boards: weights(boards) ** power

    def _move_boards(self) -> list[chess.Board]:
        """The boards the move is chosen on: the passing-opponent watch's when it has held long enough
        on few boards (``move.passive_senses``), else a sample of the belief."""
        move = self.config.move
        watched = self.passive.holds(move.passive_senses, move.passive_boards)
        if watched is None:
            return self.tracker.sample(CHOICE_SAMPLE)
        self.turn_log.update(passive_boards=len(watched))
        return decode(watched, self.color, self.tracker.fullmove)

    def progress_bonus(self) -> float:
        """Centipawns for a pawn move or a capture when the 100-ply draw rule nears and we stand well."""
        plies = self.plies_without_progress
        if plies < PROGRESS_AFTER_PLIES or self._last_mean < 0:
            return 0.0
        return 30.0 + 4.0 * (plies - PROGRESS_AFTER_PLIES)

    def _is_our_pawn(self, square: int) -> bool:
        code = int(self.tracker.rows[0, square]) if self.tracker.live_size else 0
        return code == (chess.PAWN if self.color == chess.WHITE else chess.PAWN + 6)

    def _learn_increment(self, seconds_left: float) -> None:
        """The Player API never states the increment: infer it from the clock after our last move."""
        if self._seconds_at_move is None:
            return
        observed = seconds_left - (self._seconds_at_move - self._move_seconds)
        if observed > 0.2:
            self.clock.increment = max(self.clock.increment, round(observed * 0.9, 1))
