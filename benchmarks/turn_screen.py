"""Two configurations' whole turns (the sense, then the move) on the same recorded positions, judged on
the true board.

Usage:
  python benchmarks/turn_screen.py extract GAME_OR_RUN_DIR ... --out SUITE.jsonl.gz [--boards 2000]
      [--every 1] [--saturated]
  python benchmarks/turn_screen.py run SUITE.jsonl.gz [--base-set KEY=VALUE ...] --candidate-set KEY=VALUE
      [--sample N] [--seed 0] [--judge-nodes 100000] [--fixed NODES/BOARDS] [--out RESULTS.jsonl]

Why: ``benchmarks/decisions.py`` screens the move selector on the boards believed after the sense, so
a change of the sense (which boards survive to be weighed) is invisible to it. This screen starts a
turn earlier. ``extract`` keeps, for every turn on which our bot believed more than one board after the
opponent's move, a sample of those boards (the true board always among them), the clock and the last
move's centipawns (they steer the bot's sense rules). ``run`` resumes the bot itself on each position
(``RbcBot.resume``): it chooses its sense, is told what the true board shows there, chooses its move;
the move is judged on the true board with one fixed-node Stockfish search.

What it cannot see: what a sense or a move teaches either side for the turns after this one, and a
belief larger than the sample kept (the sense then leaves fewer boards than in the game; the move
selector scores at most a few hundred of them either way).
"""

from __future__ import annotations

import argparse
import base64
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

import chess
import numpy as np
import screening
from reconchess.utilities import move_actions

from rbc_bot.belief import BeliefTracker, encode
from rbc_bot.belief_rows import ROW, decode, row_in
from rbc_bot.board_sample import our_king_attacked, our_queen_attacked
from rbc_bot.bot import RbcBot
from rbc_bot.config import BotConfig, MoveConfig
from rbc_bot.engine import KING_CAPTURE_SCORE, king_capture_moves
from rbc_bot.notation import square_name
from rbc_bot.raid import likeliest_raid
from rbc_bot.replay.judge import Searcher
from rbc_bot.replay.load import LoadedGame
from rbc_bot.rules import sense_window
from rbc_bot.sense import sample_rows

DEFAULT_BOARDS = 2_000  # boards kept per position: the whole belief on about 85 % of our turns


@dataclass
class TurnPosition:
    """One of our turns before the sense: the true board, a sample of the believed boards, the clock."""

    game: str
    turn: int  # counted from 1, as the bot counts
    truth: chess.Board
    rows: np.ndarray  # believed boards as belief rows (N x 66), the truth among them
    believed: int  # boards the belief held (``rows`` is a sample of them)
    seconds_left: float
    last_mean: float  # the last move's mean and worst centipawns (the sense rules read them)
    last_worst: float

    def as_dict(self) -> dict[str, Any]:
        return {
            "game": self.game, "turn": self.turn, "truth": self.truth.fen(), "believed": self.believed,
            "seconds_left": self.seconds_left, "last_mean": self.last_mean, "last_worst": self.last_worst,
            "rows": base64.b64encode(self.rows.astype(np.int8).tobytes()).decode("ascii"),
        }  # fmt: skip

    @classmethod
    def from_dict(cls, row: dict[str, Any]) -> TurnPosition:
        rows = np.frombuffer(base64.b64decode(row["rows"]), dtype=np.int8).reshape(-1, ROW).copy()
        return cls(row["game"], row["turn"], chess.Board(row["truth"]), rows, row["believed"],
                   row["seconds_left"], row["last_mean"], row["last_worst"])  # fmt: skip


def with_truth(rows: np.ndarray, truth: chess.Board, k: int, rng: np.random.Generator) -> np.ndarray:
    """At most ``k`` of ``rows`` drawn uniformly, the true board among them (in place of a drawn one if
    the draw missed it): the game's truth was always one of the believed boards."""
    rows = sample_rows(rows, k, rng)
    true_row = encode(truth)
    if not row_in(true_row, rows):
        rows = np.vstack([rows[: k - 1], true_row[None, :]])
    return rows


def last_move_values(log_row: dict[str, Any]) -> tuple[float, float]:
    """The chosen move's mean and worst centipawns from one turn-log row ((0, 0) if none was scored)."""
    candidates = log_row.get("candidates") or []
    if not candidates:
        return 0.0, 0.0
    return float(candidates[0]["mean"]), float(candidates[0]["worst"])


