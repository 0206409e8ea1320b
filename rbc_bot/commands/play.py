"""``play``: one local game of our bot against another bot, with per-turn progress and a saved replay."""

from __future__ import annotations

import argparse
import dataclasses
import json
import random
from pathlib import Path
from typing import Any

from rich.console import Console

from rbc_bot.commands.common import add_clock_arguments, check_clock, error
from rbc_bot.game import play_game
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.start import start_board

CLOCK_NOTE = (
    "The clock is charged as on the server: only the side to move; handle_move_result is off the clock."
)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.description = (
        "Play one local game (reconchess LocalGame) of rbc_bot against OPPONENT, show each ply, print "
        "the result and save the reconchess GameHistory JSON plus our per-turn log "
        "(<replay>.turns.jsonl) in --out. " + CLOCK_NOTE
    )
    parser.add_argument(
        "--opponent", default="trout", help="trout, attacker, random, rbc_bot, a module name or a .py file"
    )
    parser.add_argument("--color", choices=["white", "black", "random"], default="random", help="our colour")
    add_clock_arguments(parser, "seeds both bots' random and numpy, and our sampling")
    parser.add_argument(
        "--out", type=Path, default=Path("replays"), help="folder for the replay and turn log"
    )
    parser.add_argument("--config", metavar="FILE.toml", help="our bot's config file (see rbc_bot/config.py)")
    parser.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE", help="override one tunable (repeatable)"
    )
    parser.add_argument(
        "--stockfish", metavar="PATH", help="Stockfish binary (else looked up; see check-engine)"
    )
    parser.add_argument(
        "--in-process", action="store_true", help="run both bots in this process (no isolation)"
    )
    parser.add_argument(
        "--fen", default=None, help="start from this position (White to move; default: the standard one)"
    )
    parser.add_argument("--quiet", action="store_true", help="no per-ply progress")
    parser.add_argument(
        "--json", action="store_true", help="print the result as one JSON object on the last line"
    )


def run(args: argparse.Namespace) -> int:
    console = Console(stderr=args.json)
    overrides = list(args.set)
    if args.stockfish:
        overrides.append(f"engine.path={args.stockfish}")
    if not any(o.startswith("belief.seed=") for o in overrides):
        overrides.append(f"belief.seed={args.seed}")
    ours = BotSpec("rbc_bot", tuple(overrides), args.config)
    opponent = BotSpec(args.opponent)
    try:
        check_clock(args.seconds, args.increment)
        start_board(args.fen)
        ours.validate()
        opponent.validate()
    except (ValueError, BotSpecError) as exc:
        return error(exc)
    color = args.color if args.color != "random" else random.Random(args.seed).choice(["white", "black"])
    white, black = (ours, opponent) if color == "white" else (opponent, ours)
    console.print(
        f"rbc_bot ({color}) vs {opponent.name}, {args.seconds:g}+{args.increment:g} s, seed {args.seed}"
    )

    def on_turn(info: dict[str, Any]) -> None:
        if args.quiet:
            return
        side = "us  " if info["color"] == color else "them"
        moved = info.get("taken") or "pass"
        capture = f" x{info['capture_square']}" if info.get("capture_square") else ""
        sense = info.get("sense") or "-"
        console.print(
            f"ply {info['ply']:3d} {side} sense {sense:>3}  move {moved:<6}{capture:<5} "
            f"{info['seconds_left']:7.1f} s left"
        )

    result = play_game(
        white, black, seconds=args.seconds, increment=args.increment, seed=args.seed, out_dir=args.out,
        isolate=not args.in_process, on_turn=on_turn, name=f"rbc_bot-vs-{opponent.name}-{color}",
        start_fen=args.fen,
    )  # fmt: skip
    outcome = "draw" if result.winner is None else ("win" if result.winner == color else "loss")
    console.print(
        f"[bold]{outcome}[/bold]: winner {result.winner or 'none'} by {result.reason} "
        f"after {result.plies} plies; replay {result.replay}"
    )
    if result.traceback:
        console.print(result.traceback)
    if args.json:
        summary = dataclasses.asdict(result)
        summary.update(
            our_color=color, outcome=outcome, turns_log=result.turn_logs.get(color), opponent=opponent.name
        )
        print(json.dumps(summary))
    return 0
