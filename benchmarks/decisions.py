"""Two configurations' move choices on the same believed positions, judged on the true board.

Usage:
  python benchmarks/decisions.py extract GAME_OR_RUN_DIR ... --out SUITE.jsonl.gz [--boards 400]
  python benchmarks/decisions.py run SUITE.jsonl.gz [--base-set KEY=VALUE ...] --candidate-set KEY=VALUE
      [--sample N] [--seed 0] [--seconds S] [--judge-nodes 100000] [--fixed NODES/BOARDS]
      [--out RESULTS.jsonl]

Why: a match against StrangeFish is ~5 minutes a game on 2 cores, and 20 games cannot tell a 5-point
change from none. This screen replays the decisions instead. ``extract`` re-runs our belief tracker
over our bot's recorded games and keeps, for every turn on which it believed more than one board, a
sample of the boards it believed after its sense and the true board. ``run`` lets both configurations
choose a move on each position (the bot's own selector, the budget the bot had that turn) and judges
both requests on the true board with one fixed-node Stockfish search (``rbc_bot.replay.judge``). The
true board was drawn by the real game from what the believed boards stand for, so the mean loss on it
estimates a move choice's expected loss over the belief without the noise of whole games.

What it cannot see: positions come from main's own games, and a sense or a move's effect on what
either side learns next is not judged. It screens a change of the move selector; a match gates it.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import chess
import numpy as np
import screening
from reconchess.utilities import move_actions

from rbc_bot.belief import BeliefTracker
from rbc_bot.config import BotConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.opening import opening_bonuses
from rbc_bot.replay.judge import Searcher
from rbc_bot.replay.load import LoadedGame
from rbc_bot.scorer import Scorer

DEFAULT_BOARDS = 400  # boards kept per position: the most the bot scores per candidate by default


@dataclass
class Position:
    """One of our turns: the true board and the boards believed after the sense (our side to move)."""

    game: str
    turn: int  # counted from 1, as the bot counts (the opening plan's turns)
    truth: chess.Board
    boards: list[chess.Board]
    believed: int  # boards the belief held (``boards`` is a sample of them)
    seconds: float | None  # the move budget the bot had (its turn log), if known

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "turn": self.turn, "truth": self.truth.fen(), "believed": self.believed,
            "seconds": self.seconds, "boards": [board.fen() for board in self.boards],
        }  # fmt: skip

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> Position:
        boards = [chess.Board(fen) for fen in row["boards"]]
        return cls(
            row["game"], row["turn"], chess.Board(row["truth"]), boards, row["believed"], row["seconds"]
        )


def move_budget(row: dict[str, Any]) -> float | None:
    """The seconds the bot's move phase had on this turn: what the turn's budget left after the sense."""
    if not isinstance(row.get("budget"), (int, float)):
        return None
    return max(0.1, float(row["budget"]) - float(row.get("seconds_sense") or 0.0))


def positions_of(path: Path, boards: int, seed: int) -> list[Position]:
    """Our bot's uncertain turns in one game (the side with a turn log), a sample of ``boards`` each."""

    def keep(game: LoadedGame, turn: Any, truth: chess.Board, tracker: BeliefTracker,
             rng: np.random.Generator) -> Position:  # fmt: skip
        row = game.turn_log.get((turn.color, turn.turn_number), {})
        return Position(path.name, turn.turn_number + 1, truth, tracker.sample(boards, rng),
                        tracker.live_size, move_budget(row))  # fmt: skip

    return screening.our_turns(path, "sense", seed, keep)


def extract(args: argparse.Namespace) -> None:
    screening.write_suite(
        args.inputs, args.out, lambda path, index: positions_of(path, args.boards, seed=index)
    )


def load_suite(path: Path, sample: int = 0, seed: int = 0, part: tuple[int, int] = (0, 1)) -> list[Position]:
    """The suite's positions, or ``sample`` of them drawn at random (only those are decoded to boards)."""
    return [Position.from_dict(row) for row in screening.read_suite(path, sample, seed, part)]


class Chooser:
    """One configuration's move selector with its own engines, as the bot runs it."""

    def __init__(self, config: BotConfig) -> None:
        self.config = config
        engine = config.engine
        self.pool = EnginePool(
            engine.path, engine.workers, engine.hash_mb, engine.timeout, engine.deterministic
        )
        self.scorer = Scorer(self.pool, engine)

    def choose(self, position: Position, seconds: float, seed: int) -> chess.Move | None:
        move = self.config.move
        actions = move_actions(position.truth)  # our own pieces are known: the truth's requests are ours
        color = position.truth.turn
        queens = set(position.truth.pieces(chess.QUEEN, color))
        bonuses = opening_bonuses(color, position.turn, move.opening_turns, move.opening_bonus,
                                  move.opening_queen_penalty, set(actions), queens)  # fmt: skip
        decision = choose_move(position.boards, actions, self.scorer, move, seconds,
                               np.random.default_rng(seed), 0.0, bonuses)  # fmt: skip
        return decision.move

    def close(self) -> None:
        self.pool.close()


def compare(suite: list[Position], base: Chooser, candidate: Chooser, judge: Searcher,
            seconds: float | None, out: TextIO | None,
            candidate_scale: float = 1.0, curve: str = "logistic") -> list[tuple[float, float]]:  # fmt: skip
    """Each position's (base loss, candidate loss) under ``curve``, base and candidate deciding in
    turn; the candidate gets ``candidate_scale`` times the base's budget (what more time per move is
    worth)."""
    losses: list[tuple[float, float]] = []
    for index, position in enumerate(suite):
        budget = seconds or position.seconds or 2.0
        budgets = (budget, budget * candidate_scale)
        moves = [c.choose(position, b, seed=index) for c, b in zip((base, candidate), budgets, strict=True)]
        judged = screening.judge_pair(judge, position.truth, moves)
        losses.append(judged[curve])
        row = {
            "game": position.game,
            "turn": position.turn,
            "believed": position.believed,
            "seconds": budget,
            "candidate_seconds": budgets[1],
            "base": screening.uci(moves[0]),
            "candidate": screening.uci(moves[1]),
            **screening.loss_fields(judged),
        }
        if out is not None:
            print(json.dumps(row), file=out, flush=True)
    return losses


def run(args: argparse.Namespace) -> None:
    if not args.candidate_time > 0:
        raise ValueError(f"--candidate-time must be positive, not {args.candidate_time}")
    suite = load_suite(args.suite, args.sample, args.seed, args.part)
    base_config, candidate_config = screening.configs(args)
    base, candidate = Chooser(base_config), Chooser(candidate_config)

    def both(judge: Searcher, out: TextIO | None) -> list[tuple[float, float]]:
        return compare(
            suite, base, candidate, judge, args.seconds, out, args.candidate_time, args.judge_curve
        )

    screening.screen((base, candidate), both, args.judge_nodes, args.out)


def main() -> None:
    parser, _, judge = screening.command_line(
        "Screen a move-selector change on recorded positions.", "positions from our bot's recorded games",
        DEFAULT_BOARDS,
    )  # fmt: skip
    judge.add_argument("--seconds", type=float, default=None, help="move budget (default: the bot's own)")
    judge.add_argument("--candidate-time", type=float, default=1.0, metavar="SCALE",
                       help="the candidate's budget as a multiple of the base's (default 1)")  # fmt: skip
    args = parser.parse_args()
    screening.run_command("decisions.py", lambda: (extract if args.command == "extract" else run)(args))


if __name__ == "__main__":
    main()
