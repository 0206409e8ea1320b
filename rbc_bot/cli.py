"""The ``rbc-bot`` / ``python run_bot.py`` command line.

Each subcommand lives in ``rbc_bot.commands.<name>`` with two functions, ``configure(parser)`` and
``run(args) -> int``. They are imported only when chosen, so ``--help`` stays fast and a missing
optional piece never breaks the other commands.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence
from typing import NoReturn

from rbc_bot import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "play": ("play", "play one local game of our bot against another bot and save the replay"),
    "match": ("match", "play a colour-swapped match between two bots (Elo, CI, SPRT)"),
    "tournament": ("tournament", "play a round robin between several bots"),
    "gauntlet": (
        "gauntlet",
        "our bot against the fixed set of opponents (StrangeFish, reconchess bots)",
    ),
    "trial": (
        "trial",
        "a candidate configuration of our bot and a control, side by side against one opponent",
    ),
    "analyze": ("analyze", "analyse finished games: beliefs, senses, mistakes, report"),
    "serve": ("serve", "run a local RBC server speaking the official HTTP API"),
    "connect": ("connect", "connect a bot to an RBC server and play its invitations (like rc-connect)"),
    "check-engine": ("check_engine", "show which Stockfish is used, its version and a test search"),
    "cluster-check": ("cluster_check", "run a tiny task on every Ray node: its Stockfish and rbc_bot"),
}


class Parser(argparse.ArgumentParser):
    """argparse with the project's error convention: one line, the common prefix, exit status 2."""

    def error(self, message: str) -> NoReturn:
        from rbc_bot.commands.common import USAGE, error

        error(f"{message} (see {self.prog} --help)")
        sys.exit(USAGE)


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="rbc-bot",
        description="Reconnaissance Blind Chess bot and tools.",
        epilog=(
            "Errors are one line on stderr, starting 'rbc-bot: error:'. Exit status 0 on success, "
            "exit status 2 for a usage error (a bad flag, bot, file or engine: nothing was played), "
            "exit status 1 for a failure at run time, 130 when interrupted."
        ),
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"rbc_bot {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more logging (-vv for debug)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(
            name,
            help=help_text,
            description=help_text,
            formatter_class=argparse.ArgumentDefaultsHelpFormatter,
        )
        command_parser.set_defaults(_module=module)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    # Configure only the chosen subcommand's parser: imports stay lazy.
    chosen = next((a for a in argv if a in COMMANDS), None)
    if chosen is not None:
        sub_action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        module = importlib.import_module(f"rbc_bot.commands.{COMMANDS[chosen][0]}")
        module.configure(sub_action.choices[chosen])
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    from rbc_bot.logs import configure_logging

    configure_logging(args.verbose)
    module = importlib.import_module(f"rbc_bot.commands.{args._module}")
    try:
        return int(module.run(args))
    except KeyboardInterrupt:
        logging.getLogger("rbc_bot").warning("interrupted")
        return 130
