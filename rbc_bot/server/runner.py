"""Build the server from options and run it under waitress until SIGINT/SIGTERM.

On the way out every unfinished game is ended and recorded (aborted, moves kept) before the
database closes; on the way in, games a killed run left unfinished are recorded the same way.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from dataclasses import dataclass, field
from types import FrameType
from typing import TextIO

from waitress.server import create_server

from rbc_bot.server.app import create_app
from rbc_bot.server.games import GameSettings
from rbc_bot.server.ladder import Ladder
from rbc_bot.server.service import GameService
from rbc_bot.server.store import Store

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ServerOptions:
    host: str = "127.0.0.1"
    port: int = 8000
    db: str = "rbc_server.sqlite3"
    settings: GameSettings = field(default_factory=GameSettings)
    ladder: bool = False
    ladder_interval: float = 5.0
    threads: int = 16
    fail_every: int = 0
    users: tuple[tuple[str, str], ...] = ()


def parse_user(text: str) -> tuple[str, str]:
    """``NAME:PASSWORD`` -> (name, password); the password may itself contain ':'."""
    name, sep, password = text.partition(":")
    if not sep or not name or not password:
        raise ValueError(f"--add-user expects NAME:PASSWORD, got {text!r}")
    return name, password


def serve(options: ServerOptions, out: TextIO = sys.stdout) -> int:
    store = Store(options.db)
    for name, password in options.users:
        store.add_user(name, password, replace=True)
        logger.info("user %s added/updated", name)
    service = GameService(store, options.settings)
    aborted = service.recover()
    if aborted:
        print(
            f"recorded {aborted} game(s) left unfinished by the previous run as aborted", file=out, flush=True
        )
    ladder = Ladder(service, interval=options.ladder_interval) if options.ladder else None
    app = create_app(store, service, ladder, fail_every=options.fail_every)
    server = create_server(
        app, host=options.host, port=options.port, threads=options.threads, ident="rbc_bot"
    )
    port = server.effective_port
    url = f"http://{options.host}:{port}"

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
    print(
        f"RBC server listening on {url} (db {options.db}){' with ladder' if ladder else ''}",
        file=out,
        flush=True,
    )
    try:
        while not stopping.wait(0.5) and thread.is_alive():
            pass
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if ladder is not None:
            ladder.stop()
        service.shutdown()  # record unfinished games while the server still answers
        try:
            server.close()
        except Exception:  # the loop thread may race us on the sockets; we are exiting anyway
            logger.debug("error while closing the listener", exc_info=True)
        thread.join(2)
        store.close()
        print("RBC server stopped; unfinished games recorded as aborted", file=out, flush=True)
    return 0
