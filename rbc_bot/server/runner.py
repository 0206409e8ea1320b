"""Build the server from options and run it under waitress until SIGINT/SIGTERM.

On the way out every unfinished game is ended and recorded (aborted, moves kept) before the
database closes; on the way in, games a killed run left unfinished are recorded the same way.
What can go wrong at start-up (a database that is not one, a port in use, an address this
machine does not have) is a ``ServerStartError`` with a one-line message, not a traceback.
"""

from __future__ import annotations

import logging
import signal
import socket
import sqlite3
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from types import FrameType
from typing import Any, TextIO

from waitress.server import create_server

from rbc_bot.server.app import MAX_BODY, create_app
from rbc_bot.server.errors import ApiError
from rbc_bot.server.ladder import Ladder
from rbc_bot.server.service import GameService
from rbc_bot.server.settings import GameSettings
from rbc_bot.server.store import Store

logger = logging.getLogger(__name__)

# A WSGI app wrapped around ours; the command line never sets one (tests use it to inject faults).
Middleware = Callable[[Any], Any]


class ServerStartError(Exception):
    """The server cannot start; the message is one line saying why."""


@dataclass(frozen=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "rbc_server.sqlite3"
    settings: GameSettings = field(default_factory=GameSettings)
    ladder: bool = False
    ladder_interval: float = 5.0
    threads: int = 16
    users: tuple[tuple[str, str], ...] = ()


def open_store(options: ServerOptions) -> Store:
    try:
        store = Store(options.db)
    except (sqlite3.Error, OSError) as exc:
        raise ServerStartError(f"cannot use {options.db!r} as the server database: {exc}") from None
    try:
        for name, password in options.users:
            store.add_user(name, password, replace=True)
            logger.info("user %s added/updated", name)
    except (ValueError, ApiError) as exc:
        store.close()
        raise ServerStartError(f"cannot add user: {exc}") from None
    return store


def listen(app: Any, options: ServerOptions) -> Any:
    try:
        return create_server(
            app,
            host=options.host,
            port=options.port,
            threads=options.threads,
            ident="rbc_bot",
            max_request_body_size=4 * MAX_BODY,
        )
    except (OSError, socket.gaierror) as exc:
        reason = exc.strerror or str(exc)
        raise ServerStartError(f"cannot listen on {options.host}:{options.port}: {reason}") from None


def serve(options: ServerOptions, out: TextIO = sys.stdout, middleware: Middleware | None = None) -> int:
    store = open_store(options)
    try:
        service = GameService(store, options.settings)
        aborted = service.recover()
        ladder = Ladder(service, interval=options.ladder_interval) if options.ladder else None
        app = create_app(store, service, ladder)
        server = listen(app if middleware is None else middleware(app), options)
    except BaseException:
        store.close()
        raise
    if aborted:
        print(
            f"recorded {aborted} game(s) left unfinished by the previous run as aborted", file=out, flush=True
        )
    url = f"http://{options.host}:{server.effective_port}"
    stopping = threading.Event()

    def stop(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    # waitress runs in a thread; the main thread only waits, so a signal never interrupts a lock holder.
    previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    thread = threading.Thread(target=server.run, name="waitress", daemon=True)
    thread.start()
    service.start_sweeper()
    if ladder is not None:
        ladder.start()
    ladder_note = " with ladder" if ladder else ""
    print(f"RBC server listening on {url} (db {options.db}){ladder_note}", file=out, flush=True)
    try:
        while not stopping.wait(0.5) and thread.is_alive():
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _shut_down(server, thread, service, ladder, store)
        print("RBC server stopped; unfinished games recorded as aborted", file=out, flush=True)
    return 0


def _shut_down(
    server: Any, thread: threading.Thread, service: GameService, ladder: Ladder | None, store: Store
) -> None:
    if ladder is not None:
        ladder.stop()
    service.shutdown()  # record unfinished games while the server still answers
    try:
        server.close()
    except Exception:  # the loop thread may race us on the sockets; we are exiting anyway
        logger.debug("error while closing the listener", exc_info=True)
    thread.join(2)
    store.close()
