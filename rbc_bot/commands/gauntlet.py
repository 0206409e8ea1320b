"""``gauntlet``: our bot (any configuration) against the fixed set of opponents; one table."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markdown import Markdown

from rbc_bot.commands.common import RUNTIME, add_stop_after_argument, error, start_until
from rbc_bot.commands.match import CLOCK_NOTE, stop_on_sigterm, totals_line
from rbc_bot.commands.ray_options import add_ray_arguments, backend_from_args
from rbc_bot.gauntlet import STRANGEFISH, Opponent, default_opponents, markdown_table, run_gauntlet
from rbc_bot.match import match_totals
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import BackendError, write_json

TABLE_FILE = "gauntlet.md"
ROWS_FILE = "gauntlet.json"


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play our bot against a fixed set of opponents, each a colour-swapped match with fixed seeds: "
        "StrangeFish (the NeurIPS 2019 winner, from ../shared/opponents) and TroutBot at 120 s + 5 s, "
        "AttackerBot and RandomBot at 60 s + 2 s. Prints W-L-D and Elo with a 95% CI per opponent and "
        "writes DIR/gauntlet.md (the README's table) and DIR/gauntlet.json. Each opponent's match is "
        "DIR/<opponent>/, so running the same command again resumes where it stopped. " + CLOCK_NOTE
    )
    parser.add_argument("--games", type=int, default=None, help="games per opponent (None: 20 each)")
    parser.add_argument(
        "--only",
        action="append",
        default=None,
        metavar="NAME",
        help="play only this opponent (repeatable): strangefish, trout, attacker, random",
    )
    parser.add_argument("--jobs", type=int, default=1, help="games played at once")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="configure our bot")
    parser.add_argument("--config", default=None, metavar="FILE.toml", help="TOML config of our bot")
    parser.add_argument(
        "--strangefish",
        type=Path,
        default=STRANGEFISH,
        help="StrangeFish's strangefish_bot.py (needs the sparring extra: pip install -e '.[sparring]')",
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="output directory (None: replays/gauntlet-<time>)"
    )
    add_stop_after_argument(parser)
    add_ray_arguments(parser)


def chosen_opponents(args: argparse.Namespace) -> list[Opponent]:
    """The opponents to play, checked: a name --only doesn't know and a missing StrangeFish are errors."""
    opponents = default_opponents(args.strangefish, args.games)
    if args.only:
        known = {o.name for o in opponents}
        unknown = sorted(set(args.only) - known)
        if unknown:
            raise ValueError(f"--only {unknown[0]}: not in the gauntlet ({', '.join(sorted(known))})")
        opponents = [o for o in opponents if o.name in args.only]
    if any(o.name == "strangefish" for o in opponents) and not args.strangefish.is_file():
        raise ValueError(f"--strangefish {args.strangefish}: no such file (or leave it out with --only)")
    if args.games is not None and (args.games < 2 or args.games % 2):
        raise ValueError(f"--games must be even and at least 2 (colour-swapped pairs): {args.games}")
    return opponents


def run(args: argparse.Namespace) -> int:
    console = Console()
    out_dir: Path = args.out or Path("replays") / f"gauntlet-{datetime.now():%Y_%m_%d-%H_%M_%S}"
    ours = BotSpec("rbc_bot", tuple(args.set), args.config)

    def on_record(opponent: Opponent, record: dict[str, Any], records: list[dict[str, Any]]) -> None:
        line = totals_line(match_totals(records))
        console.print(f"{opponent.name}: game {len(records)}/{opponent.games}  {line}")

    try:
        opponents = chosen_opponents(args)
        if args.jobs < 1:
            raise ValueError(f"--jobs must be at least 1: {args.jobs}")
        until = start_until(args.stop_after)
        console.print(f"gauntlet of {ours.name} -> {out_dir}")
        cluster = backend_from_args(args)
        with cluster as backend, stop_on_sigterm():
            rows = run_gauntlet(
                ours,
                opponents,
                out_dir,
                jobs=args.jobs,
                on_record=on_record,
                backend=backend,
                start_until=until,
            )
    except (ValueError, BotSpecError) as exc:
        return error(exc)
    except BackendError as exc:
        return error(exc, RUNTIME)
    except KeyboardInterrupt:
        console.print(f"stopped; finished games are kept. Run the same command again to resume ({out_dir}).")
        return 130
    table = markdown_table(rows)
    (out_dir / TABLE_FILE).write_text(table)
    write_json(out_dir / ROWS_FILE, {"bot": ours.name, "rows": rows})
    console.print(Markdown(table))
    console.print(f"table: {out_dir / TABLE_FILE}")
    if any(row["games"] < row["planned"] for row in rows):
        console.print("--stop-after: not every game was played. Run the same command again to go on.")
    return 0
