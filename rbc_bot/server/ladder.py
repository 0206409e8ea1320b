"""A local ladder: pair connected ranked bots, rate the results with Elo, show a leaderboard.

Like the official server, ranked games reach the bots as invitations (one per player), so any
rc-connect-compatible client takes part without knowing a ladder exists.
"""

from __future__ import annotations

import html
import logging
import random
import threading
from typing import Any

from rbc_bot.server.games import ServerGame
from rbc_bot.server.service import GameService
from rbc_bot.server.store import Store

logger = logging.getLogger(__name__)

INITIAL_RATING = 1500.0


def expected_score(rating: float, opponent: float) -> float:
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def elo_update(white: float, black: float, white_score: float, k: float) -> tuple[float, float]:
    """New (white, black) ratings after one game; ``white_score`` is 1, 0.5 or 0."""
    delta = k * (white_score - expected_score(white, black))
    return white + delta, black - delta


class Ladder:
    """Pairs ranked users seen within ``active_window`` seconds, each up to its max_games."""

    def __init__(
        self,
        service: GameService,
        active_window: float = 20.0,
        interval: float = 5.0,
        k: float = 32.0,
        seed: int | None = None,
    ) -> None:
        self.service = service
        self.store: Store = service.store
        self.active_window = active_window
        self.interval = interval
        self.k = k
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        service.add_finish_hook(self.record)

    def candidates(self) -> list[str]:
        active = set(self.store.active_usernames(self.active_window))
        return [
            u.username
            for u in self.store.all_users()
            if u.ranked and u.username in active and self.store.busy_count(u.username) < u.max_games
        ]

    def pair_once(self) -> list[int]:
        """One pairing round: every free candidate gets at most one new game. Returns game ids."""
        with self._lock:
            players = self.candidates()
            self._rng.shuffle(players)
            games = []
            for white, black in zip(players[0::2], players[1::2], strict=False):
                game_id, _ = self.service.create_game(white, black, [white, black], ranked=True)
                games.append(game_id)
            return games

    def record(self, game: ServerGame) -> None:
        """Finish hook: rate a finished ranked game (aborted games are not rated)."""
        row = self.store.get_game(game.id)
        if row is None or not row["ranked"] or game.status != "finished":
            return
        with self._lock:
            white = self.store.get_user(row["white"])
            black = self.store.get_user(row["black"])
            if white is None or black is None:
                return
            score = 0.5 if game.winner_color is None else (1.0 if game.winner_color else 0.0)
            new_white, new_black = elo_update(white.rating, black.rating, score, self.k)
            self.store.set_user_field(white.username, "rating", new_white)
            self.store.set_user_field(black.username, "rating", new_black)
        logger.info(
            "ladder: game %d rated: %s %.0f -> %.0f, %s %.0f -> %.0f",
            game.id,
            white.username,
            white.rating,
            new_white,
            black.username,
            black.rating,
            new_black,
        )

    def start(self) -> None:
        def loop() -> None:
            while not self._stop.wait(self.interval):
                try:
                    self.pair_once()
                except Exception:
                    logger.exception("ladder pairing failed")

        self._thread = threading.Thread(target=loop, name="ladder", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()


def leaderboard(store: Store) -> list[dict[str, Any]]:
    """Every user with a ranked game or ranked now, best rating first, with W/L/D counts."""
    stats: dict[str, dict[str, int]] = {}
    for row in store.list_games(limit=1_000_000):
        if not row["ranked"] or row["status"] != "finished":
            continue
        for name, color in ((row["white"], 1), (row["black"], 0)):
            entry = stats.setdefault(name, {"games": 0, "wins": 0, "losses": 0, "draws": 0})
            entry["games"] += 1
            if row["winner_color"] is None:
                entry["draws"] += 1
            elif row["winner_color"] == color:
                entry["wins"] += 1
            else:
                entry["losses"] += 1
    board: list[dict[str, Any]] = []
    for user in store.all_users():
        if not user.ranked and user.username not in stats:
            continue
        entry = stats.get(user.username, {"games": 0, "wins": 0, "losses": 0, "draws": 0})
        line: dict[str, Any] = {"username": user.username, "version": user.version}
        line.update(rating=round(user.rating, 1), **entry)
        board.append(line)
    board.sort(key=lambda e: (-e["rating"], e["username"]))
    for rank, entry in enumerate(board, 1):
        entry["rank"] = rank
    return board


def leaderboard_html(store: Store, recent: int = 20) -> str:
    rows = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(e[k]))}</td>"
            for k in ("rank", "username", "version", "rating", "games", "wins", "losses", "draws")
        )
        + "</tr>"
        for e in leaderboard(store)
    )
    games = "".join(
        "<tr>"
        + "".join(
            f"<td>{html.escape(str(v))}</td>"
            for v in (
                g["id"],
                g["white"],
                g["black"],
                "ranked" if g["ranked"] else "",
                g["status"],
                {1: "white", 0: "black", None: "-"}[g["winner_color"]],
                g["win_reason"] or "",
                g["note"],
            )
        )
        + "</tr>"
        for g in store.list_games(limit=recent)
    )
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>RBC local ladder</title>
<meta http-equiv="refresh" content="10">
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:.25em .6em;text-align:left}}</style></head>
<body><h1>RBC local ladder</h1>
<table><tr><th>#</th><th>bot</th><th>version</th><th>Elo</th><th>games</th><th>won</th><th>lost</th>
<th>drawn</th></tr>{rows}</table>
<h2>Recent games</h2>
<table><tr><th>id</th><th>white</th><th>black</th><th></th><th>status</th><th>winner</th><th>reason</th>
<th>note</th></tr>{games}</table>
<p>JSON: <a href="/api/leaderboard">/api/leaderboard</a></p></body></html>
"""
