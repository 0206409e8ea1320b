"""Hostile and careless clients against a real server process over real sockets: every probe gets
a 4xx with a short message, and the server keeps answering afterwards."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import chess
import pytest
import requests
from server_helpers import ServerProcess, accept_all, invite

A, B, C = ("alice", "pw-a"), ("bob", "pw-b"), ("carol", "pw-c")
SHORT = ["--full-turn-limit", "5", "--seconds", "120", "--increment", "0"]
BIG = 2**63  # one above SQLite's largest integer


@pytest.fixture
def server(tmp_path: Path) -> Any:
    with ServerProcess(tmp_path / "rbc.sqlite3", users=[A, B, C], extra=SHORT) as proc:
        yield proc


def send(
    url: str, method: str, path: str, auth: tuple[str, str] | None, raw: bytes | None
) -> requests.Response:
    """Like the stock RemoteGame: JSON text without a Content-Type header."""
    return requests.request(method, f"{url}{path}", data=raw, auth=auth, timeout=60)


def body(obj: Any) -> bytes:
    return json.dumps(obj).encode()  # ensure_ascii: a lone surrogate goes out as the text \ud800


def started_game(url: str) -> str:
    game_id = invite(url, A, B[0], inviter_color=chess.WHITE)
    accept_all(url, B)
    for auth in (A, B):
        assert send(url, "POST", f"/api/games/{game_id}/ready", auth, b"{}").status_code == 200
    return f"/api/games/{game_id}"


def probes(game: str) -> list[tuple[str, str, tuple[str, str] | None, bytes | None, int]]:
    """(method, path, auth, body, expected status) for each kind of input that once gave a 500."""
    piece5 = {"type": "Piece", "value": 5}
    return [
        # lone surrogates (UnicodeEncodeError in SQLite)
        ("POST", "/api/users/", None, body({"username": "\ud800", "password": "x"}), 400),
        ("POST", "/api/users/", None, body({"username": "x\ud800y", "password": "x"}), 400),
        ("POST", "/api/invitations/", A, body({"opponent": "\ud800", "color": True}), 404),
        ("POST", "/api/users/", None, body({"username": "dave", "password": "p", "email": "\ud800"}), 400),
        # objects reconchess's object hooks cannot build (AttributeError, KeyError, ValueError)
        ("POST", f"{game}/sense", A, body({"square": piece5}), 400),
        ("POST", f"{game}/move", A, body({"requested_move": {"type": "Move", "value": 5}}), 400),
        ("POST", "/api/users/", None, body({"username": piece5, "password": "x"}), 400),
        ("POST", "/api/users/me/ranked", A, body({"ranked": {"type": "WinReason", "value": "NOPE"}}), 400),
        ("POST", "/api/users/me/max_games", A, body({"max_games": {"type": "Board", "value": "junk"}}), 400),
        (
            "POST",
            "/api/invitations/",
            A,
            body({"opponent": {"type": "Piece", "value": "p"}, "color": True}),
            400,
        ),
        # deep nesting (RecursionError) under the size cap, and over it
        ("POST", f"{game}/sense", A, b"[" * 30_000 + b"]" * 30_000, 400),
        ("POST", f"{game}/sense", A, b'{"a":' * 10_000 + b"1" + b"}" * 10_000, 400),
        ("POST", "/api/users/", None, b"[" * 100_000 + b"]" * 100_000, 413),
        # numbers and ids above 2**63-1 (OverflowError in SQLite)
        ("GET", f"/api/games/{BIG}/color", A, None, 404),
        ("GET", f"/api/games/{BIG}", A, None, 404),
        ("GET", f"/api/games/{10**30}/game_status", A, None, 404),
        ("POST", f"/api/invitations/{BIG}", B, None, 404),
        ("POST", f"/api/invitations/{BIG}/finish", B, None, 404),
        ("POST", "/api/users/me/max_games", A, body({"max_games": BIG}), 400),
        ("POST", "/api/users/me/max_games", A, b'{"max_games": ' + b"9" * 5000 + b"}", 400),
        ("POST", f"{game}/sense", A, body({"square": BIG}), 400),
        ("POST", "/api/invitations/", A, body({"opponent": "bob", "color": BIG}), 400),
        # bodies that are not objects, or not JSON at all
        ("POST", f"{game}/sense", A, b"\xff\xfe\x00", 400),
        ("POST", f"{game}/sense", A, body([1, 2]), 400),
        ("POST", f"{game}/sense", A, body({"square": [0] * 5000}), 400),
        ("POST", f"{game}/move", A, body({"requested_move": "x" * 5000}), 400),
        ("POST", "/api/users/", None, body({"type": "Move", "value": "e2e4"}), 400),
        # too big: a 10 MB username
        ("POST", "/api/users/", None, body({"username": "u" * 10_000_000, "password": "x"}), 413),
        ("POST", "/api/users/", None, body({"username": "u" * 100_000, "password": "x"}), 413),
    ]


def test_every_probe_gets_a_4xx_and_the_server_stays_up(server: ServerProcess) -> None:
    url = server.url
    game = started_game(url)
    for method, path, auth, raw, expected in probes(game):
        response = send(url, method, path, auth, raw)
        what = f"{method} {path[:60]} {(raw or b'')[:60]!r}"
        assert response.status_code == expected, f"{what}: {response.status_code} {response.text[:300]}"
        assert len(response.text) < 400, f"{what}: the error echoes its input: {response.text[:100]}..."
        assert requests.get(f"{url}/api/version", timeout=10).status_code == 200, f"server down after {what}"
    # The game the probes hit is still playable.
    sensed = send(url, "POST", f"{game}/sense", A, body({"square": 52}))
    assert sensed.status_code == 200 and len(sensed.json()["sense_result"]) == 9
    assert "Traceback" not in server.log_text() and "internal error" not in server.log_text()


def test_errors_quote_only_a_short_prefix_of_the_input(server: ServerProcess) -> None:
    long_name = "x" * 30 + "y" * 3000
    response = send(server.url, "POST", "/api/users/", None, body({"username": long_name, "password": "p"}))
    assert response.status_code == 400 and "yyyyyyyy" not in response.text
    response = send(server.url, "POST", "/api/invitations/", A, body({"opponent": "z" * 5000, "color": True}))
    assert response.status_code == 404 and "unknown opponent" in response.text
    assert len(response.json()["error"]) < 100
    too_big = send(server.url, "POST", "/api/users/", None, b" " * 70_000)
    assert too_big.status_code == 413 and "65536 bytes" in too_big.json()["error"]


@pytest.mark.parametrize(
    "name",
    [
        "ALICE",
        "Alice",
        "\uff21lice",
        "alice ",
        " alice",
        "al\u200bice",
        "ali\nce",
        "alice\r\n",
        "a:lice",
        "a" * 33,
        "",
    ],
)
def test_look_alike_and_unprintable_usernames_are_refused(server: ServerProcess, name: str) -> None:
    response = send(server.url, "POST", "/api/users/", None, body({"username": name, "password": "pw"}))
    assert response.status_code in (400, 409), response.text
    assert "\n" not in response.json()["error"]
    users = requests.get(f"{server.url}/api/games/", auth=A, timeout=10)
    assert users.status_code == 200


def test_a_valid_new_name_registers_and_logs_in(server: ServerProcess) -> None:
    response = send(server.url, "POST", "/api/users/", None, body({"username": "Zoë-2", "password": "pw"}))
    assert response.status_code == 200 and response.json() == {"username": "Zoë-2"}
    assert requests.get(f"{server.url}/api/invitations/", auth=("Zoë-2", "pw"), timeout=10).status_code == 200


def test_a_user_who_is_not_a_player_gets_403(server: ServerProcess) -> None:
    game = started_game(server.url)
    for endpoint in ("color", "game_status", "seconds_left"):
        response = requests.get(f"{server.url}{game}/{endpoint}", auth=C, timeout=10)
        assert response.status_code == 403 and "not a player" in response.json()["error"]
    assert send(server.url, "POST", f"{game}/resign", C, b"{}").status_code == 403
    assert requests.get(f"{server.url}{game}/color", auth=(C[0], "wrong"), timeout=10).status_code == 401


def test_open_invitations_per_inviter_are_capped(server: ServerProcess) -> None:
    for _ in range(8):
        invite(server.url, A, B[0], inviter_color=chess.WHITE)
    ninth = send(server.url, "POST", "/api/invitations/", A, body({"opponent": "bob", "color": True}))
    assert ninth.status_code == 429 and "not accepted" not in ninth.text
    assert "invitations nobody has accepted" in ninth.json()["error"]
    # Someone else can still invite; accepting frees a slot.
    invite(server.url, C, B[0], inviter_color=chess.WHITE)
    accept_all(server.url, B)
    invite(server.url, A, B[0], inviter_color=chess.WHITE)


def test_an_invitation_never_accepted_is_not_a_loss(tmp_path: Path) -> None:
    extra = [*SHORT, "--ready-timeout", "5"]  # time enough for alice's ready on a busy machine
    with ServerProcess(tmp_path / "ready.sqlite3", users=[A, B, C], extra=extra) as server:
        url = server.url
        ignored = invite(url, A, B[0], inviter_color=chess.WHITE)
        accepted = invite(url, A, C[0], inviter_color=chess.WHITE)
        accept_all(url, C)  # carol accepts but never gets ready
        for game_id in (ignored, accepted):
            assert send(url, "POST", f"/api/games/{game_id}/ready", A, b"{}").status_code == 200
        deadline = time.monotonic() + 40
        rows: dict[int, Any] = {}
        while time.monotonic() < deadline and len(rows) < 2:
            for game_id in (ignored, accepted):
                row = requests.get(f"{url}/api/games/{game_id}", auth=A, timeout=10).json()
                if row["status"] not in ("pending", "playing"):
                    rows[game_id] = row
            time.sleep(0.3)
        assert rows[ignored]["status"] == "aborted" and rows[ignored]["winner_color"] is None
        assert "bob did not accept the invitation" in rows[ignored]["note"]
        assert (rows[accepted]["status"], rows[accepted]["winner_color"]) == ("finished", True)
        assert rows[accepted]["win_reason"] == "TIMEOUT"
        assert requests.get(f"{url}/api/invitations/", auth=B, timeout=10).json() == {"invitations": []}
