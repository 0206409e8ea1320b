"""The board viewer of report.html in a real headless Chromium (Debian's ``chromium`` package).

The browser is driven over the Chrome DevTools protocol on a pipe (``--remote-debugging-pipe``: no
port, no extra Python package): the test loads the report of a real game of our bot, clicks the
buttons, presses the arrow keys and reads what the page shows. Skipped only when no Chromium is
installed (CI installs it: ``apt-get install -y chromium``).

Run as a script it takes a screenshot of a report:
``python tests/test_replay_viewer.py REPORT.html OUT.png [STEPS]`` (STEPS: right-arrow presses, or
``decisive`` for the decisive turn).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import chess
import pytest
from reconchess import LocalGame, play_local_game
from reconchess.bots.random_bot import RandomBot

CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)


class Browser:
    """A headless Chromium and one page, spoken to in DevTools protocol messages (JSON, NUL-ended)."""

    def __init__(self, executable: str, width: int = 1400, height: int = 1000) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()

        def wire_pipes() -> None:  # Chromium reads commands on fd 3 and writes replies on fd 4
            high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)
            high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self._profile = tempfile.mkdtemp(prefix="rbc-chromium-")
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
        flags += ["--disable-dev-shm-usage"]  # containers often have a tiny /dev/shm
        flags += ["--disable-background-networking", "--disable-component-update", "--disable-sync"]
        self.process = subprocess.Popen(
            [
                executable,
                *flags,
                "--remote-debugging-pipe",
                f"--user-data-dir={self._profile}",
                "about:blank",
            ],
            preexec_fn=wire_pipes,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        try:
            target = self.call("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
            for domain in ("Page", "Runtime", "Network"):
                self.call(f"{domain}.enable", session=True)
            metrics = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False}
            self.call("Emulation.setDeviceMetricsOverride", session=True, **metrics)
        except BaseException:
            self.close()  # no Chromium left behind when it could not be set up
            raise

    def call(self, method: str, session: bool = False, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._read()
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return dict(reply.get("result", {}))
            self.events.append(reply)

    def _read(self) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError("Chromium closed the DevTools pipe")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(line))

    def open(self, url: str, timeout: float = 30.0) -> None:
        self.call("Page.navigate", session=True, url=url)
        deadline = time.monotonic() + timeout
        while self.js("document.readyState") != "complete":
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url} did not load in {timeout} s")
            time.sleep(0.05)

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click (pressed and released) at the centre of the element."""
        box = self.js(
            f"(function(){{var r=document.querySelector({json.dumps(selector)}).getBoundingClientRect();"
            "return [r.left + r.width / 2, r.top + r.height / 2];})()"
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.call(
                "Input.dispatchMouseEvent",
                session=True,
                type=kind,
                x=box[0],
                y=box[1],
                button="left",
                clickCount=1,
            )

    def key(self, name: str, code: int) -> None:
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent",
                session=True,
                type=kind,
                key=name,
                code=name,
                windowsVirtualKeyCode=code,
            )

    def screenshot(self, path: Path) -> None:
        data = self.call("Page.captureScreenshot", session=True, format="png", captureBeyondViewport=False)[
            "data"
        ]
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        try:
            self.call("Browser.close")
            self.process.wait(10)
        except (RuntimeError, OSError, subprocess.TimeoutExpired):
            self.process.kill()
            self.process.wait(10)
        os.close(self._to_chrome)
        os.close(self._from_chrome)
        shutil.rmtree(self._profile, ignore_errors=True)


def shown(browser: Browser) -> dict[str, Any]:
    """What the viewer shows now."""
    return dict(
        browser.js(
            "({label: document.getElementById('v-label').textContent,"
            " position: document.getElementById('v-position').textContent,"
            " move: document.getElementById('v-move').textContent,"
            " index: document.getElementById('viewer').getAttribute('data-index'),"
            " trueSvg: document.getElementById('v-true').innerHTML,"
            " viewSvg: document.getElementById('v-view').innerHTML,"
            " facts: document.getElementById('v-facts').textContent,"
            " candidates: document.getElementById('v-candidates').textContent,"
            " windows: document.querySelectorAll('#v-view svg rect.sense-window').length,"
            " resources: performance.getEntriesByType('resource').length})"
        )
    )


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any], Path]:
    """A short real game of our bot (White, with its turn log) against RandomBot, analysed."""
    from rbc_bot.cli import main
    from rbc_bot.players import BotSpec

    folder = tmp_path_factory.mktemp("viewer")
    replay = folder / "ours.json"
    ours = BotSpec("rbc_bot").create(turn_log_path=str(folder / (replay.name + ".turns.jsonl")))
    random.seed(21)
    game = LocalGame(seconds_per_player=40, seconds_increment=0, full_turn_limit=6)  # turns of ~1 s
    play_local_game(ours, RandomBot(), game=game)[2].save(replay)
    out = folder / "analysis"
    argv = ["analyze", str(replay), "--out", str(out), "--engine-nodes", "2000", "--belief-nodes", "1000"]
    assert main([*argv, "--belief-boards", "6", "--brief"]) == 0
    return out / "report.html", json.loads((out / "summary.json").read_text()), replay


