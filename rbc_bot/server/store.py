"""SQLite persistence for the local server: users, invitations, games and their histories.

One connection shared by the request threads behind a lock: the server does a handful of small
writes per ply, far below what SQLite in WAL mode sustains, and a single writer keeps it simple.
The file holds password hashes, so it is created readable by its owner only. Users are found by
their name key (see ``names``), so look-alike names cannot coexist.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rbc_bot.server.errors import ApiError
from rbc_bot.server.names import check_username, name_key
from rbc_bot.server.passwords import PasswordChecker, hash_password

logger = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL UNIQUE,
    name_key TEXT,
    password_hash BLOB NOT NULL,
    salt BLOB NOT NULL,
    email TEXT NOT NULL DEFAULT '',
    affiliation TEXT NOT NULL DEFAULT '',
    max_games INTEGER NOT NULL DEFAULT 4,
    ranked INTEGER NOT NULL DEFAULT 0,
    version INTEGER NOT NULL DEFAULT 0,
    rating REAL NOT NULL DEFAULT 1500,
    last_seen REAL NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    white TEXT NOT NULL,
    black TEXT NOT NULL,
    status TEXT NOT NULL,              -- pending | playing | finished | aborted
    ranked INTEGER NOT NULL DEFAULT 0,
    white_version INTEGER NOT NULL DEFAULT 0,
    black_version INTEGER NOT NULL DEFAULT 0,
    seconds REAL,
    increment REAL,
    winner_color INTEGER,              -- 1 white, 0 black, NULL draw / no result
    win_reason TEXT,                   -- WinReason name or NULL
    note TEXT NOT NULL DEFAULT '',     -- server remark, e.g. why a game was aborted
    history TEXT,                      -- GameHistory JSON (stock format); partial while playing
    created REAL NOT NULL,
    finished REAL
);
CREATE TABLE IF NOT EXISTS invitations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id INTEGER NOT NULL REFERENCES games(id),
    recipient TEXT NOT NULL,
    inviter TEXT NOT NULL DEFAULT '',
    accepted INTEGER NOT NULL DEFAULT 0,
    finished INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS invitations_open ON invitations(recipient, accepted);
"""
# Columns added after the first release; databases made before them get them at start-up.
MIGRATIONS = {
    ("users", "name_key"): "ALTER TABLE users ADD COLUMN name_key TEXT",
    ("invitations", "inviter"): "ALTER TABLE invitations ADD COLUMN inviter TEXT NOT NULL DEFAULT ''",
}
MAX_SQL_INT = 2**63 - 1


class StoreError(ApiError, ValueError):
    """A request the data cannot satisfy (name taken, unknown user); the message says which."""


@dataclass(frozen=True)
class User:
    id: int
    username: str
    max_games: int
    ranked: bool
    version: int
    rating: float
    last_seen: float


