"""Our ``connect`` client against our server (a separate process), including faults and the ladder."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import chess
import pytest
import reconchess
import requests
from reconchess import GameHistory, WinReason
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot
from reconchess.history import GameHistoryDecoder
from server_helpers import RUN_BOT, ServerProcess, invite

A, B = ("alice", "pw-a"), ("bob", "pw-b")
SHORT = ["--full-turn-limit", "5", "--seconds", "120", "--increment", "0"]

# Our bot once it exists (rbc_bot.bot is written in parallel); a reconchess bot until then.
OUR_BOT = "rbc_bot" if importlib.util.find_spec("rbc_bot.bot") is not None else "attacker"

CRASH_BOT = '''
from reconchess import Player

class CrashBot(Player):
    """Crashes on its first move, like a bot with a bug."""

    def handle_game_start(self, color, board, opponent_name): pass
    def handle_opponent_move_result(self, captured_my_piece, capture_square): pass
    def choose_sense(self, sense_actions, move_actions, seconds_left): return None
    def handle_sense_result(self, sense_result): pass
    def choose_move(self, move_actions, seconds_left): raise RuntimeError("deliberate crash")
    def handle_move_result(self, requested_move, taken_move, captured_opponent_piece, capture_square): pass
    def handle_game_end(self, winner_color, win_reason, game_history): pass
'''


class ConnectProcess:
    """``python run_bot.py connect ...`` as a subprocess with its own log and replay folder."""

    def __init__(self, tmp: Path, url: str, user: tuple[str, str], bot: str, *extra: str) -> None:
        self.log = tmp / f"connect-{user[0]}.log"
        self.out = tmp / f"connect-{user[0]}.out"
        self.replays = tmp / f"replays-{user[0]}"
        cmd = [sys.executable, str(RUN_BOT), "connect", "--server-url", url, "--username", user[0]]
        cmd += ["--password-env", "RBC_TEST_PW", "--bot", bot, "--poll-interval", "0.5", "--max-backoff", "1"]
        cmd += ["--log-file", str(self.log), "--replay-dir", str(self.replays), *extra]
        with open(self.out, "w") as out:
            self.proc = subprocess.Popen(
                cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, "RBC_TEST_PW": user[1]}
            )

    def text(self) -> str:
        return self.out.read_text()

    def wait_for(self, words: str, timeout: float = 60.0, count: int = 1) -> None:
        wait_until(
            lambda: self.text().count(words) >= count, timeout, f"{words!r} in connect output:\n{self.text()}"
        )

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(60)


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def game_row(url: str, game_id: int) -> dict[str, Any]:
    return requests.get(f"{url}/api/games/{game_id}", auth=B, timeout=10).json()  # type: ignore[no-any-return]


def server_history(url: str, game_id: int) -> GameHistory:
    text = requests.get(f"{url}/api/games/{game_id}/game_history", auth=B, timeout=10).text
    return json.loads(text, cls=GameHistoryDecoder)["game_history"]  # type: ignore[no-any-return]


def bob_plays(url: str, bot: reconchess.Player, bob_color: bool = chess.WHITE) -> tuple[int, Any]:
    """Bob invites alice and plays the game with the stock play_remote_game."""
    game_id = invite(url, B, A[0], inviter_color=bob_color)
    return game_id, reconchess.play_remote_game(url, game_id, B, bot)


def test_wrong_password_exits_1_with_a_clear_message(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "auth.sqlite3", users=[A, B], extra=SHORT) as server:
        client = ConnectProcess(tmp_path, server.url, (A[0], "not-the-password"), "random")
        assert client.proc.wait(60) == 1
        assert "authentication failed for user 'alice'" in client.text()
        assert "HTTP 401" in client.text()


def test_connect_plays_and_records_the_same_game_and_sigterm_lets_it_finish(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "play.sqlite3", users=[A, B], extra=SHORT) as server:
        client = ConnectProcess(tmp_path, server.url, A, "attacker", "--ranked")
        client.wait_for("connected to")
        assert requests.get(f"{server.url}/api/users/me/version", auth=A, timeout=10).json() == {"version": 1}
        played: dict[str, Any] = {}
        bob = threading.Thread(target=lambda: played.update(game=bob_plays(server.url, RandomBot())))
        bob.start()
        client.wait_for("accepted: playing game")
        client.proc.send_signal(signal.SIGTERM)  # mid-game: unrank, finish the game, then exit
        bob.join(120)
        assert client.proc.wait(60) == 0
        game_id, (winner, reason, history) = played["game"]
        log = client.text()
        assert log.index("SIGTERM received") < log.index(f"finished game {game_id}") < log.index("goodbye")
        saved = GameHistory.from_file(str(client.replays / f"server_game_{game_id}.json"))
        assert saved == history == server_history(server.url, game_id)
        row = game_row(server.url, game_id)
        assert (row["winner_color"], row["win_reason"]) == (winner, reason.name)
        board = requests.get(f"{server.url}/api/leaderboard", timeout=10).json()["leaderboard"]
        assert A[0] not in [e["username"] for e in board]  # unranked on the way out
        assert client.log.read_text().count(f"finished game {game_id}") == 1  # the log file has it too


def test_connect_survives_a_server_restart_while_waiting(tmp_path: Path) -> None:
    db, port = tmp_path / "restart.sqlite3", free_port()
    first = ServerProcess(db, users=[A, B], extra=[*SHORT, "--host", "127.0.0.1"], port=port)
    url = first.start()
    client = ConnectProcess(tmp_path, url, A, "random")
    try:
        client.wait_for("connected to")
        first.stop()
        client.wait_for("reconnecting in")
        with ServerProcess(db, extra=SHORT, port=port) as second:
            client.wait_for("connected to", count=2)
            game_id, (winner, reason, history) = bob_plays(second.url, AttackerBot())
            client.wait_for(f"finished game {game_id}")
            row = game_row(second.url, game_id)
            assert (row["winner_color"], row["win_reason"]) == (winner, reason.name)
            assert history == server_history(second.url, game_id)
    finally:
        assert client.stop() == 0


def test_injected_5xx_are_retried_and_the_game_completes(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "faults.sqlite3", users=[A, B], extra=SHORT, fail_every=6) as server:
        client = ConnectProcess(tmp_path, server.url, A, "random")
        try:
            client.wait_for("connected to")
            game_id, (winner, reason, history) = bob_plays(server.url, AttackerBot())
            client.wait_for(f"finished game {game_id}")
            assert "server error HTTP 503" in client.text()
            assert history == server_history_retrying(server.url, game_id)
            assert reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
            assert (winner, reason) == (history.get_winner_color(), history.get_win_reason())
        finally:
            assert client.stop() == 0


def server_history_retrying(url: str, game_id: int) -> GameHistory:
    for _ in range(10):
        response = requests.get(f"{url}/api/games/{game_id}/game_history", auth=B, timeout=10)
        if response.status_code == 200:
            return json.loads(response.text, cls=GameHistoryDecoder)["game_history"]  # type: ignore[no-any-return]
    raise AssertionError("history never answered")


def test_crashing_bot_error_resigns_and_takes_the_next_invitation(tmp_path: Path) -> None:
    bot_file = tmp_path / "crash_bot.py"
    bot_file.write_text(CRASH_BOT)
    with ServerProcess(tmp_path / "crash.sqlite3", users=[A, B], extra=SHORT) as server:
        client = ConnectProcess(tmp_path, server.url, A, str(bot_file))
        try:
            client.wait_for("connected to")
            for bob_color in (chess.BLACK, chess.WHITE):  # alice crashes at her first move either way
                game_id, (winner, reason, _) = bob_plays(server.url, RandomBot(), bob_color)
                assert (winner, reason) == (bob_color, WinReason.TIMEOUT)
                row = game_row(server.url, game_id)
                assert row["status"] == "finished" and "alice error_resign" in row["note"]
                client.wait_for(f"game {game_id} crashed; sending error_resign")
        finally:
            assert client.stop() == 0
        assert client.text().count("deliberate crash") >= 2


@pytest.mark.timeout(240)
def test_ladder_pairs_connect_with_stock_rc_connect_trout(tmp_path: Path) -> None:
    extra = [*SHORT, "--ladder", "--ladder-interval", "1"]
    with ServerProcess(tmp_path / "ladder.sqlite3", users=[A, B], extra=extra) as server:
        url = server.url
        ours = ConnectProcess(tmp_path, url, A, OUR_BOT, "--ranked", "--max-concurrent-games", "1")
        rc_out = tmp_path / "rc_connect.out"
        cmd = [str(Path(sys.executable).with_name("rc-connect")), "reconchess.bots.trout_bot"]
        cmd += ["--username", B[0], "--password", B[1], "--server-url", url, "--max-concurrent-games", "1"]
        cmd += ["--ranked", "--keep-version"]
        env = {
            **os.environ,
            "STOCKFISH_EXECUTABLE": os.environ.get("STOCKFISH_EXECUTABLE", "/usr/games/stockfish"),
        }
        with open(rc_out, "w") as out:
            stock = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
        try:
            ours.wait_for("finished game", timeout=120)
            wait_until(lambda: "Finished game" in rc_out.read_text(), 60, "rc-connect to finish a game")
        finally:
            # Ours first: it unranks, then finishes a game the ladder may have started meanwhile, which
            # needs its opponent alive (stopping rc-connect first would leave ours waiting on a clock).
            stopped = ours.stop()
            # The ladder pairs the two again as soon as a game ends, so rc-connect may already sit in
            # a game ours never accepted: end it, or rc-connect waits for it on SIGINT.
            for game in requests.get(f"{url}/api/games/", auth=A, timeout=10).json()["games"]:
                if game["status"] in ("pending", "playing"):
                    requests.post(f"{url}/api/games/{game['id']}/error_resign", auth=A, timeout=10)
            stock.send_signal(signal.SIGINT)
            stock.wait(60)
            assert stopped == 0
        games = requests.get(f"{url}/api/games/", auth=A, timeout=10).json()["games"]
        done = [g for g in games if g["status"] == "finished"]
        assert done and all(g["ranked"] for g in games)
        first = int(re.search(r"finished game (\d+)", ours.text()).group(1))  # type: ignore[union-attr]
        history = GameHistory.from_file(str(ours.replays / f"server_game_{first}.json"))
        assert history == server_history(url, first)
        board = {
            e["username"]: e for e in requests.get(f"{url}/api/leaderboard", timeout=10).json()["leaderboard"]
        }
        assert board[A[0]]["games"] == board[B[0]]["games"] == len(done)
        assert board[A[0]]["rating"] + board[B[0]]["rating"] == pytest.approx(3000.0, abs=0.2)
        wins_a = sum(g["winner_color"] == (g["white"] == A[0]) for g in done if g["winner_color"] is not None)
        assert board[A[0]]["wins"] == wins_a
        page = requests.get(f"{url}/", timeout=10).text
        assert "RBC local ladder" in page and A[0] in page and B[0] in page


def test_connect_invites_a_stock_rc_connect_bot_and_plays_both_colours(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "invite.sqlite3", users=[A, B], extra=SHORT) as server:
        cmd = [str(Path(sys.executable).with_name("rc-connect")), "reconchess.bots.random_bot"]
        cmd += ["--username", B[0], "--password", B[1], "--server-url", server.url]
        with open(tmp_path / "rc.out", "w") as out:
            stock = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
        try:
            nobody = ConnectProcess(tmp_path, server.url, A, "attacker", "--invite", "nobody")
            assert nobody.proc.wait(60) == 1 and "unknown opponent 'nobody'" in nobody.text()
            ours = ConnectProcess(
                tmp_path, server.url, A, "attacker", "--invite", B[0], "--invite-games", "2"
            )
            assert ours.proc.wait(120) == 0, ours.text()
        finally:
            stock.send_signal(signal.SIGINT)
            stock.wait(30)
        games = requests.get(f"{server.url}/api/games/", auth=A, timeout=10).json()["games"]
        assert sorted((g["white"], g["status"]) for g in games) == [(A[0], "finished"), (B[0], "finished")]
        for game in games:
            outcome = (
                "draw"
                if game["winner_color"] is None
                else "won"
                if (game["white"] == A[0]) == game["winner_color"]
                else "lost"
            )
            assert f"game {game['id']}: {outcome} ({game['win_reason']})" in ours.text()
