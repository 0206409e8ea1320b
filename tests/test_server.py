"""The local server against the stock reconchess client, over real sockets, server in its own process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
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
from server_helpers import ServerProcess, accept_all, invite, play_game, replay_through_local_game

A, B = ("alice", "pw-a"), ("bob", "pw-b")
SHORT = ["--full-turn-limit", "5", "--seconds", "120", "--increment", "0"]


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with ServerProcess(tmp_path / "rbc.sqlite3", users=[A, B], extra=SHORT) as proc:
        yield proc


def game_row(url: str, game_id: int) -> dict[str, Any]:
    return requests.get(f"{url}/api/games/{game_id}", auth=A, timeout=10).json()  # type: ignore[no-any-return]


def server_history(url: str, game_id: int, auth: tuple[str, str] = A) -> GameHistory:
    response = requests.get(f"{url}/api/games/{game_id}/game_history", auth=auth, timeout=10)
    assert response.status_code == 200, response.text
    return json.loads(response.text, cls=GameHistoryDecoder)["game_history"]  # type: ignore[no-any-return]


def test_stock_play_remote_game_plays_a_complete_game(server: ServerProcess) -> None:
    url = server.url
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    assert accept_all(url, B) == [game_id]
    assert requests.get(f"{url}/api/invitations/", auth=B, timeout=10).json() == {"invitations": []}
    results = play_game(url, game_id, (A, AttackerBot()), (B, RandomBot()))
    (w_winner, w_reason, w_hist), (b_winner, b_reason, b_hist) = results[A[0]], results[B[0]]
    assert (w_winner, w_reason) == (b_winner, b_reason)
    assert w_reason in (WinReason.KING_CAPTURE, WinReason.TURN_LIMIT)
    assert w_hist == b_hist == server_history(url, game_id)
    assert w_hist.get_white_player_name() == A[0] and w_hist.get_black_player_name() == B[0]
    assert (w_hist.get_winner_color(), w_hist.get_win_reason()) == (w_winner, w_reason)
    row = game_row(url, game_id)
    assert (row["status"], row["winner_color"], row["win_reason"]) == ("finished", w_winner, w_reason.name)
    replay_through_local_game(w_hist)


def test_stock_rc_connect_plays_invitations_unchanged(server: ServerProcess, tmp_path: Path) -> None:
    url = server.url
    rc_connect = Path(sys.executable).with_name("rc-connect")
    cmd = [str(rc_connect) if rc_connect.exists() else "rc-connect", "reconchess.bots.random_bot"]
    cmd += ["--username", B[0], "--password", B[1], "--server-url", url, "--max-concurrent-games", "2"]
    cmd += ["--ranked", "--keep-version"]
    out_path = tmp_path / "rc_connect.out"
    with open(out_path, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        game_id = invite(url, A, B[0], inviter_color=chess.BLACK)
        results = play_game_one_side(url, game_id, A)
        deadline = time.monotonic() + 30
        while f"Finished game {game_id}" not in out_path.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert f"Finished game {game_id}" in out_path.read_text()
        assert requests.get(f"{url}/api/users/me/version", auth=B, timeout=10).json() == {"version": 1}
        winner, reason, history = results
        assert history == server_history(url, game_id, B)
        row = game_row(url, game_id)
        assert (row["winner_color"], row["win_reason"]) == (winner, reason.name)
        replay_through_local_game(history)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    assert "Received terminate signal" in out_path.read_text()
    board = requests.get(f"{url}/api/leaderboard", timeout=10).json()["leaderboard"]
    assert B[0] not in [e["username"] for e in board]  # SIGINT made it unranked again


def play_game_one_side(url: str, game_id: int, auth: tuple[str, str]) -> Any:
    return reconchess.play_remote_game(url, game_id, auth, AttackerBot())


def post(url: str, path: str, auth: tuple[str, str], body: Any = None, raw: bytes | None = None) -> Any:
    """POST like the stock RemoteGame: JSON text without a Content-Type header."""
    data = raw if raw is not None else (None if body is None else json.dumps(body))
    return requests.post(f"{url}{path}", data=data, auth=auth, timeout=10)


def test_bad_requests_get_clear_errors_and_the_game_goes_on(server: ServerProcess) -> None:
    url = server.url
    assert requests.get(f"{url}/api/invitations/", auth=(A[0], "wrong"), timeout=10).status_code == 401
    missing = requests.get(f"{url}/api/games/999/game_status", auth=A, timeout=10)
    assert missing.status_code == 404 and "does not exist" in missing.json()["error"]
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    accept_all(url, B)
    g = f"/api/games/{game_id}"
    assert requests.get(f"{url}{g}/color", auth=B, timeout=10).json() == {"color": False}
    assert post(url, f"{g}/ready", A, {}).status_code == 200
    assert post(url, f"{g}/ready", A, {}).status_code == 400  # already ready
    assert post(url, f"{g}/sense", A, {"square": 10}).status_code == 400  # not started yet
    assert post(url, f"{g}/ready", B, {}).status_code == 200

    def refused(response: requests.Response, words: str) -> None:
        assert response.status_code == 400, response.text
        assert words in response.json()["error"]

    refused(post(url, f"{g}/move", A, {"requested_move": {"type": "Move", "value": "e2e4"}}), "sense first")
    refused(post(url, f"{g}/sense", A, raw=b'{"square": 1'), "malformed JSON")
    refused(post(url, f"{g}/sense", A, {"square": 99}), "0..63")
    refused(post(url, f"{g}/sense", B, {"square": 12}), "not your turn")
    sensed = post(url, f"{g}/sense", A, {"square": 52})
    assert sensed.status_code == 200 and len(sensed.json()["sense_result"]) == 9
    refused(post(url, f"{g}/sense", A, {"square": 12}), "already sensed")
    # The same request again is a client retry after a lost answer: same answer, no second sense.
    assert post(url, f"{g}/sense", A, {"square": 52}).json() == sensed.json()
    refused(
        post(url, f"{g}/move", A, {"requested_move": {"type": "Move", "value": "e2e5"}}),
        "not in move_actions",
    )
    refused(post(url, f"{g}/end_turn", A, {}), "sense and move first")
    moved = post(url, f"{g}/move", A, {"requested_move": {"type": "Move", "value": "e2e4"}})
    assert moved.json()["move_result"] == [{"type": "Move", "value": "e2e4"}] * 2 + [None]
    refused(post(url, f"{g}/move", A, {"requested_move": None}), "already moved")
    assert post(url, f"{g}/end_turn", A, {}).json() == {}
    assert requests.get(f"{url}{g}/game_status", auth=B, timeout=10).json() == {
        "is_my_turn": True,
        "is_over": False,
    }
    refused(requests.get(f"{url}{g}/winner_color", auth=B, timeout=10), "not over")
    assert requests.get(f"{url}{g}/opponent_move_results", auth=B, timeout=10).json() == {
        "opponent_move_results": None
    }
    assert post(url, f"{g}/resign", B).status_code == 200
    assert requests.get(f"{url}{g}/winner_color", auth=B, timeout=10).json() == {"winner_color": True}
    assert requests.get(f"{url}{g}/win_reason", auth=A, timeout=10).json()["win_reason"]["value"] == "RESIGN"
    refused(post(url, f"{g}/sense", B, {"square": 1}), "finished")
    history = server_history(url, game_id)
    assert history.requested_move(history.first_turn(chess.WHITE)) == chess.Move.from_uci("e2e4")


def test_end_turn_after_king_capture_answers_200(server: ServerProcess) -> None:
    url = server.url
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    accept_all(url, B)
    g = f"/api/games/{game_id}"
    post(url, f"{g}/ready", A, {})
    post(url, f"{g}/ready", B, {})
    for white_move in ("e2e4", "d1h5", "h5f7", "f7e8"):
        assert post(url, f"{g}/sense", A, {"square": None}).status_code == 200
        result = post(url, f"{g}/move", A, {"requested_move": {"type": "Move", "value": white_move}})
        assert result.status_code == 200, result.text
        assert post(url, f"{g}/end_turn", A, {}).status_code == 200
        if white_move == "f7e8":
            break
        assert post(url, f"{g}/sense", B, {"square": None}).status_code == 200
        assert post(url, f"{g}/move", B, {"requested_move": None}).status_code == 200
        assert post(url, f"{g}/end_turn", B, {}).status_code == 200
    assert requests.get(f"{url}{g}/game_status", auth=B, timeout=10).json()["is_over"] is True
    assert requests.get(f"{url}{g}/winner_color", auth=B, timeout=10).json() == {"winner_color": True}
    assert game_row(url, game_id)["win_reason"] == "KING_CAPTURE"


def test_player_who_stops_answering_loses_on_time(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "clock.sqlite3", users=[A, B], extra=["--seconds", "2"]) as server:
        url = server.url
        game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
        accept_all(url, B)
        post(url, f"/api/games/{game_id}/ready", A, {})  # alice gets ready, then goes silent
        winner, reason, _ = reconchess.play_remote_game(url, game_id, B, RandomBot())
        assert (winner, reason) == (chess.BLACK, WinReason.TIMEOUT)
        assert game_row(url, game_id)["win_reason"] == "TIMEOUT"


def test_error_resign_loses_on_time_and_is_recorded(server: ServerProcess) -> None:
    url = server.url
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    accept_all(url, B)
    assert post(url, f"/api/games/{game_id}/error_resign", B).json() == {}
    row = game_row(url, game_id)
    assert (row["status"], row["winner_color"], row["win_reason"]) == ("finished", True, "TIMEOUT")
    assert "error_resign" in row["note"]
    # The opponent, arriving late, still gets a clean end through the stock client.
    winner, reason, _ = reconchess.play_remote_game(url, game_id, A, RandomBot())
    assert (winner, reason) == (chess.WHITE, WinReason.TIMEOUT)


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_restart_keeps_users_and_records_the_unfinished_game(tmp_path: Path, how: int) -> None:
    db = tmp_path / "restart.sqlite3"
    first = ServerProcess(db, users=[A, B], extra=SHORT)
    url = first.start()
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    accept_all(url, B)
    g = f"/api/games/{game_id}"
    post(url, f"{g}/ready", A, {})
    post(url, f"{g}/ready", B, {})
    for auth, move in ((A, "e2e4"), (B, "e7e5")):
        post(url, f"{g}/sense", auth, {"square": 36})
        post(url, f"{g}/move", auth, {"requested_move": {"type": "Move", "value": move}})
        post(url, f"{g}/end_turn", auth, {})
    code = first.stop(how)
    if how == signal.SIGTERM:
        assert code == 0 and "unfinished games recorded as aborted" in "".join(first.stdout_lines)
    with ServerProcess(db, extra=SHORT) as second:  # no --add-user: accounts come from the database
        url = second.url
        assert requests.get(f"{url}/api/invitations/", auth=A, timeout=10).status_code == 200
        row = game_row(url, game_id)
        assert row["status"] == "aborted" and row["winner_color"] is None
        assert requests.get(f"{url}{g}/game_status", auth=A, timeout=10).json() == {
            "is_my_turn": False,
            "is_over": True,
        }
        history = server_history(url, game_id)
        moves = [history.requested_move(t) for t in history.turns()]
        assert moves == [chess.Move.from_uci("e2e4"), chess.Move.from_uci("e7e5")]
        if how == signal.SIGKILL:
            assert "left unfinished by the previous run" in "".join(second.stdout_lines)


def test_stock_rc_register_creates_an_account_and_names_are_unique(server: ServerProcess) -> None:
    rc_register = Path(sys.executable).with_name("rc-register")
    cmd = [str(rc_register) if rc_register.exists() else "rc-register", "--username", "carol"]
    cmd += [
        "--email",
        "c@example.org",
        "--affiliation",
        "test",
        "--password",
        "pw-c",
        "--server-url",
        server.url,
    ]
    first = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert 'Successfully registered with username "carol"' in first.stdout
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert "already in use" in again.stdout
    assert requests.get(f"{server.url}/api/invitations/", auth=("carol", "pw-c"), timeout=10).json() == {
        "invitations": []
    }
    assert (
        requests.get(f"{server.url}/api/invitations/", auth=("carol", "pw-x"), timeout=10).status_code == 401
    )
