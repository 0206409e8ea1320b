"""What the two screens share (``decisions.py``: the move, after the sense; ``turn_screen.py``: the whole
turn): suites of positions from recorded games, the loss of a request on the true board, two players
judged in turn on the same positions, the summary and the command line around them."""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any, Protocol, TextIO, TypeVar

import chess
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rbc_bot.belief import BeliefTracker
from rbc_bot.config import BotConfig, load_config
from rbc_bot.ranking import on_curve, win_probability
from rbc_bot.replay.judge import BoardJudgement, Searcher
from rbc_bot.replay.load import ReplayError, load_game
from rbc_bot.replay.resim import resimulate
from rbc_bot.stats import sign_test

Losses = list[tuple[float, float]]
T = TypeVar("T")


class Suited(Protocol):
    def as_dict(self) -> dict[str, Any]: ...


class Closing(Protocol):
    def close(self) -> None: ...


def game_files(inputs: list[Path]) -> Iterator[Path]:
    """The game histories named, and those inside the folders named that our bot's turn log lies beside
    (a match's --out folder holds one per game, and its own records)."""
    for path in inputs:
        if path.is_dir():
            games = path.glob("*.json")
            yield from sorted(game for game in games if game.with_name(game.name + ".turns.jsonl").is_file())
        else:
            yield path


def our_turns(path: Path, stage: str, seed: int, keep: Callable[..., T | None]) -> list[T]:
    """What ``keep(game, turn, truth, tracker, rng)`` makes of each of our bot's uncertain turns in one
    game (the side with a turn log), our belief re-simulated up to ``stage`` of the turn ("opponent":
    before the sense, "sense": after it); None keeps nothing."""
    game = load_game(path)
    color = game.our_color
    if color is None:
        raise ReplayError(f"{path}: no turn log of our bot beside it: which side is ours is unknown")
    rng = np.random.default_rng(seed)
    found: list[T] = []

    def observe(turn: Any, at: str, tracker: BeliefTracker) -> None:
        if at == stage and tracker.live_size >= 2 and game.history.has_move(turn):
            truth = chess.Board(game.history.truth_fen_before_move(turn))
            kept = keep(game, turn, truth, tracker, rng)
            if kept is not None:
                found.append(kept)

    side = resimulate(game.history, color, seed=seed, observe=observe)
    if side.error:
        print(f"{path.name}: {side.error} (turns before it kept)", file=sys.stderr)
    return found


def write_suite(inputs: list[Path], out: Path, positions_of: Callable[[Path, int], Sequence[Suited]]) -> None:
    """Every position ``positions_of(game, index)`` finds in the games named, one JSON line each."""
    count = 0
    with gzip.open(out, "wt") as stream:
        for index, path in enumerate(game_files(inputs)):
            for position in positions_of(path, index):
                stream.write(json.dumps(position.as_dict()) + "\n")
                count += 1
            print(f"{path.name}: {count} positions so far", file=sys.stderr, flush=True)
    print(f"{count} positions written to {out}")


def read_suite(
    path: Path, sample: int = 0, seed: int = 0, part: tuple[int, int] = (0, 1)
) -> list[dict[str, Any]]:
    """The suite's rows, or ``sample`` of them drawn at random (only those are parsed); of those, part
    ``(k, n)`` is every n-th from the k-th, so that n screens side by side share one sample out."""
    with gzip.open(path, "rt") as stream:
        lines = [line for line in stream if line.strip()]
    if sample and sample < len(lines):
        pick = np.random.default_rng(seed).choice(len(lines), size=sample, replace=False)
        lines = [lines[i] for i in sorted(pick)]
    return [json.loads(line) for line in lines[part[0] :: part[1]]]


def part_of(text: str) -> tuple[int, int]:
    """``K/N`` (0 <= K < N) as (K, N): the --part argument."""
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise argparse.ArgumentTypeError(f"expected K/N with 0 <= K < N, not {text!r}")
    return int(k), int(n)


CURVES = ("logistic", "measured")  # the judge's ways from centipawns to expected score (``on_curve``)


def expected_loss(judgement: BoardJudgement, curve: str = "logistic") -> float:
    """What the request cost on the true board, as expected score under ``curve`` (0: the best move,
    1: a lost win)."""
    cp = np.array([judgement.best_score, judgement.played_score])
    best, played = win_probability(on_curve(cp, curve))
    return max(0.0, float(best - played))


def judge_pair(
    judge: Searcher, truth: chess.Board, moves: Sequence[chess.Move | None]
) -> dict[str, tuple[float, float]]:
    """The base's and the candidate's losses on the true board under each of ``CURVES`` (a request
    both made is judged once). Both are kept: a change of the selector's own curve is judged on the
    logistic and on the measured one alike."""
    judged = {move: judge.judge([(truth, move)])[0] for move in dict.fromkeys(moves)}
    return {
        curve: (expected_loss(judged[moves[0]], curve), expected_loss(judged[moves[1]], curve))
        for curve in CURVES
    }


