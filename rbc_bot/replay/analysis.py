"""One game's full analysis: belief re-simulation, engine scores and our turn log, joined per turn."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import chess
import chess.engine

from rbc_bot.closing import Closing
from rbc_bot.notation import square_name
from rbc_bot.replay.decisions import SenseDecision
from rbc_bot.replay.decisive import decisive
from rbc_bot.replay.load import LoadedGame, turns_of
from rbc_bot.replay.mistakes import MoveScore, summarise
from rbc_bot.replay.pgn import result_of
from rbc_bot.replay.resim import (
    DEFAULT_CAP,
    DEFAULT_SECONDS,
    DEFAULT_SLACK,
    DEFAULT_STASH_LIMIT,
    SideBelief,
    TurnBelief,
    resimulate,
)
from rbc_bot.replay.views import TurnView, ViewRecorder

if TYPE_CHECKING:
    from rbc_bot.engine import EnginePool
    from rbc_bot.replay.judge import Searcher

logger = logging.getLogger(__name__)


@dataclass
class Options:
    sides: list[chess.Color] | None = None  # None: our side when a turn log says which, else both
    engine_nodes: int = 20_000
    use_engine: bool = True
    belief_cap: int | None = DEFAULT_CAP
    belief_seconds: float = DEFAULT_SECONDS
    stash_limit: int = DEFAULT_STASH_LIMIT
    belief_slack: int = DEFAULT_SLACK  # the tracker's expansion_slack
    engine_workers: int = 2
    engine_path: str | None = None
    belief_boards: int = 16  # believed boards sampled per turn to judge moves against (0: none)
    belief_nodes: int = 5_000  # node limit per search on those boards
    belief_weights: str = "uniform"  # how those boards count (rbc_bot.replay.mistakes.judged_weights)
    decision_nodes: int = 1_000  # node limit of the selector run before and after each sense


@dataclass
class Engines(Closing):
    """The engines an analysis uses: one-search judgements (``searchmoves``) and our move selector's pool."""

    searcher: Searcher
    pool: EnginePool

    @property
    def name(self) -> str:
        return self.searcher.name

    def close(self) -> None:
        self.searcher.close()
        self.pool.close()