def _create_private(path: Path) -> None:
    """Create the database file with mode 0600 (SQLite gives its -wal/-shm files the same mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with suppress(FileExistsError):
        os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))


class Store:
    """All SQL lives here; callers get plain values and dataclasses."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            _create_private(Path(self.path))
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._conn.row_factory = sqlite3.Row
        self._lock = threading.RLock()
        self.passwords = PasswordChecker()
        try:
            with self._lock:
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._conn.executescript(SCHEMA)
                self._migrate()
        except BaseException:
            self._conn.close()
            raise

    def _migrate(self) -> None:
        for (table, column), sql in MIGRATIONS.items():
            columns = {r["name"] for r in self._conn.execute(f"PRAGMA table_info({table})")}
            if column not in columns:
                self._conn.execute(sql)
        for row in self._conn.execute("SELECT id, username FROM users WHERE name_key IS NULL").fetchall():
            key = name_key(row["username"]) or row["username"]
            self._conn.execute("UPDATE users SET name_key = ? WHERE id = ?", (key, row["id"]))
        try:
            self._conn.execute("CREATE UNIQUE INDEX IF NOT EXISTS users_name_key ON users(name_key)")
        except sqlite3.IntegrityError:
            logger.warning("%s holds users whose names differ only in case or form", self.path)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, params: tuple[Any, ...] = ()) -> list[sqlite3.Row]:
        with self._lock:
            return list(self._conn.execute(sql, params).fetchall())

    # ---- users -------------------------------------------------------------------------------
    def add_user(
        self, username: str, password: str, email: str = "", affiliation: str = "", replace: bool = False
    ) -> User:
        """Create a user (or, with ``replace``, reset an existing user's password)."""
        username = check_username(username)
        key = name_key(username)
        if not isinstance(password, str) or not password:
            raise StoreError("password must be a non-empty string")
        salt = os.urandom(16)
        digest = hash_password(password, salt)
        with self._tx() as conn:
            row = conn.execute("SELECT username FROM users WHERE name_key = ?", (key,)).fetchone()
            if row is not None and not replace:
                raise StoreError(f"username {username!r} is already taken", 409)
            if row is None:
                conn.execute(
                    "INSERT INTO users (username, name_key, password_hash, salt, email, affiliation, created)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (username, key, digest, salt, email, affiliation, time.time()),
                )
            else:
                conn.execute(
                    "UPDATE users SET password_hash = ?, salt = ? WHERE name_key = ?", (digest, salt, key)
                )
        assert key is not None
        self.passwords.forget(key)
        user = self.get_user(username)
        assert user is not None
        return user

    def login(self, username: str, password: str) -> str | None:
        """The stored username if the password is right, else None, at the same cost either way."""
        key = name_key(username)
        rows = (
            []
            if key is None
            else self._query("SELECT username, password_hash, salt FROM users WHERE name_key = ?", (key,))
        )
        record = (rows[0]["password_hash"], rows[0]["salt"]) if rows else None
        ok = self.passwords.verify(key or "", record, password)
        return str(rows[0]["username"]) if ok and rows else None

    def get_user(self, username: str) -> User | None:
        """The user whose name matches ``username`` after normalisation (see ``names``), if any."""
        key = name_key(username)
        rows = [] if key is None else self._query("SELECT * FROM users WHERE name_key = ?", (key,))
        return _user(rows[0]) if rows else None

    def all_users(self) -> list[User]:
        return [_user(r) for r in self._query("SELECT * FROM users ORDER BY id")]

    def touch(self, username: str) -> None:
        with self._lock:
            self._conn.execute("UPDATE users SET last_seen = ? WHERE username = ?", (time.time(), username))

    def set_user_field(self, username: str, field: str, value: Any) -> User:
        if field not in ("max_games", "ranked", "version", "rating"):
            raise StoreError(f"unknown user field {field!r}")
        with self._lock:
            self._conn.execute(f"UPDATE users SET {field} = ? WHERE username = ?", (value, username))
        user = self.get_user(username)
        if user is None:
            raise StoreError(f"unknown user {username!r}")
        return user

    def active_usernames(self, window: float) -> list[str]:
        cutoff = time.time() - window
        return [
            r["username"] for r in self._query("SELECT username FROM users WHERE last_seen >= ?", (cutoff,))
        ]

    # ---- games -------------------------------------------------------------------------------
    def create_game(
        self,
        white: str,
        black: str,
        recipients: list[str],
        seconds: float | None,
        increment: float | None,
        ranked: bool = False,
        inviter: str = "",
    ) -> tuple[int, list[int]]:
        """Insert a pending game and one invitation per recipient; return (game id, invitation ids)."""
        now = time.time()
        with self._tx() as conn:
            versions = {}
            for name in (white, black):
                row = conn.execute("SELECT version FROM users WHERE username = ?", (name,)).fetchone()
                if row is None:
                    raise StoreError(f"unknown user {name!r}", 404)
                versions[name] = row["version"]
            cur = conn.execute(
                "INSERT INTO games (white, black, status, ranked, white_version, black_version, seconds,"
                " increment, created) VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?)",
                (white, black, int(ranked), versions[white], versions[black], seconds, increment, now),
            )
            game_id = int(cur.lastrowid or 0)
            invitation_ids = []
            for name in recipients:
                cur = conn.execute(
                    "INSERT INTO invitations (game_id, recipient, inviter, created) VALUES (?, ?, ?, ?)",
                    (game_id, name, inviter, now),
                )
                invitation_ids.append(int(cur.lastrowid or 0))
        return game_id, invitation_ids

    def get_game(self, game_id: int) -> sqlite3.Row | None:
        if not 0 < game_id <= MAX_SQL_INT:
            return None
        rows = self._query("SELECT * FROM games WHERE id = ?", (game_id,))
        return rows[0] if rows else None

    def list_games(self, limit: int = 1000) -> list[sqlite3.Row]:
        return self._query("SELECT * FROM games ORDER BY id DESC LIMIT ?", (limit,))

    def set_status(self, game_id: int, status: str) -> None:
        with self._lock:
            self._conn.execute("UPDATE games SET status = ? WHERE id = ?", (status, game_id))

    def save_progress(self, game_id: int, history_json: str) -> None:
        """Snapshot the history of a running game, so even a killed server loses nothing played."""
        with self._lock:
            self._conn.execute("UPDATE games SET history = ? WHERE id = ?", (history_json, game_id))

    def finish_game(
        self,
        game_id: int,
        status: str,
        winner_color: bool | None,
        win_reason: str | None,
        history_json: str | None,
        note: str = "",
    ) -> None:
        with self._tx() as conn:
            conn.execute(
                "UPDATE games SET status = ?, winner_color = ?, win_reason = ?,"
                " history = COALESCE(?, history), note = ?, finished = ? WHERE id = ?",
                (
                    status,
                    None if winner_color is None else int(winner_color),
                    win_reason,
                    history_json,
                    note,
                    time.time(),
                    game_id,
                ),
            )
            # Invitations to a game that is over are of no use any more.
            conn.execute("UPDATE invitations SET finished = 1 WHERE game_id = ? AND accepted = 0", (game_id,))

    def unfinished_games(self) -> list[sqlite3.Row]:
        return self._query("SELECT * FROM games WHERE status IN ('pending', 'playing')")

    def busy_count(self, username: str) -> int:
        """Games a user is in that are not over (ladder capacity check against max_games)."""
        rows = self._query(
            "SELECT COUNT(*) AS n FROM games"
            " WHERE status IN ('pending', 'playing') AND (white = ? OR black = ?)",
            (username, username),
        )
        return int(rows[0]["n"])

    # ---- invitations -------------------------------------------------------------------------
    def open_invitations_sent(self, inviter: str) -> int:
        """Invitations ``inviter`` sent that nobody has accepted yet, to games not over."""
        rows = self._query(
            "SELECT COUNT(*) AS n FROM invitations i JOIN games g ON g.id = i.game_id"
            " WHERE i.inviter = ? AND i.accepted = 0 AND i.finished = 0"
            " AND g.status IN ('pending', 'playing')",
            (inviter,),
        )
        return int(rows[0]["n"])

    def invitation_unaccepted(self, game_id: int, username: str) -> bool:
        """True if ``username`` was invited to the game and has not accepted (yet)."""
        rows = self._query(
            "SELECT 1 FROM invitations WHERE game_id = ? AND recipient = ? AND accepted = 0",
            (game_id, username),
        )
        return bool(rows)

    def open_invitations(self, username: str) -> list[int]:
        rows = self._query(
            "SELECT i.id FROM invitations i JOIN games g ON g.id = i.game_id"
            " WHERE i.recipient = ? AND i.accepted = 0 AND i.finished = 0"
            " AND g.status IN ('pending', 'playing')"
            " ORDER BY i.id",
            (username,),
        )
        return [int(r["id"]) for r in rows]

    def accept_invitation(self, invitation_id: int, username: str) -> int:
        _check_id(invitation_id, "invitation")
        with self._tx() as conn:
            row = conn.execute(
                "SELECT i.*, g.status FROM invitations i JOIN games g ON g.id = i.game_id"
                " WHERE i.id = ? AND i.recipient = ?",
                (invitation_id, username),
            ).fetchone()
            if row is None:
                raise StoreError(f"no invitation {invitation_id} for {username}", 404)
            if row["accepted"]:
                raise StoreError(f"invitation {invitation_id} was already accepted")
            if row["status"] not in ("pending", "playing"):
                raise StoreError(f"invitation {invitation_id}: game {row['game_id']} is already over")
            conn.execute("UPDATE invitations SET accepted = 1 WHERE id = ?", (invitation_id,))
            return int(row["game_id"])

    def finish_invitation(self, invitation_id: int, username: str) -> None:
        _check_id(invitation_id, "invitation")
        with self._tx() as conn:
            row = conn.execute(
                "SELECT accepted FROM invitations WHERE id = ? AND recipient = ?", (invitation_id, username)
            ).fetchone()
            if row is None:
                raise StoreError(f"no invitation {invitation_id} for {username}", 404)
            if not row["accepted"]:
                raise StoreError(f"invitation {invitation_id} was not accepted")
            conn.execute("UPDATE invitations SET finished = 1 WHERE id = ?", (invitation_id,))


def _check_id(value: int, what: str) -> None:
    if not 0 < value <= MAX_SQL_INT:
        raise StoreError(f"{what} {value} does not exist", 404)


def _user(row: sqlite3.Row) -> User:
    return User(
        id=int(row["id"]),
        username=row["username"],
        max_games=int(row["max_games"]),
        ranked=bool(row["ranked"]),
        version=int(row["version"]),
        rating=float(row["rating"]),
        last_seen=float(row["last_seen"]),
    )
