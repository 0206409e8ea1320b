"""``tournament``: a round robin between several bots, with a crosstable and Elo against the field."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from rbc_bot.commands.common import (
    RUNTIME,
    add_clock_arguments,
    add_positions_argument,
    add_watchdog_argument,
    error,
)
from rbc_bot.commands.match import CLOCK_NOTE, stop_on_sigterm
from rbc_bot.commands.ray_options import add_ray_arguments, backend_from_args
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import BackendError
from rbc_bot.start import load_positions
from rbc_bot.tournament import run_tournament


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Round robin: every pair of bots plays --games-per-pair games in colour-swapped pairs sharing a "
        "seed, each bot in its own process. Prints a crosstable and each bot's logistic Elo (95% CI) "
        "from its score against the rest of the field. " + CLOCK_NOTE
    )
    parser.add_argument(
        "bots", nargs="+", metavar="BOT", help="rbc_bot, trout, attacker, random, a module or a .py file"
    )
    parser.add_argument("--games-per-pair", type=int, default=10, help="games each pair of bots plays")
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    add_clock_arguments(parser, "game pair k uses seed SEED+k", seconds=120.0)
    add_watchdog_argument(parser)
    add_positions_argument(parser)
    parser.add_argument(
        "--out",
        type=Path,
        default=argparse.SUPPRESS,
        help="output directory (default: replays/tournament-<time>)",
    )
    add_ray_arguments(parser)


def crosstable(summary: dict[str, Any]) -> Table:
    """Rows: bots by points; cells: points scored against the column bot out of games played."""
    bots = summary["bots"]
    points, games = summary["crosstable"]["points"], summary["crosstable"]["games"]
    order = sorted(range(len(bots)), key=lambda k: -(bots[k]["points"]))
    table = Table(title="crosstable (row's points / games against column)")
    table.add_column("#")
    table.add_column("bot")
    for k in order:
        table.add_column(str(order.index(k) + 1), justify="center")
    table.add_column("score", justify="right")
    table.add_column("W-L-D", justify="right")
    table.add_column("Elo vs field (95% CI)", justify="right")
    table.add_column("crash/time", justify="right")
    for rank, k in enumerate(order, 1):
        bot = bots[k]
        cells = ["-" if j == k else f"{points[k][j]:g}/{games[k][j]}" for j in order]
        score = "-" if bot["score"] is None else f"{bot['points']:g}/{bot['games']} {100 * bot['score']:.0f}%"
        elo = "-" if bot["elo"] is None else f"{bot['elo']:+.0f} ± {bot['elo_ci95']:.0f}"
        wld = "-".join(map(str, bot["wld"]))
        table.add_row(str(rank), bot["name"], *cells, score, wld, elo, f"{bot['crashes']}/{bot['timeouts']}")
    return table


def run(args: argparse.Namespace) -> int:
    console = Console()
    bots = [BotSpec(spec) for spec in args.bots]
    out_dir: Path = (
        getattr(args, "out", None) or Path("replays") / f"tournament-{datetime.now():%Y_%m_%d-%H_%M_%S}"
    )
    n = len(bots)
    total = n * (n - 1) // 2 * args.games_per_pair
    progress = Progress(
        TextColumn("[bold]games"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console
    )
    try:
        positions = load_positions(args.positions) if args.positions is not None else []
        cluster = backend_from_args(args)
        with cluster as backend, stop_on_sigterm(), progress:
            task = progress.add_task("", total=total)

            def on_record(record: dict[str, Any], records: list[dict[str, Any]]) -> None:
                progress.update(task, completed=len(records))

            summary = run_tournament(
                bots,
                out_dir,
                games_per_pair=args.games_per_pair,
                seconds=args.seconds,
                increment=args.increment,
                seed=args.seed,
                jobs=args.jobs,
                watchdog_margin=args.watchdog_margin,
                positions=positions,
                on_record=on_record,
                backend=backend,
            )
    except (ValueError, BotSpecError) as exc:
        return error(exc)
    except BackendError as exc:
        return error(exc, RUNTIME)
    except KeyboardInterrupt:
        console.print(f"stopped; finished games are in {out_dir}/results.jsonl and summary.json")
        return 130
    console.print(crosstable(summary))
    console.print(f"Elo: {summary['elo_method']}.")
    console.print(f"summary: {out_dir / 'summary.json'}  games: {out_dir / 'games.pgn'}")
    return 0