def loss_fields(losses: dict[str, tuple[float, float]]) -> dict[str, float]:
    """A row's losses: ``base_loss`` and ``candidate_loss`` on the logistic, ``..._loss_measured``."""
    fields: dict[str, float] = {}
    for curve, pair in losses.items():
        suffix = "" if curve == "logistic" else f"_{curve}"
        fields.update({f"base_loss{suffix}": pair[0], f"candidate_loss{suffix}": pair[1]})
    return fields


def uci(move: chess.Move | None) -> str:
    return move.uci() if move else "pass"


def summary(losses: Losses) -> list[str]:
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


def screen(players: Sequence[Closing], compare: Callable[[Searcher, TextIO | None], Losses],
           judge_nodes: int, out: Path | None) -> None:  # fmt: skip
    """Run ``compare`` (base and candidate on every position) with a judge and the rows' file, close the
    players' engines whatever happens, then print the summary."""
    started = time.perf_counter()
    try:
        with ExitStack() as files, Searcher(workers=2, nodes=judge_nodes) as judge:
            stream = files.enter_context(out.open("w")) if out else None
            losses = compare(judge, stream)
    finally:
        for player in players:
            player.close()
    for line in summary(losses):
        print(line)
    print(f"({time.perf_counter() - started:.0f} s)")


def command_line(
    description: str, extract_help: str, boards: int
) -> tuple[argparse.ArgumentParser, argparse.ArgumentParser, argparse.ArgumentParser]:
    """A screen's parser and its two commands, ``extract`` (games in, a suite out, ``boards`` boards
    kept per position at most by default) and ``run`` (the suite, both configurations, the sample, the
    judge); each screen adds its own options to them."""
    parser = argparse.ArgumentParser(description=description)
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("extract", help=extract_help)
    make.add_argument("inputs", nargs="+", type=Path, metavar="GAME_OR_RUN_DIR")
    make.add_argument("--out", type=Path, required=True)
    make.add_argument("--boards", type=int, default=boards, help="boards kept per position at most")
    play = commands.add_parser("run", help="both configurations on every position, judged on the truth")
    play.add_argument("suite", type=Path)
    play.add_argument("--base-set", action="append", default=[], metavar="KEY=VALUE")
    play.add_argument("--candidate-set", action="append", default=[], metavar="KEY=VALUE")
    play.add_argument("--sample", type=int, default=0, help="N positions drawn at random (default: all)")
    play.add_argument("--seed", type=int, default=0, help="which N positions --sample draws")
    play.add_argument("--part", type=part_of, default=(0, 1), metavar="K/N",
                      help="every N-th position of the sample from the K-th (N side by side)")  # fmt: skip
    play.add_argument("--judge-nodes", type=int, default=100_000)
    play.add_argument("--judge-curve", choices=CURVES, default="logistic",
                      help="the curve the summary judges losses on (rows keep both)")  # fmt: skip
    play.add_argument("--fixed", type=fixed_of, default=None, metavar="NODES/BOARDS",
                      help="both configurations search NODES nodes a position, single-threaded, on "
                      "exactly BOARDS boards a candidate: only the change moves a decision")  # fmt: skip
    play.add_argument("--out", type=Path, help="one JSON line per position")
    return parser, make, play


def fixed_of(text: str) -> tuple[int, int]:
    """``--fixed NODES/BOARDS``, both at least 1."""
    try:
        nodes, boards = (int(value) for value in text.split("/"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected NODES/BOARDS, e.g. 3000/60, not {text!r}") from None
    if nodes < 1 or boards < 1:
        raise argparse.ArgumentTypeError(f"NODES and BOARDS must be at least 1, not {text!r}")
    return nodes, boards


def fixed_settings(fixed: tuple[int, int] | None) -> list[str]:
    """The settings that make a configuration's decisions a function of its input alone: node-limited
    single-threaded searches and a fixed number of boards scored per candidate. Why: with timed
    searches the same configuration chooses another move on about half the positions, a noise as large
    as any single change's effect; a screen run with these on both sides differs only where the
    change acts. Put before each side's own settings, which may override them."""
    if fixed is None:
        return []
    nodes, boards = fixed
    return ["engine.workers=1", "engine.deterministic=true", f"engine.nodes={nodes}",
            f"move.min_boards={boards}", f"move.max_boards={boards}"]  # fmt: skip


def configs(args: argparse.Namespace) -> tuple[BotConfig, BotConfig]:
    """The base's and the candidate's configurations from ``run``'s options."""
    same = fixed_settings(args.fixed)
    return load_config(None, same + args.base_set), load_config(None, same + args.candidate_set)


def run_command(name: str, action: Callable[[], None]) -> None:
    """``action``, with a bad suite, game or setting reported as one line on stderr (exit status 1)."""
    try:
        action()
    except (ValueError, OSError) as exc:  # ReplayError and config errors are ValueErrors
        sys.exit(f"{name}: error: {exc}")
