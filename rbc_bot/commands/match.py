"""``match``: two bots play colour-swapped pairs; live W-L-D, Elo with 95 % CI, optional SPRT."""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from types import FrameType
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rbc_bot.commands.common import (
    RUNTIME,
    add_clock_arguments,
    add_positions_argument,
    add_run_arguments,
    add_stop_after_argument,
    add_watchdog_argument,
    error,
    start_until,
)
from rbc_bot.commands.ray_options import add_ray_arguments, backend_from_args
from rbc_bot.match import MatchSettings, SprtSettings, load_match, match_totals, run_match
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import RESULTS_FILE, BackendError, load_records
from rbc_bot.start import load_positions

log = logging.getLogger(__name__)

CLOCK_NOTE = (
    "The clock is charged as on the server: only the side to move, and handle_move_result is off the "
    "clock (the turn ends before the bot hears its move result)."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play a match between bots A and B in colour-swapped pairs sharing a seed, J games at once, each "
        "bot in its own process. Shows W-L-D, score and logistic Elo with a 95% CI as games finish; "
        "with --sprt stops when the log-likelihood ratio (pentanomial, normalised Elo, as fishtest) "
        "crosses a bound. " + CLOCK_NOTE + " A bot that raises loses that game; "
        "a bot that hangs past both clocks plus --watchdog-margin is killed and loses. Results go to "
        "DIR/results.jsonl and the games to DIR/games.pgn as each game ends, and DIR/summary.json."
    )
    parser.add_argument(
        "a",
        nargs="?",
        metavar="A",
        default=argparse.SUPPRESS,
        help="bot A: rbc_bot, trout, attacker, random, a module or a .py file",
    )
    parser.add_argument(
        "b", nargs="?", metavar="B", default=argparse.SUPPRESS, help="bot B (same choices as A)"
    )
    add_run_arguments(parser, "match", "games to play", jobs=1)
    add_clock_arguments(parser, "pair k uses seed SEED+k (random and numpy, per bot)", seconds=120.0)
    for side in ("a", "b"):
        parser.add_argument(
            f"--{side}-set",
            action="append",
            default=[],
            metavar="KEY=VALUE",
            help=f"configure our bot as {side.upper()} (repeatable; rbc_bot only)",
        )
        parser.add_argument(
            f"--{side}-config",
            default=None,
            metavar="FILE.toml",
            help=f"TOML config of our bot as {side.upper()}",
        )
    add_positions_argument(parser)
    parser.add_argument(
        "--sprt",
        nargs=2,
        type=float,
        metavar=("ELO0", "ELO1"),
        default=None,
        help="SPRT of H0: nElo=ELO0 against H1: nElo=ELO1 (normalised Elo), e.g. --sprt 0 10",
    )
    parser.add_argument("--alpha", type=float, default=0.05, help="SPRT false-positive rate")
    parser.add_argument("--beta", type=float, default=0.05, help="SPRT false-negative rate")
    add_watchdog_argument(parser)
    add_stop_after_argument(parser)
    add_ray_arguments(parser)


def settings_from_args(args: argparse.Namespace) -> tuple[MatchSettings, Path, bool]:
    """The match to play, its directory and whether it resumes one: all checked before any game."""
    games: int | None = getattr(args, "games", None)
    jobs: int | None = getattr(args, "jobs", None)
    a: str | None = getattr(args, "a", None)
    b: str | None = getattr(args, "b", None)
    if args.resume is not None:
        if a is not None or b is not None or args.positions is not None:
            raise ValueError(
                "--resume DIR takes the bots and positions from DIR/match.json: give no A, B or --positions"
            )
        settings, _ = load_match(args.resume)
        settings.games = settings.games if games is None else games
        settings.jobs = settings.jobs if jobs is None else jobs
        return settings, args.resume, True
    if a is None or b is None:
        raise ValueError("give two bots, A and B (or --resume DIR)")
    sprt = SprtSettings(args.sprt[0], args.sprt[1], args.alpha, args.beta) if args.sprt else None
    settings = MatchSettings(
        a=BotSpec(a, tuple(args.a_set), args.a_config),
        b=BotSpec(b, tuple(args.b_set), args.b_config),
        games=20 if games is None else games,
        seconds=args.seconds,
        increment=args.increment,
        seed=args.seed,
        jobs=1 if jobs is None else jobs,
        sprt=sprt,
        watchdog_margin=args.watchdog_margin,
        positions=load_positions(args.positions) if args.positions is not None else [],
    )
    out = getattr(args, "out", None) or Path("replays") / f"match-{datetime.now():%Y_%m_%d-%H_%M_%S}"
    return settings, out, False


def fmt(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:+.{digits}f}"


