"""The ``connect`` command's edges: one-line errors, fast failure on what no retry fixes, stopping
during an outage, a second signal abandoning games at once, and --config/--set for our bot."""

from __future__ import annotations

import http.server
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import reconchess
import requests
from reconchess.bots.random_bot import RandomBot
from server_helpers import RUN_BOT, ServerProcess, invite

from rbc_bot.engine import find_stockfish
from rbc_bot.server.client import ApiClient, Stopped

A, B = ("alice", "pw-a"), ("bob", "pw-b")
SHORT = ["--full-turn-limit", "5", "--seconds", "120", "--increment", "0"]

SPAWNING_HANG_BOT = '''
import os, subprocess, time
from reconchess import Player

class SpawningHangBot(Player):
    """Starts a helper process (as bots start engines), then never answers, ignoring SIGTERM."""

    def handle_game_start(self, color, board, opponent_name):
        helper = subprocess.Popen(["sleep", "600"])
        with open(os.environ["RBC_TEST_PID_FILE"], "w") as f:
            f.write(f"{os.getpid()} {helper.pid}")
    def handle_opponent_move_result(self, captured_my_piece, capture_square): pass
    def choose_sense(self, sense_actions, move_actions, seconds_left):
        while True:
            time.sleep(60)
    def handle_sense_result(self, sense_result): pass
    def choose_move(self, move_actions, seconds_left): return None
    def handle_move_result(self, *args): pass
    def handle_game_end(self, *args): pass
'''


def connect_cmd(tmp: Path, url: str, user: str, *extra: str) -> list[str]:
    cmd = [sys.executable, str(RUN_BOT), "connect", "--server-url", url, "--username", user]
    cmd += ["--log-file", str(tmp / f"connect-{user}.log"), "--replay-dir", str(tmp / "replays")]
    return [*cmd, "--poll-interval", "0.5", "--max-backoff", "1", *extra]


def connect(
    tmp: Path, url: str, *extra: str, password: str | None = "pw-a"
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RBC_TEST_PW": password or ""}
    cmd = connect_cmd(tmp, url, "alice", *extra)
    if password is not None:
        cmd += ["--password-env", "RBC_TEST_PW"]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, env=env, stdin=subprocess.DEVNULL)


def assert_one_error_line(result: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr[-3000:])
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if "error" in line.lower()]
    assert len(errors) == 1 and errors[0].startswith("rbc-bot: error: "), result.stderr[-3000:]
    assert words in errors[0], errors[0]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("not-a-url", "bad server URL 'not-a-url'"),
        ("ftp://example.org", "No connection adapters"),
        ("http://[::1", "bad server URL"),
    ],
)
def test_a_server_url_that_cannot_work_fails_fast(tmp_path: Path, url: str, words: str) -> None:
    start = time.monotonic()
    assert_one_error_line(connect(tmp_path, url, "--bot", "random"), 1, words)
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("value", ["0", "-1", "nan"])
def test_poll_interval_must_be_positive(tmp_path: Path, value: str) -> None:
    assert_one_error_line(
        connect(tmp_path, "http://127.0.0.1:9", "--poll-interval", value), 2, "--poll-interval"
    )


def test_no_terminal_and_no_password_env_is_one_line(tmp_path: Path) -> None:
    result = connect(tmp_path, "http://127.0.0.1:9", "--bot", "random", password=None)
    assert_one_error_line(result, 2, "no terminal to ask for the password")
    assert "EOFError" not in result.stderr


def test_bad_config_and_set_are_usage_errors(tmp_path: Path) -> None:
    url = "http://127.0.0.1:9"
    assert_one_error_line(
        connect(tmp_path, url, "--bot", "attacker", "--set", "move.top_k=2"), 2, "rbc_bot only"
    )
    assert_one_error_line(connect(tmp_path, url, "--set", "nope.key=1"), 2, "unknown config key 'nope.key'")
    assert_one_error_line(
        connect(tmp_path, url, "--config", str(tmp_path / "missing.toml")), 2, "cannot read config"
    )


def test_wrong_password_is_one_line_and_exit_1(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "auth.sqlite3", users=[A, B], extra=SHORT) as server:
        result = connect(tmp_path, server.url, "--bot", "random", password="wrong")
    assert_one_error_line(result, 1, "authentication failed for user 'alice'")


def test_api_client_stops_retrying_when_told_to() -> None:
    stop = threading.Event()
    client = ApiClient(f"http://127.0.0.1:{free_port()}", A, max_backoff=30, timeout=2, stop=stop)
    threading.Timer(1.0, stop.set).start()
    start = time.monotonic()
    with pytest.raises(Stopped):
        client.get("/api/version")  # retries with backoff until the stop event is set
    assert 0.9 < time.monotonic() - start < 5


