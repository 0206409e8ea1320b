"""What the commands share: the clock flags of local games, and one way to report an error."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

USAGE = 2
"""Exit status of a command given something it cannot use (a bad flag, bot, file or engine)."""
RUNTIME = 1
"""Exit status of a command that started and then failed."""
ERROR_PREFIX = "rbc-bot: error: "


def error(message: object, status: int = USAGE) -> int:
    """Print one line on stderr with the common prefix and return ``status`` for ``run`` to return."""
    text = " ".join(str(message).split())
    print(f"{ERROR_PREFIX}{text}", file=sys.stderr)
    return status


def check_clock(seconds: float, increment: float) -> None:
    """A clock a game can be played on: raise ValueError naming the flag otherwise."""
    if not seconds > 0:
        raise ValueError(f"--seconds must be > 0: {seconds:g}")
    if not increment >= 0:
        raise ValueError(f"--increment must be >= 0: {increment:g}")


def add_clock_arguments(parser: argparse.ArgumentParser, seed_help: str, seconds: float = 900.0) -> None:
    """--seconds, --increment and --seed, spelled the same everywhere (commands that play many games
    default to a shorter clock, so that a bare command does not run for days)."""
    parser.add_argument("--seconds", type=float, default=seconds, help="clock per player, seconds")
    parser.add_argument("--increment", type=float, default=5.0, help="seconds added after each turn")
    parser.add_argument("--seed", type=int, default=0, help=seed_help)


def add_watchdog_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--watchdog-margin",
        type=float,
        default=120.0,
        help="seconds past both clocks before a hung game is ended",
    )


def add_positions_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--positions",
        type=Path,
        default=None,
        metavar="FILE",
        help="start positions, one FEN a line with White to move ('#' comments): game pair k starts from "
        "line k (round robin), both games of a pair from the same one (default: the standard position)",
    )


def add_stop_after_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stop-after",
        type=float,
        default=None,
        metavar="MINUTES",
        help="start no game after MINUTES from now; the games in progress finish and are kept, and the "
        "same command (or --resume) goes on later",
    )


def start_until(minutes: float | None) -> float | None:
    """The ``time.monotonic()`` instant ``--stop-after`` names (None: no limit); ValueError if negative."""
    if minutes is None:
        return None
    if not minutes >= 0:
        raise ValueError(f"--stop-after must be >= 0 minutes: {minutes:g}")
    return time.monotonic() + 60.0 * minutes


def add_run_arguments(parser: argparse.ArgumentParser, kind: str, games: str, jobs: int) -> None:
    """--games, --jobs, --out and --resume of a resumable run of games (a match, a trial); --games and
    --jobs are left unset when not given, so that a resume keeps the saved ones."""
    parser.add_argument(
        "--games", type=int, default=argparse.SUPPRESS, help=f"{games}, an even number (default: 20)"
    )
    parser.add_argument(
        "--jobs", type=int, default=argparse.SUPPRESS, help=f"games played at once (default: {jobs})"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=argparse.SUPPRESS,
        help=f"output directory (default: replays/{kind}-<time>)",
    )
    parser.add_argument(
        "--resume",
        type=Path,
        default=None,
        metavar="DIR",
        help=f"go on with the {kind} in DIR (its saved settings; --games and --jobs may be changed)",
    )
