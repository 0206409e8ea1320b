"""Matches through a real Ray cluster on 127.0.0.1 (2 CPUs), started here and stopped after.

One ``ray start --head`` serves the whole module (it takes tens of seconds to start on 2 busy cores);
the commands connect to it by address, as they would to a cluster. Its workers see this checkout
through PYTHONPATH, as every node of a real cluster has the project installed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from reconchess import GameHistory

import rbc_bot.cluster as cluster
from rbc_bot import node_probe
from rbc_bot.cli import main

ROOT = Path(__file__).parent.parent
BOTS = Path(__file__).parent / "bots"
TASK_TITLE = b"ray::game-"
"""What a Ray worker calls itself (its command line) while it plays a game (the task's name)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_head(log_path: Path, temp_dir: Path) -> tuple[subprocess.Popen[bytes], int]:
    """``ray start --head --block`` with 2 CPUs on a free port, once it says the runtime started.

    Ray gives its raylet 30 s to register, a limit a loaded 2-core machine can miss: a head that
    exits during start-up is tried again, twice, on other ports.
    """
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    ray_bin = Path(sys.executable).with_name("ray")
    for _ in range(3):
        port = free_port()
        command = [str(ray_bin), "start", "--head", "--block", "--num-cpus", "2", "--port", str(port)]
        command += ["--node-ip-address", "127.0.0.1", "--include-dashboard", "false"]
        command += ["--disable-usage-stats", "--temp-dir", str(temp_dir)]
        # Fixed agent ports: with port 0 the raylet waits at most ~15 s for each agent to write its
        # port to a file, and gives up (the whole head with it) on a loaded machine.
        for flag in ("dashboard-agent-listen", "dashboard-agent-grpc", "runtime-env-agent", "metrics-export"):
            command += [f"--{flag}-port", str(free_port())]
        with log_path.open("ab") as log:
            process = subprocess.Popen(command, env=env, start_new_session=True, stdout=log, stderr=log)
        deadline = time.monotonic() + 180
        try:
            while process.poll() is None and time.monotonic() < deadline:
                if b"Ray runtime started" in log_path.read_bytes():
                    return process, port
                time.sleep(0.2)
        except BaseException:  # Ctrl-C while it starts: its session runs on in the background
            stop_head(process)
            raise
        stop_head(process)
    raise AssertionError(f"the Ray head did not start three times: see {log_path}")


def stop_head(process: subprocess.Popen[bytes]) -> None:
    """Stop the head's session (``ray start`` leads it: every Ray process of this cluster)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(10)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(10)


@pytest.fixture(scope="module")
def head(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, int]]:
    """(address, session id) of a Ray head with 2 CPUs; every test of the module shares it. Its
    processes, Ray's workers included, are in the session ``ray start`` leads."""
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_USAGE_STATS_ENABLED")}
    os.environ.update(RAY_AUTH_MODE="disabled", RAY_USAGE_STATS_ENABLED="0")  # driver and head agree
    try:
        log_path = tmp_path_factory.getbasetemp() / "ray-head.log"
        process, port = start_head(log_path, tmp_path_factory.mktemp("ray"))
        try:
            yield f"127.0.0.1:{port}", process.pid
        finally:
            stop_head(process)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def load_summary(out: Path) -> dict[str, Any]:
    return json.loads((out / "summary.json").read_text())


def result_lines(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]


def replay_files(out: Path) -> list[Path]:
    return sorted(p for p in out.glob("*.json") if p.name not in ("summary.json", "match.json"))


def taken_moves(replay: str) -> list[str | None]:
    history = GameHistory.from_file(replay)
    return [None if m is None else m.uci() for m in history.collect(history.taken_move, history.turns())]


SAME = ("index", "pair", "a_color", "white", "black", "seed", "winner", "reason", "plies", "crashed")


def test_match_through_ray_gives_the_local_records_and_resumes(head: tuple[str, int], tmp_path: Path) -> None:
    """Random and attacker are deterministic given the seed: the same games, move for move. The Ray
    match is played in two runs, the second a ``--resume`` that must play only the missing games."""
    address, _ = head
    common = ["random", "attacker", "--seconds", "20", "--increment", "0", "--seed", "5"]
    assert main(["match", *common, "--games", "4", "--jobs", "2", "--out", str(tmp_path / "local")]) == 0
    out, ray = tmp_path / "ray", ["--jobs", "2", "--ray", address, "--cpus-per-game", "1"]
    started = time.monotonic()
    assert main(["match", *common, "--games", "2", *ray, "--out", str(out)]) == 0
    print(f"2 games through Ray: {time.monotonic() - started:.1f} s (with the first connection)")
    first = load_summary(out)["games"]
    assert main(["match", "--resume", str(out), "--games", "4", *ray]) == 0
    local, remote = load_summary(tmp_path / "local"), load_summary(out)
    assert remote["games"][:2] == first  # the finished games were not played again
    assert local.keys() == remote.keys() and local["match"] == remote["match"]
    assert local["totals"] == remote["totals"]
    assert [g.keys() for g in local["games"]] == [g.keys() for g in remote["games"]]
    assert [[g[k] for k in SAME] for g in local["games"]] == [[g[k] for k in SAME] for g in remote["games"]]
    assert sorted(r["index"] for r in result_lines(out)) == [0, 1, 2, 3]
    for mine, theirs in zip(local["games"], remote["games"], strict=True):
        assert Path(theirs["replay"]).parent == out  # written by the driver
        assert taken_moves(theirs["replay"]) == taken_moves(mine["replay"])
    assert len(replay_files(out)) == 4


def test_our_bot_turn_logs_and_config_file_come_back(head: tuple[str, int], tmp_path: Path) -> None:
    address, _ = head
    config = tmp_path / "one_worker.toml"
    config.write_text("[engine]\nworkers = 1\n")
    out = tmp_path / "m"
    argv = ["match", "rbc_bot", "random", "--a-config", str(config), "--games", "2", "--seconds", "10"]
    argv += ["--increment", "0", "--seed", "2", "--ray", address, "--out", str(out)]
    assert main(argv) == 0  # default reservation: 1 (engine.workers from the file) + 1 for random
    games = load_summary(out)["games"]
    assert len(games) == 2 and all(g["crashed"] is None for g in games)
    for game in games:
        (log,) = game["turn_logs"].values()
        assert Path(log).parent == out and log == game["replay"] + ".turns.jsonl"
        turns = [json.loads(line) for line in Path(log).read_text().splitlines()]
        ours = (game["plies"] + (game["a_color"] == "white")) // 2
        assert ours - 1 <= len(turns) <= ours  # one line per turn of ours (the last may be cut by the end)


def test_crash_and_hang_are_results_through_ray(head: tuple[str, int], tmp_path: Path) -> None:
    address, _ = head
    out = tmp_path / "t"
    argv = ["tournament", "random", str(BOTS / "crash_bot.py"), str(BOTS / "hang_bot.py")]
    argv += ["--games-per-pair", "2", "--seconds", "1", "--increment", "0", "--watchdog-margin", "1"]
    assert main([*argv, "--ray", address, "--cpus-per-game", "1", "--out", str(out)]) == 0
    summary = load_summary(out)
    assert len(summary["games"]) == 6 and len(result_lines(out)) == 6
    names = [b["name"] for b in summary["bots"]]
    hang = names.index("hang_bot")
    hung = [g for g in summary["games"] if g["reason"] == "HANG"]
    assert len(hung) == 4 and all(hang in (g["white_bot"], g["black_bot"]) for g in hung)
    assert summary["bots"][names.index("crash_bot")]["crashes"] > 0


def test_sprt_stop_cancels_the_remaining_games(
    head: tuple[str, int], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    address, session = head
    cancelled: list[int] = []
    cancel = cluster.RayBackend.cancel

    def counted(self: cluster.RayBackend, refs: list[Any]) -> None:
        cancelled.append(len(refs))
        cancel(self, refs)

    monkeypatch.setattr(cluster.RayBackend, "cancel", counted)
    out = tmp_path / "m"
    argv = ["match", "attacker", "random", "--games", "40", "--seconds", "20", "--increment", "0"]
    argv += ["--sprt", "0", "100", "--alpha", "0.4", "--beta", "0.4", "--seed", "1"]
    assert main([*argv, "--ray", address, "--cpus-per-game", "1", "--out", str(out)]) == 0
    summary = load_summary(out)
    assert summary["totals"]["sprt"]["decision"] in ("H0", "H1") and summary["totals"]["games"] < 40
    assert len(result_lines(out)) == summary["totals"]["games"]
    assert len(replay_files(out)) == summary["totals"]["games"]  # cancelled games leave no file
    assert task_processes(session) == {}, "a cancelled game is still being played"
    assert len(cancelled) == 1 and cancelled[0] >= 1  # games were still submitted: all cancelled


def test_stop_after_hands_the_cluster_no_more_games(
    head: tuple[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Past the limit the driver submits nothing more; the games the cluster holds (a window of 4 on
    this 2-CPU head) finish and are kept. Each game lasts over 2 s (the slow bot hears its first 5 move
    results for 0.4 s each), so in 12 s at most 4 + 12 of the 20 are ever submitted."""
    address, session = head
    out = tmp_path / "m"
    argv = ["match", str(BOTS / "slow_result_bot.py"), "random", "--games", "20", "--seconds", "20"]
    argv += ["--increment", "0", "--stop-after", "0.2", "--ray", address, "--cpus-per-game", "1"]
    assert main([*argv, "--out", str(out)]) == 0
    played = result_lines(out)
    assert 1 <= len(played) < 20
    assert all(r["reason"] is not None for r in played) and len(replay_files(out)) == len(played)
    assert task_processes(session) == {}, "a game is still being played after the run ended"
    assert f"{len(played)} of 20 games played" in " ".join(capsys.readouterr().out.split())


def task_processes(session: int) -> dict[int, str]:
    """Ray workers of the test's cluster (its session) playing a game right now: pid -> task name."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if os.getsid(int(entry.name)) != session:
                continue
            title = (entry / "cmdline").read_bytes().split(b"\0")[0]
        except OSError:
            continue
        if title.startswith(TASK_TITLE):
            found[int(entry.name)] = title.decode()
    return found


def test_a_killed_worker_costs_one_retried_game(head: tuple[str, int], tmp_path: Path) -> None:
    """SIGKILL the worker playing the first game, a second into it (seen playing it before and after
    that second, with no game finished): the game can only be finished by a second run, which the
    match records once."""
    address, session = head
    out = tmp_path / "m"
    killed: list[str] = []
    done = threading.Event()

    def kill_first_game() -> None:
        while not done.is_set():
            busy = task_processes(session)
            if busy and not (out / "results.jsonl").exists():
                pid, title = min(busy.items())
                time.sleep(1.0)  # inside the game: the slow bot alone takes 2 s over its first results
                if task_processes(session).get(pid) == title and not (out / "results.jsonl").exists():
                    os.kill(pid, signal.SIGKILL)
                    killed.append(title)
                    return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_first_game)
    killer.start()
    argv = ["match", str(BOTS / "slow_result_bot.py"), "random", "--games", "2", "--seconds", "20"]
    try:
        code = main([*argv, "--increment", "0", "--ray", address, "--cpus-per-game", "2", "--out", str(out)])
    finally:
        done.set()
        killer.join()
    assert code == 0 and len(killed) == 1, "no game was seen in flight to kill"
    index = int(killed[0].removeprefix(TASK_TITLE.decode()))
    indices = [r["index"] for r in result_lines(out)]
    assert sorted(indices) == [0, 1] and indices.count(index) == 1  # played again, recorded once
    assert len(replay_files(out)) == 2 and load_summary(out)["totals"]["games"] == 2


def test_sigterm_stops_a_ray_match_like_a_local_one(head: tuple[str, int], tmp_path: Path) -> None:
    """A killed ``match --ray`` (SIGTERM, as from ``kill``) keeps its finished games, cancels the ones in
    flight and exits 130 with no traceback, as a local match does: Ray's own SIGTERM handler, installed
    when the driver connects, must not replace ours."""
    address, session = head
    out = tmp_path / "m"
    command = [sys.executable, str(ROOT / "run_bot.py"), "match", "random", "random", "--games", "200"]
    command += ["--seconds", "20", "--increment", "0", "--ray", address, "--cpus-per-game", "1"]
    command += ["--out", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Only stderr is read: a piped stdout nobody reads could fill and stall the match's progress output.
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    results = out / "results.jsonl"
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not results.exists() or len(results.read_text().splitlines()) < 2):
        time.sleep(0.05)
    process.send_signal(signal.SIGTERM)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130, stderr.decode()[-2000:]
    assert b"Traceback" not in stderr and b"Stack (most recent call first)" not in stderr, stderr[-2000:]
    finished = result_lines(out)
    assert 2 <= len(finished) < 200
    assert len(replay_files(out)) == len(finished)  # games in flight were dropped, not half-written
    deadline = time.monotonic() + 30
    while task_processes(session) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert task_processes(session) == {}, "a game of the stopped match is still being played"


def test_cluster_check_reports_each_node(head: tuple[str, int], capsys: pytest.CaptureFixture[str]) -> None:
    address, _ = head
    assert main(["cluster-check", address]) == 0
    out = capsys.readouterr().out
    assert "1 node" in out and cluster.driver_fingerprint() in out and "Stockfish" in out


def test_a_game_bigger_than_any_node_stops_before_playing(
    head: tuple[str, int], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ray would queue a task no node can hold for ever: the run says so and plays nothing."""
    address, _ = head
    argv = ["match", "random", "random", "--games", "2", "--ray", address, "--cpus-per-game", "3"]
    assert main([*argv, "--out", str(tmp_path / "m")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "reserves 3 CPUs but the largest Ray node has 2" in err[0]
    assert not (tmp_path / "m" / "results.jsonl").exists()


def test_probe_names_what_a_node_lacks(monkeypatch: pytest.MonkeyPatch) -> None:
    report = node_probe.probe()
    assert report["problems"] == [] and report["code"] == cluster.driver_fingerprint()
    monkeypatch.setitem(sys.modules, "rbc_bot.engine", None)  # as on a node without Stockfish's helper
    report = node_probe.probe()
    assert report["stockfish"] is None and "no working Stockfish" in report["problems"][0]


@pytest.mark.parametrize("address", ["127.0.0.1:{free}", "ray://127.0.0.1:{free}"])
def test_unreachable_address_fails_in_seconds_with_one_line(
    address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    started = time.monotonic()
    out = tmp_path / "m"
    argv = ["match", "random", "random", "--games", "2", "--ray", address.format(free=free_port())]
    assert main([*argv, "--out", str(out)]) == 2
    assert time.monotonic() - started < cluster.CONNECT_TIMEOUT + 5
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("rbc-bot: error: --ray ") and "cannot reach" in err[0]
    assert not out.exists()


def test_without_ray_installed_ray_is_one_line(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray raises ImportError
    for command in (
        ["match", "random", "random"],
        ["tournament", "random", "random"],
        ["gauntlet", "--only", "random"],
    ):
        assert main([*command, "--ray", "--out", str(tmp_path / command[0])]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"rbc-bot: error: {cluster.RAY_MISSING}"]
    assert main(["cluster-check"]) == 2
    assert capsys.readouterr().err.strip() == f"rbc-bot: error: {cluster.RAY_MISSING}"


def test_a_local_match_never_imports_ray(tmp_path: Path) -> None:
    argv = ["match", "random", "random", "--games", "2", "--seconds", "5", "--out", str(tmp_path)]
    code = f"import sys; from rbc_bot.cli import main; assert main({argv!r}) == 0; "
    code += "assert 'ray' not in sys.modules, 'ray was imported'"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, capture_output=True, timeout=120)
