"""``connect``: play a bot on an RBC server (the official one or ``serve``), like rc-connect."""

from __future__ import annotations

import argparse
import getpass
import logging
import os
import sys
from pathlib import Path

from rbc_bot.server.errors import fail

logger = logging.getLogger(__name__)


class UsageError(ValueError):
    """A command-line mistake: exit 2 with one line."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = (
        "Errors go to stderr as 'rbc-bot: error: ...'; exit 2 for usage errors, 1 at run time"
        " (bad URL, bad credentials, a refused request). SIGINT/SIGTERM: unrank and let running"
        " games finish; a second one abandons them."
    )
    parser.add_argument("--server-url", default="https://rbc.jhuapl.edu", help="URL of the server")
    parser.add_argument("--username", required=True, help="account name on the server")
    parser.add_argument(
        "--password-env",
        metavar="VAR",
        default=None,
        help="environment variable holding the password (prompted for on a terminal when not given)",
    )
    parser.add_argument(
        "--bot", default="rbc_bot", help="bot spec: rbc_bot, trout, attacker, random, module, .py"
    )
    parser.add_argument("--config", metavar="FILE.toml", help="our bot's config file (see rbc_bot/config.py)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one tunable of our bot (repeatable)",
    )
    parser.add_argument("--ranked", action="store_true", help="take part in ranked games")
    parser.add_argument(
        "--new-version", action="store_true", help="with --ranked: register this as a new version of the bot"
    )
    parser.add_argument("--max-concurrent-games", type=int, default=4, help="games played at the same time")
    parser.add_argument(
        "--poll-interval", type=float, default=5.0, help="seconds between invitation checks (> 0)"
    )
    parser.add_argument(
        "--max-backoff", type=float, default=60.0, help="cap of the retry delay in seconds (> 0)"
    )
    parser.add_argument(
        "--log-file", default=None, help="log file (default replays/connect-USERNAME.log; 'none' to disable)"
    )
    parser.add_argument(
        "--invite",
        metavar="OPPONENT",
        default=None,
        help="instead of waiting for invitations: invite OPPONENT, play those games, then exit",
    )
    parser.add_argument(
        "--invite-games", type=int, default=1, help="with --invite: games to play (colours alternate)"
    )
    parser.add_argument(
        "--replay-dir", default="replays", help="where finished games are saved ('none': not)"
    )


def check_numbers(args: argparse.Namespace) -> None:
    if args.max_concurrent_games < 1:
        raise UsageError(f"--max-concurrent-games must be at least 1, got {args.max_concurrent_games}")
    if not args.poll_interval > 0:
        raise UsageError(f"--poll-interval must be greater than 0, got {args.poll_interval}")
    if not args.max_backoff > 0:
        raise UsageError(f"--max-backoff must be greater than 0, got {args.max_backoff}")
    if args.invite_games < 1:
        raise UsageError(f"--invite-games must be at least 1, got {args.invite_games}")


def read_password(args: argparse.Namespace) -> str:
    """From ``--password-env``, else a prompt; never a traceback when there is no terminal."""
    if args.password_env:
        password = os.environ.get(args.password_env)
        if not password:
            raise UsageError(f"environment variable {args.password_env} is not set or empty")
        return password
    if not sys.stdin.isatty():
        raise UsageError("no terminal to ask for the password: use --password-env VAR")
    try:
        return getpass.getpass(f"Password for {args.username} at {args.server_url}: ")
    except EOFError:
        raise UsageError("no password given") from None


def run(args: argparse.Namespace) -> int:
    from rbc_bot.logs import configure_logging
    from rbc_bot.players import BotSpec, BotSpecError
    from rbc_bot.server.connector import ConnectOptions, Connector

    spec = BotSpec(args.bot, tuple(args.set), args.config)
    try:
        check_numbers(args)
        spec.validate()
        password = read_password(args)
    except (UsageError, BotSpecError) as exc:
        return fail(str(exc), 2)
    log_file = None if str(args.log_file).lower() == "none" else args.log_file
    if args.log_file is None:
        log_file = str(Path("replays") / f"connect-{args.username}.log")
    verbosity = max(1, args.verbose)
    configure_logging(verbosity, Path(log_file) if log_file else None)
    options = ConnectOptions(
        server_url=args.server_url.rstrip("/"),
        username=args.username,
        password=password,
        bot=args.bot,
        bot_overrides=spec.overrides,
        bot_config=spec.config_file,
        ranked=args.ranked,
        new_version=args.new_version,
        max_concurrent_games=args.max_concurrent_games,
        poll_interval=args.poll_interval,
        max_backoff=args.max_backoff,
        log_file=log_file,
        replay_dir=None if args.replay_dir.lower() == "none" else args.replay_dir,
        verbosity=verbosity,
        invite=args.invite,
        invite_games=args.invite_games,
    )
    return Connector(options).run()