def totals_line(totals: dict[str, Any]) -> str:
    """``W-L-D 5-3-2  score 60.0%  Elo +70.4 ± 120.3  LLR 0.53 [-2.94, 2.94]`` for the progress bar."""
    parts = [f"W-L-D {totals['wins']}-{totals['losses']}-{totals['draws']}"]
    if totals["score"] is not None:
        parts.append(f"score {100 * totals['score']:.1f}%")
        parts.append(f"Elo {fmt(totals['elo'])} ± {totals['elo_ci95']:.1f}")
    if totals["crashes"] or totals["timeouts"]:
        parts.append(f"crashes {totals['crashes']} timeouts {totals['timeouts']}")
    sprt = totals.get("sprt")
    if sprt:
        parts.append(f"LLR {sprt['llr']:.2f} [{sprt['lower']:.2f}, {sprt['upper']:.2f}]")
    return "  ".join(parts)


def final_table(summary: dict[str, Any]) -> Table:
    totals = summary["totals"]
    a, b = summary["match"]["a"], summary["match"]["b"]
    table = Table(title=f"{BotSpec(**a).name} (A) vs {BotSpec(**b).name} (B)", show_header=True)
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("games (pairs)", f"{totals['games']} ({totals['pairs']})")
    table.add_row("A wins-losses-draws", f"{totals['wins']}-{totals['losses']}-{totals['draws']}")
    if totals["score"] is not None:
        table.add_row("A score", f"{totals['points']:g}/{totals['games']} = {100 * totals['score']:.1f}%")
        interval = f"[{fmt(totals['elo_lower'])}, {fmt(totals['elo_upper'])}]"
        table.add_row(
            f"Elo A-B (logistic, 95% CI, {totals['elo_model']})",
            f"{fmt(totals['elo'])} ± {totals['elo_ci95']:.1f}  {interval}",
        )
        table.add_row("normalised Elo", fmt(totals["nelo"]))
    table.add_row("pentanomial LL,LD,DD+WL,WD,WW", ",".join(map(str, totals["pentanomial"])))
    table.add_row("crashes (A/B)", f"{totals['crashes']} ({totals['a_crashes']}/{totals['b_crashes']})")
    table.add_row("timeouts (of which hangs)", f"{totals['timeouts']} ({totals['hangs']})")
    sprt = totals.get("sprt")
    if sprt:
        table.add_row(
            f"SPRT nElo [{sprt['elo0']:g}, {sprt['elo1']:g}] a={sprt['alpha']:g} b={sprt['beta']:g}",
            f"LLR {sprt['llr']:.2f} in [{sprt['lower']:.2f}, {sprt['upper']:.2f}]: "
            + {"H1": "H1 accepted (A stronger)", "H0": "H0 accepted", None: "undecided"}[sprt["decision"]],
        )
    return table


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


@contextlib.contextmanager
def stop_on_sigterm() -> Iterator[None]:
    """Treat a kill (SIGTERM) like Ctrl-C: games in progress are aborted, bot processes closed. Enter it
    after connecting to Ray: ``ray.init`` installs its own SIGTERM handler, which dumps the stack and
    exits without cleaning up."""
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def run(args: argparse.Namespace) -> int:
    console = Console()
    try:
        settings, out_dir, resume = settings_from_args(args)
        settings.validate()
        until = start_until(args.stop_after)
        cluster = backend_from_args(args)
    except (ValueError, BotSpecError) as exc:
        return error(exc)
    console.print(f"match -> {out_dir}  ({CLOCK_NOTE})")
    progress = Progress(
        TextColumn("[bold]games"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
    )
    try:
        with cluster as backend, stop_on_sigterm(), progress:
            already = len(load_records(out_dir / RESULTS_FILE)) if resume else 0
            task = progress.add_task("", total=settings.games, completed=already)

            def on_record(record: dict[str, Any], records: list[dict[str, Any]]) -> None:
                totals = match_totals(records, settings.sprt)
                progress.update(task, completed=len(records), description=totals_line(totals))
                log.info(
                    "game %d: %s %s (%s)",
                    record["index"],
                    record["winner"],
                    record["reason"],
                    record["replay"],
                )

            summary = run_match(
                settings, out_dir, resume=resume, on_record=on_record, backend=backend, start_until=until
            )
    except ValueError as exc:
        return error(exc)
    except BackendError as exc:
        return error(exc, RUNTIME)
    except KeyboardInterrupt:
        console.print(
            f"stopped; finished games are kept. Go on with: python run_bot.py match --resume {out_dir}"
        )
        return 130
    console.print(final_table(summary))
    console.print(f"summary: {out_dir / 'summary.json'}  games: {out_dir / 'games.pgn'}")
    played, sprt = len(summary["games"]), summary["totals"].get("sprt")
    if played < settings.games and not (sprt and sprt["decision"]):
        console.print(
            f"--stop-after: {played} of {settings.games} games played. "
            f"Go on with: python run_bot.py match --resume {out_dir}"
        )
    return 0
