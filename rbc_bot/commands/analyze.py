"""``analyze PATH``: understand finished games (ours or anyone's) from their GameHistory files.

Why: after a loss you want to know what the bot could have believed, what its senses bought, and
where its moves went wrong, without reading debug logs. PATH is one game (local ``GameHistory.save``
output or a server download wrapped as ``{"game_history": ...}``) or a folder of them.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
from pathlib import Path
from typing import TYPE_CHECKING

import chess
from rich.console import Console

from rbc_bot.commands.common import RUNTIME, error
from rbc_bot.replay.analysis import Options, analyse, open_pool
from rbc_bot.replay.folder import Done, FolderProgress, analyse_games, find_games
from rbc_bot.replay.load import ReplayError, load_game
from rbc_bot.replay.report import write_aggregate, write_game
from rbc_bot.replay.resim import DEFAULT_CAP, DEFAULT_SECONDS, DEFAULT_SLACK, DEFAULT_STASH_LIMIT
from rbc_bot.replay.terminal import print_aggregate, print_summary

if TYPE_CHECKING:
    from rbc_bot.replay.analysis import Engines

logger = logging.getLogger(__name__)

SIDES = {"white": [chess.WHITE], "black": [chess.BLACK], "both": [chess.WHITE, chess.BLACK]}


def configure(parser: argparse.ArgumentParser) -> None:
    _add_input_arguments(parser)
    _add_engine_arguments(parser)
    _add_belief_arguments(parser)
    parser.add_argument("--brief", action="store_true", help="no per-turn table in the terminal")


def _add_input_arguments(parser: argparse.ArgumentParser) -> None:
    """What to analyse and where the reports go."""
    parser.add_argument("path", type=Path, metavar="PATH", help="a GameHistory JSON file or a folder of them")
    parser.add_argument(
        "--out",
        type=Path,
        default=None,
        metavar="DIR",
        help="output folder (default: GAME.analysis/ beside a file, PATH/analysis/ for a folder)",
    )
    parser.add_argument(
        "--side",
        choices=sorted(SIDES),
        default=None,
        help="side(s) to analyse (default: ours when a turn log lies beside the game, else both)",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="games of a folder analysed at once, each in its own process (progress on stderr)",
    )


def _add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The Stockfish judgement of the moves, on the true board and on the believed boards."""
    parser.add_argument(
        "--engine-nodes", type=int, default=20_000, metavar="N", help="Stockfish node limit per position"
    )
    parser.add_argument("--no-engine", action="store_true", help="skip the Stockfish mistake analysis")
    parser.add_argument(
        "--stockfish", default=None, metavar="PATH", help="Stockfish binary (default: the usual lookup)"
    )
    parser.add_argument(
        "--belief-boards",
        type=int,
        default=16,
        metavar="K",
        help="believed boards sampled per turn to judge each move against (0: judge on the true board only)",
    )
    parser.add_argument(
        "--belief-nodes",
        type=int,
        default=5_000,
        metavar="N",
        help="Stockfish node limit per search on the believed boards",
    )
    parser.add_argument(
        "--belief-weights",
        choices=("uniform", "likely"),
        default="uniform",
        help="how each believed board counts in a move's judgement: one each, or by how likely the "
        "opponent's play made it, as the bot weighs them (the boards worst for the mover likeliest)",
    )


def _add_belief_arguments(parser: argparse.ArgumentParser) -> None:
    """The belief re-simulation: the tracker's cap and slack, and the budgets that stop it."""
    parser.add_argument(
        "--belief-cap",
        type=int,
        default=DEFAULT_CAP,
        metavar="N",
        help="most live boards in the re-simulated belief (0: no cap; default: the bot's, %(default)s)",
    )
    parser.add_argument(
        "--belief-seconds",
        type=float,
        default=DEFAULT_SECONDS,
        metavar="S",
        help="time budget per side for the belief re-simulation",
    )
    parser.add_argument(
        "--stash-limit",
        type=int,
        default=DEFAULT_STASH_LIMIT,
        metavar="N",
        help="stop a side's re-simulation when the tracker holds more stashed boards than this (memory)",
    )
    parser.add_argument(
        "--belief-slack",
        type=int,
        default=DEFAULT_SLACK,
        metavar="K",
        help="after the opponent's move keep up to cap x K boards until the sense (default: the bot's, "
        "%(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    console = Console()
    for name, value, low in (
        ("--jobs", args.jobs, 1),
        ("--engine-nodes", args.engine_nodes, 1),
        ("--belief-cap", args.belief_cap, 0),
        ("--belief-slack", args.belief_slack, 1),
        ("--belief-boards", args.belief_boards, 0),
        ("--belief-nodes", args.belief_nodes, 1),
    ):
        if value < low:
            return error(f"{name} must be >= {low}, got {value}")
    options = Options(
        sides=SIDES[args.side] if args.side else None,
        engine_nodes=args.engine_nodes,
        use_engine=not args.no_engine,
        belief_cap=args.belief_cap or None,
        belief_seconds=args.belief_seconds,
        stash_limit=args.stash_limit,
        belief_slack=args.belief_slack,
        engine_path=args.stockfish,
        belief_boards=args.belief_boards,
        belief_nodes=args.belief_nodes,
        belief_weights=args.belief_weights,
    )
    path: Path = args.path
    if path.is_dir():
        return _run_folder(path, args.out or path / "analysis", options, console, args.jobs)
    if not path.exists():
        return error(f"{path}: no such file or folder", RUNTIME)
    try:
        game = load_game(path)
    except ReplayError as exc:
        return error(exc, RUNTIME)
    out = args.out or path.with_name(path.stem + ".analysis")
    summary = write_game(analyse(game, options), out)
    print_summary(summary, console, full=not args.brief)
    console.print(f"report: {out / 'report.html'}  (also summary.json, game.pgn, *.png)")
    return 0


def _run_folder(folder: Path, out: Path, options: Options, console: Console, jobs: int) -> int:
    games = find_games(folder, out)
    if not games:
        return error(f"{folder}: no .json game files found", RUNTIME)
    out.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        pool = None
        if options.use_engine:
            from rbc_bot.engine import EngineError, StockfishNotFoundError

            try:  # checked here once, so that a missing engine is one warning, not one per game
                pool = stack.enter_context(open_pool(options))
            except (StockfishNotFoundError, EngineError) as exc:
                logger.warning("no engine analysis: %s", exc)
                options.use_engine = False
            if jobs > 1 and pool is not None:
                stack.pop_all().close()  # each worker process opens its own
                pool = None
        return _analyse_folder(games, out, options, console, pool, jobs)


def _analyse_folder(
    games: list[Path], out: Path, options: Options, console: Console, pool: Engines | None, jobs: int
) -> int:
    done: list[Done] = []
    with FolderProgress(len(games)) as progress:
        for item in analyse_games(games, out, options, jobs, pool):
            done.append(item)
            progress.advance(item.path)
            if item.summary is not None:
                print_summary(item.summary, console, full=False)
            else:
                logger.warning("%s: %s", item.path, item.error)
    done.sort(key=lambda item: item.index)
    entries = [(item.summary, item.folder) for item in done if item.summary is not None]
    bad = [(item.path, item.error or "") for item in done if item.summary is None]
    agg = write_aggregate(out, entries, bad)
    print_aggregate(agg, console)
    console.print(f"index: {out / 'index.html'}  ({len(entries)} games, {len(bad)} bad files)")
    return 0 if entries else 1
