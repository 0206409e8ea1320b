"""Helpers to run the real server as a separate process and play games on it (tests, benchmarks).

The server runs as ``python run_bot.py serve ...`` in a subprocess, so tests exercise the same
process boundary, sockets and signal handling a user gets. With ``fail_every`` it runs through
``faulty_serve.py`` instead: the same command with a fault-injecting WSGI wrapper.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import reconchess
import requests
from reconchess import GameHistory, LocalGame, Player

RUN_BOT = Path(__file__).resolve().parents[1] / "run_bot.py"
FAULTY_SERVE = Path(__file__).resolve().with_name("faulty_serve.py")
URL_RE = re.compile(r"listening on (http://\S+)")


class ServerProcess:
    """``with ServerProcess(db, users=[("a", "pw")], extra=["--full-turn-limit", "5"]) as server:``

    Users are created through ``--add-user NAME --password-file FILE`` (a 0600 file beside the db).
    """

    def __init__(
        self,
        db: str | Path,
        users: list[tuple[str, str]] | tuple[tuple[str, str], ...] = (),
        extra: list[str] | tuple[str, ...] = (),
        port: int = 0,
        log_path: str | Path | None = None,
        env: dict[str, str] | None = None,
        fail_every: int = 0,
    ) -> None:
        self.db = str(db)
        self.users = list(users)
        self.extra = list(extra)
        self.port = port
        self.log_path = Path(log_path) if log_path else Path(self.db).with_suffix(".server.log")
        self.env = env
        self.fail_every = fail_every
        self.url = ""
        self.proc: subprocess.Popen[str] | None = None
        self.stdout_lines: list[str] = []

    def start(self, timeout: float = 30.0) -> str:
        if self.fail_every:
            cmd = [sys.executable, str(FAULTY_SERVE), str(self.fail_every)]
        else:
            cmd = [sys.executable, str(RUN_BOT)]
        cmd += ["-v", "serve", "--port", str(self.port), "--db", self.db]
        if self.users:
            password_file = Path(self.db).with_suffix(".passwords")
            password_file.touch(mode=0o600)
            password_file.write_text("".join(f"{name}:{password}\n" for name, password in self.users))
            cmd += ["--password-file", str(password_file)]
            for name, _ in self.users:
                cmd += ["--add-user", name]
        cmd += self.extra
        self._log = open(self.log_path, "a")  # noqa: SIM115 - closed in stop()
        self.proc = subprocess.Popen(
            cmd,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
            env={**os.environ, **(self.env or {})},
        )
        # A reader thread, not select() on the pipe: readline() may pull two lines into Python's
        # buffer at once, and select() would then wait for bytes that already arrived.
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader.start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self._lines.get(timeout=0.2)
            except queue.Empty:
                continue
            if line is None:
                break
            self.stdout_lines.append(line)
            match = URL_RE.search(line)
            if match:
                self.url = match.group(1)
                self.port = int(self.url.rsplit(":", 1)[1])
                return self.url
        self.stop()
        raise RuntimeError(f"server did not start: {''.join(self.stdout_lines)} (log {self.log_path})")

    def _read_stdout(self) -> None:
        assert self.proc is not None and self.proc.stdout is not None
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 15.0) -> int | None:
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._reader.join(10)
        while (line := self._lines.get_nowait() if not self._lines.empty() else None) is not None:
            self.stdout_lines.append(line)
        if self.proc.stdout is not None:
            self.proc.stdout.close()
        self._log.close()
        code = self.proc.returncode
        self.proc = None
        return code

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    def log_text(self) -> str:
        return self.log_path.read_text() if self.log_path.exists() else ""


def invite(url: str, inviter: tuple[str, str], opponent: str, inviter_color: bool) -> int:
    response = requests.post(
        f"{url}/api/invitations/",
        json={"opponent": opponent, "color": inviter_color},
        auth=inviter,
        timeout=10,
    )
    response.raise_for_status()
    return int(response.json()["game_id"])


def accept_all(url: str, auth: tuple[str, str]) -> list[int]:
    """Accept every open invitation of ``auth``'s user; returns the game ids."""
    ids = requests.get(f"{url}/api/invitations/", auth=auth, timeout=10).json()["invitations"]
    return [
        int(requests.post(f"{url}/api/invitations/{i}", auth=auth, timeout=10).json()["game_id"]) for i in ids
    ]


def play_game(
    url: str, game_id: int, white: tuple[tuple[str, str], Player], black: tuple[tuple[str, str], Player]
) -> dict[str, Any]:
    """Both sides with the stock ``reconchess.play_remote_game`` in threads; results keyed by username."""
    results: dict[str, Any] = {}

    def run(auth: tuple[str, str], player: Player) -> None:
        try:
            results[auth[0]] = reconchess.play_remote_game(url, game_id, auth, player)
        except Exception as exc:
            results[auth[0]] = exc

    threads = [threading.Thread(target=run, args=side, daemon=True) for side in (white, black)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def replay_through_local_game(history: GameHistory) -> None:
    """Re-apply the recorded senses and requested moves in a fresh LocalGame; raise on any disagreement."""
    game = LocalGame(seconds_per_player=None)
    game.start()
    for turn in history.turns():
        _agree(game.turn, turn.color, f"{turn}: side to move")
        if history.has_sense(turn):
            seen = game.sense(history.sense(turn))
            _agree(
                [list(x) for x in seen],
                [list(x) for x in history.sense_result(turn)],
                f"{turn}: sense result",
            )
        if history.has_move(turn):
            _, taken, capture = game.move(history.requested_move(turn))
            _agree(taken, history.taken_move(turn), f"{turn}: taken move")
            _agree(capture, history.capture_square(turn), f"{turn}: capture square")
            _agree(
                game.board.fen(en_passant="fen"), history.truth_fen_after_move(turn), f"{turn}: board after"
            )
        game.end_turn()


def _agree(actual: Any, recorded: Any, what: str) -> None:
    if actual != recorded:
        raise AssertionError(f"{what}: LocalGame gives {actual!r}, the history says {recorded!r}")
