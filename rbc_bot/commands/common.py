"""Flags shared by the commands that play local games (play, match, tournament)."""

from __future__ import annotations

import argparse


def add_clock_arguments(parser: argparse.ArgumentParser, seed_help: str) -> None:
    """--seconds, --increment and --seed, spelled and defaulted the same everywhere."""
    parser.add_argument("--seconds", type=float, default=900.0, help="clock per player, seconds")
    parser.add_argument("--increment", type=float, default=5.0, help="seconds added after each turn")
    parser.add_argument("--seed", type=int, default=0, help=seed_help)


def add_watchdog_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--watchdog-margin",
        type=float,
        default=120.0,
        help="seconds past both clocks before a hung game is ended",
    )