@dataclass
class GameAnalysis:
    game: LoadedGame
    sides: list[chess.Color]
    beliefs: dict[chess.Color, SideBelief] = field(default_factory=dict)
    scores: list[MoveScore] = field(default_factory=list)
    engine_note: str | None = None
    views: dict[chess.Color, dict[int, TurnView]] = field(default_factory=dict)
    decisions: dict[tuple[chess.Color, int], SenseDecision] = field(default_factory=dict)

    def view_of(self, color: chess.Color, turn: int) -> TurnView | None:
        return self.views.get(color, {}).get(turn)

    def score_of(self, color: chess.Color, turn: int) -> MoveScore | None:
        name = chess.COLOR_NAMES[color]
        return next((s for s in self.scores if s.color == name and s.turn == turn), None)

    def log_of(self, color: chess.Color, turn: int) -> dict[str, Any] | None:
        return self.game.turn_log.get((color, turn))

    @property
    def truth_always_in_belief(self) -> bool | None:
        values = [b.truth_always_in_belief for b in self.beliefs.values()]
        if any(v is False for v in values):
            return False
        return None if any(v is None for v in values) or not values else True

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per analysed turn, for the tables."""
        history = self.game.history
        rows: list[dict[str, Any]] = []
        for turn in turns_of(history):
            if turn.color not in self.sides:
                continue
            belief = self.beliefs.get(turn.color)
            tb = next((t for t in belief.turns if t.turn == turn.turn_number), None) if belief else None
            score = self.score_of(turn.color, turn.turn_number)
            log = self.log_of(turn.color, turn.turn_number) or {}
            view = self.view_of(turn.color, turn.turn_number)
            decision = self.decisions.get((turn.color, turn.turn_number))
            belief_judged = score.belief if score else None
            requested = history.requested_move(turn) if history.has_move(turn) else None
            taken = history.taken_move(turn) if history.has_move(turn) else None
            rows.append(
                {
                    "color": chess.COLOR_NAMES[turn.color],
                    "turn": turn.turn_number,
                    "told_capture": tb.opponent_capture if tb else None,
                    "size_after_opponent": tb.size_after_opponent if tb else None,
                    "size_after_sense": tb.size_after_sense if tb else None,
                    "size_after_move": tb.size_after_move if tb else None,
                    "truth": None if tb is None else tb.truth_kept,
                    "sampled_away": bool(tb and tb.truth_sampled_away),
                    "truth_note": _truth_note(tb),
                    "sense": square_name(history.sense(turn)),
                    "eliminated": tb.sense_eliminated if tb else None,
                    "expected": tb.sense_expected if tb else None,
                    "best_sense": tb.best_sense_square if tb else None,
                    "best_expected": tb.best_sense_expected if tb else None,
                    "requested": requested.uci()
                    if requested
                    else ("pass" if history.has_move(turn) else "-"),
                    "taken": taken.uci() if taken else ("pass" if history.has_move(turn) else "-"),
                    "capture": square_name(history.capture_square(turn)) if history.has_move(turn) else None,
                    "eval_white": score.eval_white if score else None,
                    "cp_loss": score.cp_loss if score else None,
                    "best_move": score.best if score else None,
                    "tags": ", ".join(score.tags) if score else "",
                    "kind": score.kind if score else None,
                    "expected_loss": belief_judged.expected_loss if belief_judged else None,
                    "bad_share": belief_judged.bad_share if belief_judged else None,
                    "hang_share": belief_judged.hang_share if belief_judged else None,
                    "alternative": belief_judged.alternative if belief_judged else None,
                    "alternative_loss": belief_judged.alternative_loss if belief_judged else None,
                    "king_attacked": view.king_attacked_share if view else None,
                    "decision_before_sense": decision.before if decision else None,
                    "decision_after_sense": decision.after if decision else None,
                    "sense_changed_move": decision.changed if decision else None,
                    "sense_rule": log.get("sense_rule"),
                    "move_rule": log.get("move_reason"),
                    "passive_boards": log.get("passive_boards"),
                    "candidates": log.get("candidates") or _belief_candidates(score),
                    "bot_belief": _bot_belief(log),
                    "seconds": turn_seconds(log),
                    "seconds_left": log.get("seconds_left"),
                }
            )
        return rows

    def _sizes(self) -> dict[tuple[str, int], int]:
        return {
            (chess.COLOR_NAMES[c], turn): view.size_after_sense
            for c, views in self.views.items()
            for turn, view in views.items()
        }

    def summary(self) -> dict[str, Any]:
        history = self.game.history
        winner = history.get_winner_color()
        reason = history.get_win_reason()
        mistakes = summarise(self.scores)
        return {
            "file": str(self.game.path),
            "white": self.game.white_name,
            "black": self.game.black_name,
            "result": result_of(history),
            "winner": None if winner is None else chess.COLOR_NAMES[winner],
            "win_reason": reason.name if reason is not None else None,
            "turns": history.num_turns(),
            "turns_white": history.num_turns(chess.WHITE),
            "turns_black": history.num_turns(chess.BLACK),
            "analysed_sides": [chess.COLOR_NAMES[c] for c in self.sides],
            "our_color": None if self.game.our_color is None else chess.COLOR_NAMES[self.game.our_color],
            "truth_always_in_belief": self.truth_always_in_belief,
            "belief": {chess.COLOR_NAMES[c]: _belief_summary(b) for c, b in self.beliefs.items()},
            "engine": self.engine_note or "stockfish",
            "mistakes": mistakes["mistakes"],
            "decisive": decisive(
                self.scores, winner, self.sides, self._sizes(), reason.name if reason is not None else None
            ),
            "mistake_stats": {k: v for k, v in mistakes.items() if k != "mistakes"},
            "turn_log": turn_log_stats(self.game.turn_log) if self.game.turn_log else None,
            "warnings": self.game.warnings,
            "per_turn": self.rows(),
        }


def _belief_candidates(score: MoveScore | None) -> list[dict[str, Any]]:
    """Without our turn log: the engine's best moves on the believed boards, with how many boards."""
    if score is None or score.belief is None:
        return []
    return [{"move": move, "boards": count} for move, count in score.belief.best_moves]


TRUTH_STASHED = "stashed (cap)"


def _truth_note(tb: TurnBelief | None) -> str:
    """``yes`` (live), ``stashed (cap)`` (sampled away but held, to be recovered) or ``LOST``."""
    if tb is None:
        return "-"
    if not tb.truth_kept:
        return "LOST"
    return TRUTH_STASHED if tb.truth_sampled_away else "yes"


def _bot_belief(log: dict[str, Any]) -> int | None:
    belief = log.get("belief")
    if isinstance(belief, dict):
        for key in ("after_sense", "after_opponent", "after_move"):
            value = belief.get(key)
            if isinstance(value, list | tuple) and value and isinstance(value[0], int):
                return int(value[0])
    return None


def turn_seconds(log: dict[str, Any]) -> float | None:
    """Seconds of our clock a turn took: ``seconds_turn`` (the opponent-move handler, sense and move:
    the handler's belief expansion is on our clock too), else the parts it is made of, else the clock
    difference across the sense and move."""
    if isinstance(log.get("seconds_turn"), int | float):
        return float(log["seconds_turn"])
    parts = [log.get("seconds_sense"), log.get("seconds_move")]
    if all(isinstance(p, int | float) for p in parts):
        expand = log.get("seconds_expand")
        return float(sum(parts)) + (float(expand) if isinstance(expand, int | float) else 0.0)  # type: ignore[arg-type]
    start, end = log.get("seconds_left"), log.get("seconds_left_move")
    if isinstance(start, int | float) and isinstance(end, int | float):
        return float(start - end)
    return None