def _pieces(svg: str) -> dict[str, int]:
    """Pieces drawn in a chess.svg board, by colour (each piece is a <use> of a piece definition)."""
    return {color: svg.count(f'xlink:href="#{color}-') for color in ("white", "black")}


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (apt-get install -y chromium)")
def test_viewer_steps_through_the_turns_in_a_real_browser(report: tuple[Path, dict[str, Any], Path]) -> None:
    from rbc_bot.replay.load import load_game

    page, summary, replay = report
    history = load_game(replay).history
    rows = [r for r in summary["per_turn"] if r["color"] == "white" and r["taken"] != "-"]
    truths = [history.truth_board_before_move(t) for t in history.turns(chess.WHITE) if history.has_move(t)]
    assert len(rows) == len(truths) >= 3
    browser = Browser(str(CHROMIUM))
    try:
        browser.open(page.resolve().as_uri())
        first = shown(browser)
        assert first["label"] == "white turn 0" and first["position"] == f"1 / {len(rows)}"
        assert first["move"].startswith(f"requested {rows[0]['requested']}, taken {rows[0]['taken']}")
        # The true board holds every piece; the player's view only its own, with its sense window.
        assert _pieces(first["trueSvg"]) == {"white": 16, "black": 16}
        assert _pieces(first["viewSvg"]) == {"white": 16, "black": 0}
        assert first["windows"] == (1 if rows[0]["sense"] else 0)
        assert f"sense: {rows[0]['sense']} (rule: " in first["facts"]

        browser.click("#v-next")
        second = shown(browser)
        assert second["label"] == "white turn 1" and second["position"] == f"2 / {len(rows)}"
        assert second["move"].startswith(f"requested {rows[1]['requested']}")
        assert second["trueSvg"] != first["trueSvg"]  # White's first move (and Black's) are on it
        browser.key("ArrowRight", 39)
        third = shown(browser)
        assert third["label"] == "white turn 2"
        expected = truths[2].piece_map().values()
        assert _pieces(third["trueSvg"]) == {
            "white": sum(p.color == chess.WHITE for p in expected),
            "black": sum(p.color == chess.BLACK for p in expected),
        }
        log = [
            json.loads(line)
            for line in replay.with_name(replay.name + ".turns.jsonl").read_text().splitlines()
        ]
        # The bot's own candidates when it scored some (a king capture taken at once has none).
        candidates = log[2]["candidates"]
        expected_text = candidates[0]["move"] or "pass" if candidates else "best moves on the believed boards"
        assert expected_text in third["candidates"]
        assert f"(rule: {log[2]['sense_rule']})" in third["facts"]
        browser.key("ArrowLeft", 37)
        assert shown(browser)["label"] == "white turn 1"

        browser.click("#v-last")
        last = shown(browser)
        assert last["position"] == f"{len(rows)} / {len(rows)}" and browser.js(
            "document.getElementById('v-next').disabled"
        )
        browser.key("ArrowRight", 39)  # past the end: stays
        assert shown(browser)["position"] == last["position"]
        browser.click("#v-decisive")
        start = int(browser.js("document.getElementById('viewer').getAttribute('data-start')"))
        assert shown(browser)["index"] == str(start)
        decisive = summary["decisive"]
        if decisive is not None and decisive["color"] == "white":
            assert shown(browser)["label"] == f"white turn {decisive['turn']}"
        # Self-contained: nothing was fetched besides the page itself.
        assert shown(browser)["resources"] == 0
        fetched = [
            e["params"]["request"]["url"]
            for e in browser.events
            if e.get("method") == "Network.requestWillBeSent"
        ]
        assert fetched and all(url.startswith(("file:", "data:")) for url in fetched)
    finally:
        browser.close()


def main(argv: list[str]) -> int:
    """``REPORT.html OUT.png [STEPS]``: open a report, step right STEPS times, save a screenshot."""
    if CHROMIUM is None:
        print("error: chromium is not installed", file=sys.stderr)
        return 1
    browser = Browser(CHROMIUM, width=1280, height=820)
    try:
        browser.open(Path(argv[0]).resolve().as_uri())
        steps = argv[2] if len(argv) > 2 else "0"
        if steps == "decisive":
            browser.click("#v-decisive")
        for _ in range(0 if steps == "decisive" else int(steps)):
            browser.key("ArrowRight", 39)
        browser.js("document.getElementById('viewer').scrollIntoView()")
        browser.screenshot(Path(argv[1]))
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


def test_sense_window_outline_covers_the_3x3_window() -> None:
    from rbc_bot.replay.viewer import window_outline

    # chess.svg: 45 px squares after a 15 px margin; White at the bottom, rank 8 on top.
    centre = window_outline(chess.E4, chess.WHITE)  # d3..f5: from file d (x 150), rank 5 (y 150)
    assert 'x="152" y="152" width="131" height="131"' in centre
    corner = window_outline(chess.A1, chess.WHITE)  # a1..b2 only: clipped to the board
    assert 'x="17" y="287" width="86" height="86"' in corner
    flipped = window_outline(chess.A1, chess.BLACK)  # Black at the bottom: a1 is top right
    assert 'x="287" y="17" width="86" height="86"' in flipped


def test_a_move_chosen_on_the_passive_watch_is_said_so(report: tuple[Path, dict[str, Any], Path]) -> None:
    from rbc_bot.replay.viewer import _facts

    _, summary, _ = report
    row = next(r for r in summary["per_turn"] if r["color"] == "white" and r["taken"] != "-")
    assert not any("passive watch" in fact for fact in _facts(row)), "this game's log never used it"
    watched = _facts({**row, "passive_boards": 1})
    assert any("chosen on the passive watch's 1 board(s) only" in fact for fact in watched)


def test_a_better_request_on_the_believed_boards_is_named(report: tuple[Path, dict[str, Any], Path]) -> None:
    from rbc_bot.replay.viewer import _facts

    _, summary, _ = report
    row = next(r for r in summary["per_turn"] if r["expected_loss"] is not None and r["alternative"] is None)
    assert not any("asked for instead" in fact for fact in _facts(row))
    better = _facts({**row, "alternative": "d1a4", "alternative_loss": 12.0})
    assert any("; asked for instead, d1a4 lost 12 cp there" in fact for fact in better)
