"""``serve``: run a local RBC server speaking the official HTTP API (optionally a ladder).

Passwords never go on the command line (other users can read it in ``ps``): ``--add-user NAME``
takes the password from ``--password-env VAR``, from ``--password-file FILE`` (``NAME:PASSWORD``
lines) or from a prompt.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path

from rbc_bot.server.errors import ApiError, fail
from rbc_bot.server.names import check_username
from rbc_bot.server.runner import Middleware, ServerOptions
from rbc_bot.server.settings import GameSettings


class UsageError(ValueError):
    """A command-line mistake: exit 2 with one line."""


def _optional_float(text: str) -> float | None:
    return None if text.lower() in ("none", "inf", "unlimited") else float(text)


def _optional_int(text: str) -> int | None:
    return None if text.lower() in ("none", "unlimited") else int(text)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.epilog = "Errors go to stderr as 'rbc-bot: error: ...'; exit 2 for usage errors, 1 at run time."
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    parser.add_argument(
        "--port", type=int, default=8000, help="port to listen on, 1-65535 (0 = any free port)"
    )
    parser.add_argument(
        "--db", default="rbc_server.sqlite3", help="SQLite database file (created 0600 if missing)"
    )
    parser.add_argument(
        "--seconds",
        type=_optional_float,
        default=900.0,
        help="clock per player in seconds ('none' = unlimited)",
    )
    parser.add_argument(
        "--increment", type=_optional_float, default=5.0, help="seconds added after each turn"
    )
    parser.add_argument(
        "--move-limit",
        type=_optional_int,
        default=100,
        help="plies without pawn move or capture before a draw ('none' = no limit)",
    )
    parser.add_argument(
        "--full-turn-limit",
        type=_optional_int,
        default=None,
        help="full turns before a draw ('none' = no limit)",
    )
    parser.add_argument(
        "--ready-timeout",
        type=float,
        default=300.0,
        help="seconds for both players to be ready; an absent player who accepted then loses on time",
    )
    parser.add_argument(
        "--add-user",
        action="append",
        default=[],
        metavar="NAME",
        help="create (or reset the password of) a user at start-up; repeatable",
    )
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--password-env", metavar="VAR", help="with one --add-user: the password is in $VAR")
    source.add_argument(
        "--password-file", metavar="FILE", help="NAME:PASSWORD lines, one for each --add-user NAME"
    )
    parser.add_argument(
        "--ladder", action="store_true", help="pair connected ranked bots and rate them (Elo)"
    )
    parser.add_argument("--ladder-interval", type=float, default=5.0, help="seconds between ladder pairings")
    parser.add_argument("--threads", type=int, default=16, help="waitress worker threads")


def user_passwords(args: argparse.Namespace) -> tuple[tuple[str, str], ...]:
    """(name, password) for each --add-user, from the chosen source; UsageError if there is none."""
    names: list[str] = list(args.add_user)
    if any(":" in name for name in names):
        raise UsageError(
            "--add-user takes a NAME only: give passwords with --password-env, --password-file or the prompt"
        )
    for name in names:
        try:
            check_username(name)
        except ApiError as exc:
            raise UsageError(f"--add-user: {exc}") from None
    if not names:
        if args.password_env or args.password_file:
            raise UsageError("--password-env/--password-file need --add-user NAME")
        return ()
    if args.password_env:
        if len(names) > 1:
            raise UsageError("--password-env holds one password: use --password-file for several users")
        password = os.environ.get(args.password_env)
        if not password:
            raise UsageError(f"environment variable {args.password_env} is not set or empty")
        return ((names[0], password),)
    if args.password_file:
        return _from_file(Path(args.password_file), names)
    if not sys.stdin.isatty():
        raise UsageError("no terminal to ask for passwords: use --password-env VAR or --password-file FILE")
    try:
        return tuple((name, getpass.getpass(f"Password for {name}: ")) for name in names)
    except EOFError:
        raise UsageError("no password given") from None


def _from_file(path: Path, names: list[str]) -> tuple[tuple[str, str], ...]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read --password-file {str(path)!r}: {exc}") from None
    found = dict(line.partition(":")[::2] for line in lines if ":" in line)
    missing = [name for name in names if not found.get(name)]
    if missing:
        raise UsageError(f"--password-file {str(path)!r} has no NAME:PASSWORD line for {', '.join(missing)}")
    return tuple((name, found[name]) for name in names)


def options_from_args(args: argparse.Namespace) -> ServerOptions:
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be from 1 to 65535 (or 0 for any free port), got {args.port}")
    for flag, value in (("--threads", args.threads), ("--ladder-interval", args.ladder_interval)):
        if value <= 0:
            raise UsageError(f"{flag} must be positive, got {value}")
    if args.ready_timeout <= 0 or (args.seconds is not None and args.seconds <= 0):
        raise UsageError("--seconds and --ready-timeout must be positive")
    if args.increment is not None and args.increment < 0:
        raise UsageError(f"--increment must not be negative, got {args.increment}")
    settings = GameSettings(
        seconds=args.seconds,
        increment=args.increment,
        reversible_moves_limit=args.move_limit,
        full_turn_limit=args.full_turn_limit,
        ready_timeout=args.ready_timeout,
    )
    return ServerOptions(
        host=args.host,
        port=args.port,
        db=args.db,
        settings=settings,
        ladder=args.ladder,
        ladder_interval=args.ladder_interval,
        threads=args.threads,
        users=user_passwords(args),
    )


def run(args: argparse.Namespace, middleware: Middleware | None = None) -> int:
    """Run the server; ``middleware`` wraps the WSGI app (never set from the command line)."""
    from rbc_bot.server.runner import ServerStartError, serve

    try:
        options = options_from_args(args)
    except UsageError as exc:
        return fail(str(exc), 2)
    try:
        return serve(options, middleware=middleware)
    except ServerStartError as exc:
        return fail(str(exc), 1)