def turn_log_stats(log: dict[tuple[bool, int], dict[str, Any]]) -> dict[str, Any]:
    rows = [log[k] for k in sorted(log)]
    seconds = [s for s in (turn_seconds(r) for r in rows) if s is not None]
    sizes = [s for s in (_bot_belief(r) for r in rows) if s is not None]
    left = [r["seconds_left"] for r in rows if isinstance(r.get("seconds_left"), int | float)]
    recoveries = [r["recoveries"] for r in rows if isinstance(r.get("recoveries"), int)]
    restarts = [r["engine_restarts"] for r in rows if isinstance(r.get("engine_restarts"), int)]
    return {
        "turns_logged": len(rows),
        "seconds_total": sum(seconds),
        "seconds_mean": sum(seconds) / len(seconds) if seconds else None,
        "seconds_max": max(seconds) if seconds else None,
        "seconds_left_min": min(left) if left else None,
        "bot_belief_mean": sum(sizes) / len(sizes) if sizes else None,
        "bot_belief_max": max(sizes) if sizes else None,
        # Counters may be cumulative or per turn: report the largest value seen and the sum.
        "recoveries": max(recoveries) if recoveries else None,
        "engine_restarts": max(restarts) if restarts else None,
    }


def _belief_summary(side: SideBelief) -> dict[str, Any]:
    sizes = [t.size_after_sense for t in side.turns]
    chosen = [t.sense_expected for t in side.turns if t.sense_expected is not None]
    best = [t.best_sense_expected for t in side.turns if t.best_sense_expected is not None]
    return {
        "cap": side.cap,
        "turns_simulated": len(side.turns),
        "stopped": side.error,
        "truth_always_in_belief": side.truth_always_in_belief,
        "first_truth_lost": side.first_truth_lost,
        "truth_lost_turns": sum(not t.truth_kept for t in side.turns),
        "truth_sampled_away_turns": sum(t.truth_sampled_away for t in side.turns),
        "mean_size_after_sense": sum(sizes) / len(sizes) if sizes else None,
        "max_size_after_opponent": max((t.size_after_opponent for t in side.turns), default=None),
        "sense_expected_mean": sum(chosen) / len(chosen) if chosen else None,
        "best_sense_expected_mean": sum(best) / len(best) if best else None,
    }


def analyse(game: LoadedGame, options: Options, engines: Engines | None = None) -> GameAnalysis:
    """Run every analysis ``options`` asks for on one loaded game (``engines``: reuse across games)."""
    sides = options.sides
    if sides is None:
        sides = [game.our_color] if game.our_color is not None else [chess.WHITE, chess.BLACK]
    result = GameAnalysis(game=game, sides=list(sides))
    for color in sides:
        recorder = ViewRecorder(color, sample=options.belief_boards)
        result.beliefs[color] = resimulate(
            game.history,
            color,
            cap=options.belief_cap,
            seconds=options.belief_seconds,
            stash_limit=options.stash_limit,
            expansion_slack=options.belief_slack,
            observe=recorder,
        )
        result.views[color] = recorder.views
    if not options.use_engine:
        result.engine_note = "disabled (--no-engine)"
        return result
    from rbc_bot.engine import EngineError, StockfishNotFoundError

    try:
        with contextlib.ExitStack() as stack:
            if engines is None:
                engines = stack.enter_context(open_pool(options))
            _judge(result, options, engines)
            result.engine_note = f"{engines.name}, {options.engine_nodes} nodes"
            if options.belief_weights != "uniform":
                result.engine_note += f", believed boards weighed {options.belief_weights}"
    except (StockfishNotFoundError, EngineError, chess.engine.EngineError) as exc:
        result.engine_note = f"unavailable: {exc}"
        logger.warning("no engine analysis: %s", exc)
    return result


def _judge(result: GameAnalysis, options: Options, engines: Engines) -> None:
    """Moves judged on the true and the believed boards; the selector run before and after each sense."""
    from rbc_bot.replay.decisions import sense_decision
    from rbc_bot.replay.mistakes import score_moves

    history = result.game.history
    believed = {
        (color, turn): view.after_sense
        for color, views in result.views.items()
        for turn, view in views.items()
    }
    result.scores = score_moves(
        history, result.sides, engines.searcher, believed, options.belief_nodes, options.belief_weights
    )
    for turn in turns_of(history):
        view = result.view_of(turn.color, turn.turn_number)
        if turn.color not in result.sides or view is None or not history.has_move(turn):
            continue
        if history.sense(turn) is None or not view.before_sense:
            continue
        result.decisions[turn.color, turn.turn_number] = sense_decision(
            engines.pool,
            history.truth_board_before_move(turn),
            view.before_sense,
            view.after_sense,
            options.decision_nodes,
        )


def open_pool(options: Options) -> Engines:
    """Deterministic engines (a new game per search or batch, node limits): the same game scores the same."""
    from rbc_bot.engine import EnginePool
    from rbc_bot.replay.judge import Searcher

    searcher = Searcher(options.engine_path, workers=options.engine_workers, nodes=options.engine_nodes)
    try:
        pool = EnginePool(options.engine_path, workers=options.engine_workers, deterministic=True)
    except BaseException:
        searcher.close()
        raise
    return Engines(searcher, pool)
