"""The server's state behind the HTTP layer: live games, recovery at start-up, shutdown, sweeping.

Kept apart from the Flask routes so tests and the ladder can drive it directly, and so the rules
for "nothing is lost" (abort and record unfinished games at start and stop) live in one place.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

import chess

from rbc_bot.server.errors import quote
from rbc_bot.server.games import GameError, ServerGame
from rbc_bot.server.settings import GameSettings
from rbc_bot.server.store import Store, StoreError

logger = logging.getLogger(__name__)

FINISHED_GAME_MEMORY = 120.0  # keep finished games in memory this long, for the clients' last requests
MAX_OPEN_INVITATIONS = 8  # unaccepted invitations one user may have out at once


class GameService:
    """Creates games and invitations, finds games by id, and ends unfinished ones on stop/start."""

    def __init__(self, store: Store, settings: GameSettings) -> None:
        self.store = store
        self.settings = settings
        self._games: dict[int, ServerGame] = {}
        self._lock = threading.Lock()
        self._finish_hooks: list[Callable[[ServerGame], None]] = []
        self._stop = threading.Event()
        self._sweeper: threading.Thread | None = None

    def add_finish_hook(self, hook: Callable[[ServerGame], None]) -> None:
        self._finish_hooks.append(hook)

    def _on_finish(self, game: ServerGame) -> None:
        for hook in self._finish_hooks:
            hook(game)

    def recover(self) -> int:
        """End and record every game the previous run left unfinished (it cannot be resumed)."""
        rows = self.store.unfinished_games()
        for row in rows:
            self.store.finish_game(
                int(row["id"]), "aborted", None, None, None, "server stopped while the game was unfinished"
            )
            logger.warning("game %d (%s vs %s) was unfinished at start-up: recorded as aborted", *_who(row))
        return len(rows)

    def create_game(
        self, white: str, black: str, recipients: list[str], ranked: bool = False, inviter: str = ""
    ) -> tuple[int, list[int]]:
        game_id, invitations = self.store.create_game(
            white, black, recipients, self.settings.seconds, self.settings.increment, ranked, inviter
        )
        game = ServerGame(game_id, white, black, self.settings, self.store, self._on_finish)
        with self._lock:
            self._games[game_id] = game
        logger.info("game %d created: %s (white) vs %s (black), ranked=%s", game_id, white, black, ranked)
        return game_id, invitations

    def invite(self, inviter: str, opponent: str, inviter_color: bool) -> int:
        """A game against ``opponent`` (found by name key), who gets an invitation to it."""
        user = self.store.get_user(opponent)
        if user is None:
            raise StoreError(f"unknown opponent {quote(opponent)}", 404)
        if user.username == inviter:
            raise StoreError("cannot invite yourself")
        if self.store.open_invitations_sent(inviter) >= MAX_OPEN_INVITATIONS:
            raise StoreError(
                f"{inviter} already has {MAX_OPEN_INVITATIONS} invitations nobody has accepted yet", 429
            )
        name = user.username
        white, black = (inviter, name) if inviter_color == chess.WHITE else (name, inviter)
        game_id, _ = self.create_game(white, black, [name], inviter=inviter)
        return game_id

    def get(self, game_id: int) -> ServerGame:
        with self._lock:
            game = self._games.get(game_id)
        if game is not None:
            return game
        row = self.store.get_game(game_id)
        if row is None:
            raise GameError(404, f"game {game_id} does not exist")
        if row["status"] in ("pending", "playing"):
            raise GameError(404, f"game {game_id} is not live on this server")
        return ServerGame.from_record(row, self.store)

    def live_games(self) -> list[ServerGame]:
        with self._lock:
            return list(self._games.values())

    def sweep(self) -> None:
        now = time.time()
        for game in self.live_games():
            game.sweep(now)
            if game.finished and now - game.finished_at > FINISHED_GAME_MEMORY:
                with self._lock:
                    self._games.pop(game.id, None)

    def start_sweeper(self, interval: float = 1.0) -> None:
        def loop() -> None:
            while not self._stop.wait(interval):
                try:
                    self.sweep()
                except Exception:
                    logger.exception("sweep failed")

        self._sweeper = threading.Thread(target=loop, name="game-sweeper", daemon=True)
        self._sweeper.start()

    def shutdown(self) -> None:
        """Stop sweeping and record every unfinished game as aborted, with its moves so far."""
        self._stop.set()
        for game in self.live_games():
            if not game.finished:
                game.abort("server shut down while the game was in progress")


def _who(row: object) -> tuple[int, str, str]:
    return int(row["id"]), row["white"], row["black"]  # type: ignore[index]