def saturated(log_row: dict[str, Any]) -> bool:
    """Whether every candidate the turn log shows could lose our king on some scored board: the turns
    on which the worst board is a lost king for all of them (``move.king_risk`` decides the order)."""
    candidates = log_row.get("candidates") or []
    return bool(candidates) and all(c["worst"] <= -KING_CAPTURE_SCORE / 2 for c in candidates)


def positions_of(path: Path, boards: int, seed: int, only_saturated: bool = False) -> list[TurnPosition]:
    """Our bot's uncertain turns in one game, before the sense, with a sample of ``boards`` each (with
    ``only_saturated``, only the turns whose move was chosen among candidates that all risked our king)."""

    def keep(game: LoadedGame, turn: Any, truth: chess.Board, tracker: BeliefTracker,
             rng: np.random.Generator) -> TurnPosition | None:  # fmt: skip
        log_row = game.turn_log.get((turn.color, turn.turn_number), {})
        if "seconds_left" not in log_row or (only_saturated and not saturated(log_row)):
            return None
        previous = game.turn_log.get((turn.color, turn.turn_number - 1), {})
        rows = with_truth(tracker.rows, truth, boards, rng)
        return TurnPosition(path.name, turn.turn_number + 1, truth, rows, tracker.live_size,
                            float(log_row["seconds_left"]), *last_move_values(previous))  # fmt: skip

    return screening.our_turns(path, "opponent", seed, keep)


def load_suite(
    path: Path, sample: int = 0, seed: int = 0, part: tuple[int, int] = (0, 1)
) -> list[TurnPosition]:
    """The suite's positions, or ``sample`` of them drawn at random."""
    return [TurnPosition.from_dict(row) for row in screening.read_suite(path, sample, seed, part)]


@dataclass
class TurnChoice:
    sense: int | None
    rule: str
    after_sense: int  # boards left live after the sense
    move: chess.Move | None


class TurnPlayer:
    """One configuration of our bot, resumed on each position with its engines kept running."""

    def __init__(self, config: BotConfig, increment: float) -> None:
        self.config = config
        self.increment = increment
        self.bot = RbcBot(config)

    def play(self, position: TurnPosition, seed: int) -> TurnChoice:
        """The bot's sense and move on ``position``, told what the true board shows where it senses."""
        truth = position.truth
        tracker = BeliefTracker(truth.turn, truth, config=self.config.belief)
        tracker.rows = position.rows.copy()
        tracker.rng = np.random.default_rng(seed)
        self.bot.rng = np.random.default_rng(seed)
        self.bot.resume(tracker, position.turn, self.increment, position.last_mean, position.last_worst)
        moves = move_actions(truth)
        started = time.perf_counter()
        square = self.bot.choose_sense(list(chess.SQUARES), moves, position.seconds_left)
        shown = [(sq, truth.piece_at(sq)) for sq in sense_window(square)] if square is not None else []
        self.bot.handle_sense_result(shown)
        after_sense = self.bot.tracker.live_size
        rule = str(self.bot.turn_record.get("sense_rule"))
        move = self.bot.choose_move(moves, position.seconds_left - (time.perf_counter() - started))
        return TurnChoice(square, rule, after_sense, move)

    def close(self) -> None:
        self.bot.close()


def compare(suite: list[TurnPosition], base: TurnPlayer, candidate: TurnPlayer, judge: Searcher,
            out: TextIO | None, curve: str = "logistic") -> list[tuple[float, float]]:  # fmt: skip
    """Each position's (base loss, candidate loss) under ``curve``, base and candidate playing the turn
    in turn."""
    losses: list[tuple[float, float]] = []
    for index, position in enumerate(suite):
        choices = [player.play(position, seed=index) for player in (base, candidate)]
        judged = screening.judge_pair(judge, position.truth, [choice.move for choice in choices])
        losses.append(judged[curve])
        row: dict[str, Any] = {"game": position.game, "turn": position.turn, "believed": position.believed,
                               "seconds_left": position.seconds_left}  # fmt: skip
        row.update(screening.loss_fields(judged))
        for side, choice in zip(("base", "candidate"), choices, strict=True):
            row.update({side: screening.uci(choice.move), f"{side}_sense": square_name(choice.sense),
                        f"{side}_rule": choice.rule, f"{side}_after_sense": choice.after_sense})  # fmt: skip
        if out is not None:
            print(json.dumps(row), file=out, flush=True)
    return losses


def in_danger(position: TurnPosition) -> bool:
    """Whether our king is attacked on some of the position's believed boards: the turns on which a
    change of how the selector weighs king risks can choose differently."""
    return any(our_king_attacked(board) for board in decode(position.rows, position.truth.turn))


