"""``serve``: run a local RBC server speaking the official HTTP API (optionally a ladder)."""

from __future__ import annotations

import argparse
import os

from rbc_bot.server.games import GameSettings


def _optional_float(text: str) -> float | None:
    return None if text.lower() in ("none", "inf", "unlimited") else float(text)


def _optional_int(text: str) -> int | None:
    return None if text.lower() in ("none", "unlimited") else int(text)


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="interface to listen on")
    parser.add_argument("--port", type=int, default=8000, help="port to listen on (0 = any free port)")
    parser.add_argument(
        "--db", default="rbc_server.sqlite3", help="SQLite database file (created if missing)"
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
        help="seconds for both players to be ready; an absent player then loses on time",
    )
    parser.add_argument(
        "--add-user",
        action="append",
        default=[],
        metavar="NAME:PASSWORD",
        help="create (or reset the password of) a user at start-up; repeatable",
    )
    parser.add_argument(
        "--ladder", action="store_true", help="pair connected ranked bots and rate them (Elo)"
    )
    parser.add_argument("--ladder-interval", type=float, default=5.0, help="seconds between ladder pairings")
    parser.add_argument("--threads", type=int, default=16, help="waitress worker threads")
    parser.add_argument(
        "--fail-every",
        type=int,
        default=int(os.environ.get("RBC_SERVER_FAIL_EVERY", "0")),
        help="testing: answer every N-th request with 503 (env RBC_SERVER_FAIL_EVERY)",
    )


def run(args: argparse.Namespace) -> int:
    from rbc_bot.server.runner import ServerOptions, parse_user, serve

    try:
        users = tuple(parse_user(u) for u in args.add_user)
    except ValueError as exc:
        print(f"serve: {exc}")
        return 2
    settings = GameSettings(
        seconds=args.seconds,
        increment=args.increment,
        reversible_moves_limit=args.move_limit,
        full_turn_limit=args.full_turn_limit,
        ready_timeout=args.ready_timeout,
    )
    options = ServerOptions(
        host=args.host,
        port=args.port,
        db=args.db,
        settings=settings,
        ladder=args.ladder,
        ladder_interval=args.ladder_interval,
        threads=args.threads,
        fail_every=args.fail_every,
        users=users,
    )
    return serve(options)
