"""``python tests/faulty_serve.py EVERY [-v] serve ARGS...``: the real ``serve`` command, with every
EVERY-th request answered 503 before it reaches the app.

Fault injection lives here, outside the package, so a production server cannot switch it on: the
``serve`` command has no flag for it; only this script passes a middleware to ``commands.serve.run``.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's rbc_bot, not an installed one

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


class FaultInjector:
    """WSGI wrapper: every ``every``-th request gets a 503 without touching the app's state."""

    def __init__(self, app: WsgiApp, every: int) -> None:
        self.app = app
        self.every = every
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        with self._lock:
            fail = next(self._count) % self.every == 0
        if not fail:
            return self.app(environ, start_response)
        start_response("503 Service Unavailable", [("Content-Type", "application/json")])
        return [b'{"error": "injected fault (faulty_serve.py)"}']


def main(argv: list[str]) -> int:
    from rbc_bot.cli import build_parser
    from rbc_bot.commands import serve
    from rbc_bot.logs import configure_logging

    every, rest = int(argv[0]), argv[1:]
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    serve.configure(sub.choices["serve"])
    args = parser.parse_args(rest)
    configure_logging(args.verbose)
    return serve.run(args, middleware=lambda app: FaultInjector(app, every))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
