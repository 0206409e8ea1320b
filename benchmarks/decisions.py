"""Two configurations' move choices on the same believed positions, judged on the true board.

Usage:
  python benchmarks/decisions.py extract GAME_OR_RUN_DIR ... --out SUITE.jsonl.gz [--boards 400]
  python benchmarks/decisions.py run SUITE.jsonl.gz [--base-set KEY=VALUE ...] --candidate-set KEY=VALUE
      [--sample N] [--seed 0] [--seconds S] [--judge-nodes 100000] [--out RESULTS.jsonl]

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
import gzip
import json
import math
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import chess
import numpy as np
from reconchess.utilities import move_actions

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rbc_bot.config import BotConfig, load_config
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.opening import opening_bonuses
from rbc_bot.ranking import win_probability
from rbc_bot.replay.judge import BoardJudgement, Searcher
from rbc_bot.replay.load import ReplayError, load_game
from rbc_bot.replay.resim import resimulate
from rbc_bot.scorer import Scorer
from rbc_bot.stats import sign_test

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


def game_files(inputs: list[Path]) -> Iterator[Path]:
    """The game histories named, and those inside the folders named that our bot's turn log lies beside
    (a match's --out folder holds one per game, and its own records)."""
    for path in inputs:
        if path.is_dir():
            games = path.glob("*.json")
            yield from sorted(game for game in games if game.with_name(game.name + ".turns.jsonl").is_file())
        else:
            yield path


def move_budget(row: dict[str, Any]) -> float | None:
    """The seconds the bot's move phase had on this turn: what the turn's budget left after the sense."""
    if not isinstance(row.get("budget"), (int, float)):
        return None
    return max(0.1, float(row["budget"]) - float(row.get("seconds_sense") or 0.0))


def positions_of(path: Path, boards: int, seed: int) -> list[Position]:
    """Our bot's uncertain turns in one game (the side with a turn log), a sample of ``boards`` each."""
    game = load_game(path)
    color = game.our_color
    if color is None:
        raise ReplayError(f"{path}: no turn log of our bot beside it: which side is ours is unknown")
    rng = np.random.default_rng(seed)
    found: list[Position] = []

    def observe(turn: Any, stage: str, tracker: Any) -> None:
        if stage != "sense" or tracker.live_size < 2 or not game.history.has_move(turn):
            return
        truth = chess.Board(game.history.truth_fen_before_move(turn))
        row = game.turn_log.get((color, turn.turn_number), {})
        found.append(Position(path.name, turn.turn_number + 1, truth, tracker.sample(boards, rng),
                              tracker.live_size, move_budget(row)))  # fmt: skip

    side = resimulate(game.history, color, seed=seed, observe=observe)
    if side.error:
        print(f"{path.name}: {side.error} (turns before it kept)", file=sys.stderr)
    return found


def extract(inputs: list[Path], out: Path, boards: int) -> None:
    count = 0
    with gzip.open(out, "wt") as stream:
        for index, path in enumerate(game_files(inputs)):
            for position in positions_of(path, boards, seed=index):
                stream.write(json.dumps(position.as_dict()) + "\n")
                count += 1
            print(f"{path.name}: {count} positions so far", file=sys.stderr, flush=True)
    print(f"{count} positions written to {out}")


def load_suite(path: Path, sample: int = 0, seed: int = 0) -> list[Position]:
    """The suite's positions, or ``sample`` of them drawn at random (only those are decoded to boards)."""
    with gzip.open(path, "rt") as stream:
        lines = [line for line in stream if line.strip()]
    if sample and sample < len(lines):
        pick = np.random.default_rng(seed).choice(len(lines), size=sample, replace=False)
        lines = [lines[i] for i in sorted(pick)]
    return [Position.from_dict(json.loads(line)) for line in lines]


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


def expected_loss(judgement: BoardJudgement) -> float:
    """What the request cost on the true board, as expected score (0: the best move, 1: a lost win)."""
    best, played = win_probability(np.array([judgement.best_score, judgement.played_score]))
    return max(0.0, float(best - played))


def compare(suite: list[Position], base: Chooser, candidate: Chooser, judge: Searcher,
            seconds: float | None, out: TextIO | None,
            candidate_scale: float = 1.0) -> list[tuple[float, float]]:  # fmt: skip
    """Each position's (base loss, candidate loss), base and candidate deciding in turn; the candidate
    gets ``candidate_scale`` times the base's budget (what more time per move is worth)."""
    losses: list[tuple[float, float]] = []
    for index, position in enumerate(suite):
        budget = seconds or position.seconds or 2.0
        budgets = (budget, budget * candidate_scale)
        moves = [c.choose(position, b, seed=index) for c, b in zip((base, candidate), budgets, strict=True)]
        judged = {move: judge.judge([(position.truth, move)])[0] for move in dict.fromkeys(moves)}
        pair = (expected_loss(judged[moves[0]]), expected_loss(judged[moves[1]]))
        losses.append(pair)
        row = {
            "game": position.game,
            "turn": position.turn,
            "believed": position.believed,
            "seconds": budget,
            "candidate_seconds": budgets[1],
            "base": uci(moves[0]),
            "candidate": uci(moves[1]),
            "base_loss": pair[0],
            "candidate_loss": pair[1],
        }
        if out is not None:
            print(json.dumps(row), file=out, flush=True)
    return losses


def uci(move: chess.Move | None) -> str:
    return move.uci() if move else "pass"


def summary(losses: list[tuple[float, float]]) -> list[str]:
    """Mean losses (expected score per 100 decisions), their paired difference with a 95 % interval,
    and the sign test over the positions where one side lost less."""
    if not losses:
        return ["no positions"]
    base, candidate = (np.array(side) * 100 for side in zip(*losses, strict=True))
    diff = candidate - base
    half = 1.96 * float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else float("inf")
    better, worse = int((diff < -1e-9).sum()), int((diff > 1e-9).sum())
    mean = float(diff.mean())
    return [
        f"{len(losses)} positions: loss per 100 decisions base {base.mean():.2f}, "
        f"candidate {candidate.mean():.2f}; candidate - base {mean:+.2f} "
        f"(95 % CI {mean - half:+.2f} .. {mean + half:+.2f})",
        f"candidate lost less on {better}, more on {worse} (sign test p = {sign_test(better, worse):.2f}); "
        f"same loss on {len(losses) - better - worse}",
    ]


def run(args: argparse.Namespace) -> None:
    if not args.candidate_time > 0:
        raise ValueError(f"--candidate-time must be positive, not {args.candidate_time}")
    suite = load_suite(args.suite, args.sample, args.seed)
    base = Chooser(load_config(None, args.base_set))
    candidate = Chooser(load_config(None, args.candidate_set))
    started = time.perf_counter()
    try:
        with ExitStack() as files, Searcher(workers=2, nodes=args.judge_nodes) as judge:
            out = files.enter_context(args.out.open("w")) if args.out else None
            losses = compare(suite, base, candidate, judge, args.seconds, out, args.candidate_time)
    finally:
        base.close()
        candidate.close()
    for line in summary(losses):
        print(line)
    print(f"({time.perf_counter() - started:.0f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description="Screen a move-selector change on recorded positions.")
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("extract", help="positions from our bot's recorded games")
    make.add_argument("inputs", nargs="+", type=Path, metavar="GAME_OR_RUN_DIR")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--boards", type=int, default=DEFAULT_BOARDS, help="boards kept per position at most")
    judge = commands.add_parser("run", help="both configurations on every position, judged on the truth")
    judge.add_argument("suite", type=Path)
    judge.add_argument("--base-set", action="append", default=[], metavar="KEY=VALUE")
    judge.add_argument("--candidate-set", action="append", default=[], metavar="KEY=VALUE")
    judge.add_argument("--sample", type=int, default=0, help="N positions drawn at random (default: all)")
    judge.add_argument("--seed", type=int, default=0, help="which N positions --sample draws")
    judge.add_argument("--seconds", type=float, default=None, help="move budget (default: the bot's own)")
    judge.add_argument("--candidate-time", type=float, default=1.0, metavar="SCALE",
                       help="the candidate's budget as a multiple of the base's (default 1)")  # fmt: skip
    judge.add_argument("--judge-nodes", type=int, default=100_000)
    judge.add_argument("--out", type=Path, help="one JSON line per position")
    args = parser.parse_args()
    try:
        if args.command == "extract":
            extract(args.inputs, args.out, args.boards)
        else:
            run(args)
    except (ValueError, OSError) as exc:  # ReplayError and config errors are ValueErrors
        sys.exit(f"decisions.py: error: {exc}")


if __name__ == "__main__":
    main()