def test_sigterm_during_a_server_outage_stops_promptly(tmp_path: Path) -> None:
    cmd = connect_cmd(tmp_path, f"http://127.0.0.1:{free_port()}", "alice", "--bot", "random")
    cmd[cmd.index("--max-backoff") + 1] = "30"
    out = tmp_path / "outage.out"
    with open(out, "w") as sink:
        proc = subprocess.Popen(
            [*cmd, "--password-env", "RBC_TEST_PW"],
            stdout=sink,
            stderr=subprocess.STDOUT,
            env={**os.environ, "RBC_TEST_PW": "pw-a"},
        )
    deadline = time.monotonic() + 60
    while "retrying in" not in out.read_text() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1)  # well inside a backoff wait
    proc.send_signal(signal.SIGTERM)
    start = time.monotonic()
    assert proc.wait(20) == 0
    assert time.monotonic() - start < 5, out.read_text()


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state not in ("Z", "X")


def test_a_second_signal_abandons_running_games_at_once(tmp_path: Path) -> None:
    bot = tmp_path / "spawning_hang_bot.py"
    bot.write_text(SPAWNING_HANG_BOT)
    pid_file = tmp_path / "pids"
    with ServerProcess(tmp_path / "abandon.sqlite3", users=[A, B], extra=SHORT) as server:
        out = tmp_path / "abandon.out"
        env = {**os.environ, "RBC_TEST_PW": "pw-a", "RBC_TEST_PID_FILE": str(pid_file)}
        cmd = connect_cmd(tmp_path, server.url, "alice", "--bot", str(bot), "--password-env", "RBC_TEST_PW")
        with open(out, "w") as sink:
            proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, env=env)
        try:
            deadline = time.monotonic() + 60
            while "connected to" not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.2)
            game_id = invite(server.url, B, A[0], inviter_color=False)  # alice is white: she hangs at once
            ready = requests.post(f"{server.url}/api/games/{game_id}/ready", data="{}", auth=B, timeout=10)
            assert ready.status_code == 200
            while not pid_file.exists() or not pid_file.read_text():
                assert time.monotonic() < deadline, out.read_text()
                time.sleep(0.2)
            game_pid, helper_pid = map(int, pid_file.read_text().split())
            proc.send_signal(signal.SIGTERM)
            time.sleep(2)
            assert proc.poll() is None, "the first signal must let the game go on"
            assert alive(game_pid) and alive(helper_pid)
            proc.send_signal(signal.SIGTERM)
            start = time.monotonic()
            assert proc.wait(20) == 1
            assert time.monotonic() - start < 10
        finally:
            if proc.poll() is None:
                proc.kill()
        deadline = time.monotonic() + 10
        while (alive(game_pid) or alive(helper_pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = [pid for pid in (game_pid, helper_pid) if alive(pid)]
        for pid in survivors:  # leave nothing behind, even when failing
            os.kill(pid, signal.SIGKILL)
        assert not survivors, "the game process or what it started survived"
        assert "abandoned 1 game(s)" in out.read_text()


def test_config_and_set_reach_our_bot_in_the_game_process(tmp_path: Path) -> None:
    marker = tmp_path / "engine-started"
    wrapper = tmp_path / "stockfish-wrapper.sh"
    wrapper.write_text(f'#!/bin/sh\necho started >> "{marker}"\nexec "{find_stockfish()}" "$@"\n')
    wrapper.chmod(0o755)
    config = tmp_path / "bot.toml"
    config.write_text("[engine]\nworkers = 1\n")
    with ServerProcess(tmp_path / "config.sqlite3", users=[A, B], extra=SHORT) as server:
        out = tmp_path / "config.out"
        extra = ["--bot", "rbc_bot", "--config", str(config), "--set", f"engine.path={wrapper}"]
        cmd = connect_cmd(tmp_path, server.url, "alice", *extra, "--password-env", "RBC_TEST_PW")
        with open(out, "w") as sink:
            proc = subprocess.Popen(
                cmd, stdout=sink, stderr=subprocess.STDOUT, env={**os.environ, "RBC_TEST_PW": "pw-a"}
            )
        try:
            deadline = time.monotonic() + 60
            while "connected to" not in out.read_text() and time.monotonic() < deadline:
                time.sleep(0.2)
            game_id = invite(server.url, B, A[0], inviter_color=True)
            result: Any = reconchess.play_remote_game(server.url, game_id, B, RandomBot())
            assert result[1] is not None
            while f"finished game {game_id}" not in out.read_text() and time.monotonic() < deadline + 120:
                time.sleep(0.2)
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(60) == 0
    text = out.read_text()
    assert f"finished game {game_id}" in text and f"rbc_bot[engine.path={wrapper}]" in text
    # One start when connect checks the engine before playing, then one engine worker in the game (the
    # config file's workers = 1; the default would start two), both at the path --set gave.
    assert marker.read_text().count("started") == 2


def test_api_client_waits_out_a_429_and_carries_on() -> None:
    answers = [(429, b'{"error": "too many failed logins; retry in 1 s"}'), (200, b'{"version": "1.6.9"}')]
    seen: list[float] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            status, payload = answers[min(len(seen), 1)]
            seen.append(time.monotonic())
            self.send_response(status)
            self.send_header("Retry-After", "1")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args: object) -> None:
            pass

    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        client = ApiClient(f"http://127.0.0.1:{httpd.server_address[1]}", A, max_backoff=5)
        assert client.server_version() == "1.6.9"
        httpd.shutdown()
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9  # the Retry-After was honoured
