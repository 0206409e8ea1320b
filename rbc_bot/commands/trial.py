"""``trial``: a candidate configuration of our bot and a control against one opponent, side by side."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

from rbc_bot.commands.common import (
    RUNTIME,
    add_clock_arguments,
    add_run_arguments,
    add_stop_after_argument,
    add_watchdog_argument,
    error,
    start_until,
)
from rbc_bot.commands.match import CLOCK_NOTE, stop_on_sigterm, totals_line
from rbc_bot.commands.ray_options import add_ray_arguments, backend_from_args
from rbc_bot.gauntlet import STRANGEFISH, elo_text, percent
from rbc_bot.match import match_totals
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import BackendError
from rbc_bot.trial import (
    ARMS,
    TrialSettings,
    arm_records,
    comparison_lines,
    load_trial,
    run_trial,
    trial_comparison,
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Compare a candidate configuration of our bot with a control (the defaults, or --control-set) "
        "against one opponent: each plays the same colour-swapped games on the same seeds, and the two "
        "arms' games run side by side (--jobs at a time, interleaved), so both meet the same load: on "
        "a small machine the opponent's strength depends on it. Prints each arm's W-L-D and Elo, then "
        "the candidate's points against the control's on the games both finished: better and worse, "
        "the sign test, and the difference per 100 games with its 95% CI. Results go to "
        "DIR/results.jsonl and DIR/summary.json; the same trial goes on with --resume DIR. " + CLOCK_NOTE
    )
    parser.add_argument(
        "opponent",
        nargs="?",
        metavar="OPPONENT",
        default=argparse.SUPPRESS,
        help="strangefish (the sparring partner; the default), trout, attacker, random, a module or a .py",
    )
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="configure the candidate"
    )
    parser.add_argument("--config", default=None, metavar="FILE.toml", help="TOML config of the candidate")
    parser.add_argument(
        "--control-set", action="append", default=[], metavar="KEY=VALUE", help="configure the control"
    )
    parser.add_argument(
        "--control-config", default=None, metavar="FILE.toml", help="TOML config of the control"
    )
    add_run_arguments(parser, "trial", "games per arm", jobs=2)
    add_clock_arguments(parser, "pair k of each arm uses seed SEED+k", seconds=120.0)
    add_watchdog_argument(parser)
    add_stop_after_argument(parser)
    add_ray_arguments(parser)


def opponent_spec(name: str) -> BotSpec:
    """``strangefish`` names the sparring partner beside this checkout; anything else is a bot spec."""
    if name == "strangefish":
        if not STRANGEFISH.is_file():
            raise ValueError(f"strangefish: no {STRANGEFISH} (give the path to strangefish_bot.py)")
        return BotSpec(str(STRANGEFISH))
    return BotSpec(name)


def settings_from_args(args: argparse.Namespace) -> tuple[TrialSettings, Path, bool]:
    """The trial to play, its folder and whether it resumes one: all checked before any game."""
    games: int | None = getattr(args, "games", None)
    jobs: int | None = getattr(args, "jobs", None)
    if args.resume is not None:
        if hasattr(args, "opponent") or args.set or args.control_set or args.config or args.control_config:
            raise ValueError("--resume DIR takes the bots from DIR/trial.json: give no OPPONENT or settings")
        settings = load_trial(args.resume)
        settings.games = settings.games if games is None else games
        settings.jobs = settings.jobs if jobs is None else jobs
        return settings, args.resume, True
    settings = TrialSettings(
        candidate=BotSpec("rbc_bot", tuple(args.set), args.config),
        control=BotSpec("rbc_bot", tuple(args.control_set), args.control_config),
        opponent=opponent_spec(getattr(args, "opponent", "strangefish")),
        games=20 if games is None else games,
        seconds=args.seconds,
        increment=args.increment,
        seed=args.seed,
        jobs=2 if jobs is None else jobs,
        watchdog_margin=args.watchdog_margin,
    )
    out = getattr(args, "out", None) or Path("replays") / f"trial-{datetime.now():%Y_%m_%d-%H_%M_%S}"
    return settings, out, False


def report(summary: dict[str, Any]) -> list[str]:
    """One line per arm, then the paired comparison (or why there is none yet)."""
    lines = []
    for row in summary["arms"]:
        settings = " ".join(row["settings"]) or "defaults"
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(
            f"{row['arm']:9} ({settings}): {row['games']} games, W-L-D {row['wins']}-{row['losses']}-"
            f"{row['draws']}, score {score}, Elo {elo_text(row)}, crashes {row['crashes']}, flags "
            f"{row['flags']}, median clock unused {percent(row['median_clock_unused'])}"
        )
    comparison = trial_comparison(summary["games"])
    lines += (
        ["no game finished in both arms yet"]
        if comparison is None
        else comparison_lines(comparison, "control")
    )
    return lines


def run(args: argparse.Namespace) -> int:
    try:
        settings, out_dir, resume = settings_from_args(args)
        settings.validate()
        until = start_until(args.stop_after)
        cluster = backend_from_args(args)
    except (ValueError, BotSpecError) as exc:
        return error(exc)
    print(f"trial -> {out_dir}  ({CLOCK_NOTE})")

    def on_record(record: dict[str, Any], records: list[dict[str, Any]]) -> None:
        arm = record["arm"]
        line = totals_line(match_totals(arm_records(records, arm)))
        print(f"{arm}: game {len(arm_records(records, arm))}/{settings.games}  {line}", flush=True)
        comparison = trial_comparison(records)
        if comparison is not None:
            print(f"  paired: {comparison_lines(comparison, 'control')[1]}", flush=True)

    try:
        with cluster as backend, stop_on_sigterm():
            summary = run_trial(
                settings, out_dir, resume=resume, on_record=on_record, backend=backend, start_until=until
            )
    except ValueError as exc:
        return error(exc)
    except BackendError as exc:
        return error(exc, RUNTIME)
    except KeyboardInterrupt:
        print(f"stopped; finished games are kept. Go on with: python run_bot.py trial --resume {out_dir}")
        return 130
    for line in report(summary):
        print(line)
    print(f"summary: {out_dir / 'summary.json'}")
    if len(summary["games"]) < len(ARMS) * settings.games:
        print(
            f"--stop-after: not every game was played. Go on with: python run_bot.py trial --resume {out_dir}"
        )
    return 0