def raid_possible(position: TurnPosition) -> bool:
    """Whether we can capture the enemy king on some of the position's believed boards: the turns on
    which a change of when to try a king capture can choose differently."""
    return any(king_capture_moves(board) for board in decode(position.rows, position.truth.turn))


def raid_guess(position: TurnPosition) -> bool:
    """Whether the king capture possible on the most believed boards works on at least the move
    selector's ``move.king_capture_share`` of them but not on all: the turns on which it would try a
    raid on a guess, unless a sense settles it (``sense.raid_share``)."""
    boards = decode(position.rows, position.truth.turn)
    raid = likeliest_raid(boards, set(move_actions(position.truth)), 1.0)
    return raid is not None and MoveConfig().king_capture_share <= raid[1] < 1


QUEEN_SHARE = 0.1  # the least share of boards with our queen attacked that --where queen keeps


def queen_attacked_share(position: TurnPosition) -> float:
    """The share of the position's believed boards on which our queen is attacked."""
    return float(np.mean([our_queen_attacked(board) for board in decode(position.rows, position.truth.turn)]))


def queen_attacked(position: TurnPosition) -> bool:
    """Whether our queen is attacked on at least ``QUEEN_SHARE`` of the position's believed boards but
    not all: the turns on which ``sense.queen_share`` at that share senses differently."""
    return QUEEN_SHARE <= queen_attacked_share(position) < 1


def queen_attacked_somewhere(position: TurnPosition) -> bool:
    """Whether our queen is attacked on some of the position's believed boards but not all: the turns
    on which ``move.queen_share`` can change the boards the move is scored on."""
    return 0 < queen_attacked_share(position) < 1


WHERE = {
    "danger": in_danger,
    "raid": raid_possible,
    "raid-guess": raid_guess,
    "queen": queen_attacked,
    "queen-some": queen_attacked_somewhere,
}


def run(args: argparse.Namespace) -> None:
    suite = load_suite(args.suite, args.sample, args.seed, args.part)
    if args.where in WHERE:
        suite = [position for position in suite if WHERE[args.where](position)]
    suite = [p for p in suite if args.min_believed <= p.believed <= (args.max_believed or p.believed)]
    base_config, candidate_config = screening.configs(args)
    base, candidate = TurnPlayer(base_config, args.increment), TurnPlayer(candidate_config, args.increment)

    def both(judge: Searcher, out: TextIO | None) -> list[tuple[float, float]]:
        return compare(suite, base, candidate, judge, out, args.judge_curve)

    screening.screen((base, candidate), both, args.judge_nodes, args.out)


def extract(args: argparse.Namespace) -> None:
    """Every ``--every``-th uncertain turn of the games named, ``--boards`` boards each at most."""
    if args.boards < 2 or args.every < 1:
        raise ValueError("--boards must be at least 2 and --every at least 1")
    screening.write_suite(
        args.inputs,
        args.out,
        lambda path, index: positions_of(path, args.boards, index, args.saturated)[:: args.every],
    )


def main() -> None:
    parser, make, play = screening.command_line(
        "Screen a sense or move change on recorded turns.", "turns before the sense from our bot's games",
        DEFAULT_BOARDS,
    )  # fmt: skip
    make.add_argument("--every", type=int, default=1, help="keep every N-th uncertain turn of a game")
    make.add_argument("--saturated", action="store_true",
                      help="only the turns on which, by the turn log, every candidate could lose our king "
                           "on some scored board")  # fmt: skip
    play.add_argument("--increment", type=float, default=5.0, help="the games' increment (seconds)")
    play.add_argument("--where", choices=("all", *WHERE), default="all",
                      help="danger: only where our king is attacked on some believed board; raid: only "
                           "where we can capture the enemy king on some; raid-guess: only where a king "
                           "capture works on enough of them to be tried, but not on all; queen: only where "
                           "our queen is attacked on at least 10 %% of them, but not on all; queen-some: "
                           "where it is attacked on some of them, but not on all")  # fmt: skip
    play.add_argument("--min-believed", type=int, default=0,
                      help="only positions whose belief held at least this many boards")  # fmt: skip
    play.add_argument("--max-believed", type=int, default=0,
                      help="only positions whose belief held at most this many (0: any)")  # fmt: skip
    args = parser.parse_args()
    screening.run_command("turn_screen.py", lambda: (extract if args.command == "extract" else run)(args))


if __name__ == "__main__":
    main()
