"""The leaderboard page in a real headless browser (Debian chromium): standings render, names are escaped."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from html.parser import HTMLParser
from pathlib import Path

import pytest
import requests
from server_helpers import ServerProcess

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None)
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
XSS = "<script>alert(1)</script>"
A = ("alice", "pw-a")


class Tables(HTMLParser):
    """The text of every table cell, by table and row; and every element name seen."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[list[list[str]]] = []
        self.tags: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.tables[-1][-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def dump_dom(url: str, profile: Path) -> str:
    assert CHROMIUM is not None
    cmd = [CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "<html" in result.stdout, result.stderr[-2000:]
    return result.stdout


def post(url: str, auth: tuple[str, str] | None, obj: object) -> requests.Response:
    return requests.post(url, data=json.dumps(obj), auth=auth, timeout=10)


@pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary (Debian package: chromium)")
def test_leaderboard_page_renders_standings_and_escapes_names(tmp_path: Path) -> None:
    extra = ["--ladder", "--ladder-interval", "0.5"]
    with ServerProcess(tmp_path / "board.sqlite3", users=[A], extra=extra) as server:
        url = server.url
        xss = (XSS, "pw-x")
        assert post(f"{url}/api/users/", None, {"username": XSS, "password": "pw-x"}).json() == {
            "username": XSS
        }
        for auth in (A, xss):  # one game at a time each, so the ladder pairs them once
            assert post(f"{url}/api/users/me/max_games", auth, {"max_games": 1}).status_code == 200
            assert post(f"{url}/api/users/me/ranked", auth, {"ranked": True}).status_code == 200
        deadline = time.monotonic() + 30
        invitations: list[int] = []
        while not invitations and time.monotonic() < deadline:
            requests.get(f"{url}/api/invitations/", auth=xss, timeout=10)  # stay "connected"
            invitations = requests.get(f"{url}/api/invitations/", auth=A, timeout=10).json()["invitations"]
            time.sleep(0.2)
        assert invitations, "the ladder never paired the two ranked users"
        game_id = requests.post(f"{url}/api/invitations/{invitations[0]}", auth=A, timeout=10).json()[
            "game_id"
        ]
        for auth in (A, xss):  # unrank both, so the ladder pairs no second game
            assert post(f"{url}/api/users/me/ranked", auth, {"ranked": False}).status_code == 200
        assert requests.post(f"{url}/api/games/{game_id}/error_resign", auth=A, timeout=10).status_code == 200

        parser = Tables()
        parser.feed(dump_dom(f"{url}/", tmp_path / "chromium-profile"))
    assert "script" not in parser.tags, "a user name became a <script> element"
    standings, games = parser.tables[0], parser.tables[1]
    assert standings[0][:4] == ["#", "bot", "version", "Elo"]
    first, second = standings[1], standings[2]
    assert first[:2] == ["1", XSS] and second[:2] == ["2", A[0]]
    assert float(first[3]) > 1500 > float(second[3])
    assert first[4:] == ["1", "1", "0", "0"] and second[4:] == ["1", "0", "1", "0"]  # games, won, lost, drawn
    (row,) = [row for row in games[1:] if int(row[0]) == game_id]
    assert (
        XSS in row[1:3]
        and A[0] in row[1:3]
        and row[3:6] == ["ranked", "finished", "black" if row[1] == A[0] else "white"]
    )
