"""HTTP client for an RBC server: retries with capped exponential backoff and jitter, clear auth errors.

The stock client retries every 0.5 s forever and has no request timeout, so a hung connection
stalls a game while its clock runs. ``ApiClient`` sets a timeout, backs off on connection errors,
5xx and 429, raises ``PermanentError`` at once for what no retry can fix (a malformed URL, 401 as
``AuthError``), ``ServerError`` (a ValueError, like the stock client's) on any other 4xx, and
``Stopped`` instead of retrying once its stop event is set. ``ResilientRemoteGame`` is
reconchess's RemoteGame on top of it, so the stock ``play_turn`` drives our games unchanged.
"""

from __future__ import annotations

import json
import logging
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import requests
from reconchess import GameHistory, Player, RemoteGame, WinReason
from reconchess.play import play_turn
from reconchess.utilities import ChessJSONDecoder, ChessJSONEncoder

logger = logging.getLogger(__name__)


class PermanentError(Exception):
    """A request no retry can fix (a malformed server URL, bad credentials)."""


class AuthError(PermanentError):
    """HTTP 401: wrong username or password. Retrying cannot help."""


class Stopped(Exception):
    """A request failed after the client was told to stop, so it was not retried."""


class ServerError(ValueError):
    """A 4xx other than 401: the server refused the request; ``status`` and the server's message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message


class TransientError(Exception):
    """Connection error or 5xx when the caller asked for no retries."""


@dataclass
class Backoff:
    """Delays base, 2*base, 4*base ... capped at ``cap``; each drawn from [d/2, d] so clients spread out."""

    base: float = 0.5
    cap: float = 30.0
    rng: random.Random = field(default_factory=random.Random)
    attempt: int = 0

    def next_delay(self) -> float:
        ceiling = min(self.cap, self.base * 2.0**self.attempt)
        self.attempt += 1
        return self.rng.uniform(ceiling / 2.0, ceiling)

    def reset(self) -> None:
        self.attempt = 0


# requests' errors that mean the URL itself is unusable: retrying cannot help.
BAD_URL = (
    requests.exceptions.MissingSchema,
    requests.exceptions.InvalidSchema,
    requests.exceptions.InvalidURL,
    requests.exceptions.URLRequired,
)


def _retry_after(response: requests.Response) -> float | None:
    try:
        return max(0.0, float(response.headers.get("Retry-After", "")))
    except ValueError:
        return None


def _message(response: requests.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text.strip()[:300]
    if isinstance(body, dict) and "error" in body:
        return str(body["error"])
    return response.text.strip()[:300]


class ApiClient:
    """One ``requests.Session`` with HTTP Basic auth against ``server_url``."""

    def __init__(
        self,
        server_url: str,
        auth: tuple[str, str],
        max_backoff: float = 30.0,
        timeout: float = 30.0,
        stop: threading.Event | None = None,
    ) -> None:
        self.server_url = server_url.rstrip("/")
        self.session = requests.Session()
        self.session.auth = auth
        self.username = auth[0]
        self.max_backoff = max_backoff
        self.timeout = timeout
        self.stop = stop  # once set, a failed request raises Stopped instead of being retried

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        retry: bool = True,
        max_attempts: int | None = None,
        decoder: type[json.JSONDecoder] = ChessJSONDecoder,
    ) -> Any:
        """Send and decode; retry connection errors, 5xx and 429 (unless ``retry`` is False)."""
        data = None if body is None else json.dumps(body, cls=ChessJSONEncoder)
        backoff = Backoff(cap=self.max_backoff)
        attempts = 0
        while True:
            attempts += 1
            answer, problem, wait = self._attempt(method, path, data, decoder)
            if problem is None:
                return answer
            if self.stop is not None and self.stop.is_set():
                raise Stopped(f"{method} {path}: {problem} (stopping, not retried)")
            if not retry or (max_attempts is not None and attempts >= max_attempts):
                raise TransientError(f"{method} {path}: {problem}")
            delay = max(backoff.next_delay(), min(wait or 0.0, self.max_backoff))
            log = logger.warning if attempts in (1, 5) or attempts % 20 == 0 else logger.debug
            log("%s %s: %s; retry %d in %.1f s", method, path, problem, attempts, delay)
            if self.stop is not None:
                if self.stop.wait(delay):
                    raise Stopped(f"{method} {path}: {problem} (stopping, not retried)")
            else:
                time.sleep(delay)

    def _attempt(
        self, method: str, path: str, data: str | None, decoder: type[json.JSONDecoder]
    ) -> tuple[Any, str | None, float | None]:
        """One try: (decoded answer, None, None), or (None, what went wrong, Retry-After) to retry."""
        headers = {} if data is None else {"Content-Type": "application/json"}
        try:
            response = self.session.request(
                method, f"{self.server_url}{path}", data=data, headers=headers, timeout=self.timeout
            )
        except BAD_URL as exc:
            raise PermanentError(f"bad server URL {self.server_url!r}: {exc}") from None
        except requests.RequestException as exc:
            return None, f"cannot reach {self.server_url}: {type(exc).__name__}", None
        if response.status_code == 200:
            return json.loads(response.text or "{}", cls=decoder), None, None
        if response.status_code == 401:
            raise AuthError(
                f"authentication failed for user {self.username!r} at {self.server_url}"
                f" (HTTP 401: {_message(response)})"
            )
        if response.status_code == 429:
            return None, f"HTTP 429 ({_message(response)})", _retry_after(response)
        if response.status_code < 500:
            raise ServerError(response.status_code, _message(response))
        return None, f"server error HTTP {response.status_code} ({_message(response)})", None

    def get(self, path: str, **kwargs: Any) -> Any:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, body: Any = None, **kwargs: Any) -> Any:
        return self.request("POST", path, body, **kwargs)

    # ---- lobby -----------------------------------------------------------------------------------
    def server_version(self, **kwargs: Any) -> str:
        return str(self.get("/api/version", **kwargs)["version"])

    def invitations(self, **kwargs: Any) -> list[int]:
        return [int(i) for i in self.get("/api/invitations/", **kwargs)["invitations"]]

    def accept(self, invitation_id: int) -> int:
        return int(self.post(f"/api/invitations/{invitation_id}")["game_id"])

    def finish(self, invitation_id: int) -> None:
        self.post(f"/api/invitations/{invitation_id}/finish")

    def error_resign(self, game_id: int) -> None:
        self.post(f"/api/games/{game_id}/error_resign")

    def set_max_games(self, max_games: int, **kwargs: Any) -> None:
        self.post("/api/users/me/max_games", {"max_games": max_games}, **kwargs)

    def set_ranked(self, ranked: bool, **kwargs: Any) -> None:
        self.post("/api/users/me/ranked", {"ranked": ranked}, **kwargs)

    def bot_version(self) -> int:
        return int(self.get("/api/users/me/version")["version"])

    def increment_version(self) -> int:
        return int(self.post("/api/users/me/version")["version"])


class ResilientRemoteGame(RemoteGame):
    """reconchess's RemoteGame, with our retry policy and request timeout underneath."""

    def __init__(
        self, server_url: str, game_id: int, auth: tuple[str, str], max_backoff: float = 30.0
    ) -> None:
        super().__init__(server_url, game_id, auth)
        self.client = ApiClient(server_url, auth, max_backoff=max_backoff)
        self.prefix = f"/api/games/{game_id}"

    def _get(self, endpoint: str, decoder_cls: type[json.JSONDecoder] = ChessJSONDecoder) -> Any:
        return self.client.get(f"{self.prefix}/{endpoint}", decoder=decoder_cls)

    def _post(self, endpoint: str, obj: Any) -> Any:
        return self.client.post(f"{self.prefix}/{endpoint}", obj)


def play_remote(
    server_url: str, game_id: int, auth: tuple[str, str], player: Player, max_backoff: float = 30.0
) -> tuple[bool | None, WinReason | None, GameHistory]:
    """``reconchess.play_remote_game`` with ResilientRemoteGame: same calls, same order."""
    game = ResilientRemoteGame(server_url, game_id, auth, max_backoff)
    player.handle_game_start(game.get_player_color(), game.get_starting_board(), game.get_opponent_name())
    game.start()
    while not game.is_over():
        play_turn(game, player, end_turn_last=False)
    winner_color = game.get_winner_color()
    win_reason = game.get_win_reason()
    history = game.get_game_history()
    player.handle_game_end(winner_color, win_reason, history)
    return winner_color, win_reason, history
