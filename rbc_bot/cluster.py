"""Games on a Ray cluster: one Ray task per game, records written on the driver (``--ray``).

Why Ray: an SPRT that tells +5 Elo from 0 needs thousands of games, more than one machine plays in a
day, and Ray is the engine clusters already run (``ray start --head``, ``ray start --address=...``).

Each game is one task (``rbc_bot.cluster_node``) that reserves the CPUs its two bots use and runs
``runner.play_job`` on the node: the same ``play_game``, each bot in its own process, the same crash,
hang and flag handling.
Nodes share no file system with the driver, so the task plays into a temporary folder and returns the
replay and turn logs, which the driver writes into its ``--out`` folder before the record is
appended. A worker or node that dies mid-game costs that game only: Ray runs the task again
elsewhere (``MAX_RETRIES``) and the driver, which alone writes records, counts it once. When the run
stops (SPRT decided, Ctrl-C), tasks not started are cancelled and games in flight are cancelled too
(interrupted on their node, their processes closed): they are not recorded, as in a local run.

Ray is optional (``pip install -e '.[cluster]'``): it is imported only when a backend connects.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import sys
import tempfile
import threading
import time
import types
import zlib
from collections import deque
from collections.abc import Callable, Generator, Iterator
from functools import cache
from pathlib import Path
from typing import Any

from rbc_bot import node_probe
from rbc_bot.cluster_node import driver_fingerprint, play_task
from rbc_bot.players import BotSpec
from rbc_bot.runner import BackendError, GameJob, PlaySettings

log = logging.getLogger(__name__)

LOCAL = "local"
"""The ``--ray`` address (also what a bare ``--ray`` means) that starts a Ray instance on this machine."""
RAY_MISSING = (
    "--ray needs Ray, an optional extra: pip install -e '.[cluster]' (or pip install 'ray[default]')"
)
CONNECT_TIMEOUT = 5.0
"""Seconds to wait for the cluster's port before calling the address unreachable."""
PROBE_TIMEOUT = 120.0
MAX_RETRIES = 3
"""Times Ray plays a game again after its worker or node died (a bot's crash is a result, not retried)."""
CANCEL_GRACE = 15.0
"""Seconds cancelled games get to close their bot processes before the driver disconnects."""


def import_ray() -> types.ModuleType:
    """The ``ray`` module, or a ValueError (one line, exit status 2) saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ValueError(RAY_MISSING) from exc
    return ray


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail in seconds, with one line, when nothing listens at ``HOST:PORT`` or ``ray://HOST:PORT``
    (``ray.init`` itself may retry for a minute); ``auto`` and ``local`` are left to Ray."""
    if address in ("auto", LOCAL):
        return
    hostport = address.removeprefix("ray://")
    host, sep, port = hostport.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ValueError(f"--ray {address}: expected auto, HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else exc.strerror or type(exc).__name__
        raise ValueError(
            f"--ray {address}: cannot reach the Ray cluster ({reason}); start it with "
            f"'ray start --head' or check the address"
        ) from exc


def connect(address: str) -> tuple[types.ModuleType, bool]:
    """Connect to (or, for ``local``, start) Ray; ValueError with one line if that fails.

    Returns the module and whether this call initialised Ray (a caller that connected already, a
    notebook say, keeps its connection).
    """
    ray = import_ray()
    if ray.is_initialized():
        return ray, False
    check_reachable(address)
    options: dict[str, Any] = {"logging_level": logging.WARNING}
    if address == LOCAL:
        options["include_dashboard"] = False
    with quiet_stderr() as failed:
        try:
            ray.init(address=address, **options)
        except Exception as exc:
            failed.set()
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[-1]
            raise ValueError(f"--ray {address}: cannot connect to Ray: {first}") from exc
    return ray, True


@contextlib.contextmanager
def quiet_stderr() -> Iterator[threading.Event]:
    """Hold back what Ray's C++ core writes to file descriptor 2 while it connects: shown afterwards
    on success, dropped once the caller sets the event it is given (a failure: one error line then,
    not a screen of gRPC retries)."""
    failed = threading.Event()
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        try:
            yield failed
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            if not failed.is_set():
                held.seek(0)
                os.write(2, held.read())


def probe_nodes(ray: types.ModuleType, timeout: float = PROBE_TIMEOUT) -> list[dict[str, Any]]:
    """``node_probe.probe`` on every live node at once (no CPU reserved, so busy nodes answer too),
    with each node's address and CPUs; a node whose probe fails or times out says so in ``problems``."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    ray.cloudpickle.register_pickle_by_value(node_probe)  # answers on a node without the project
    task = ray.remote(num_cpus=0, max_retries=0)(node_probe.probe)
    nodes = [n for n in ray.nodes() if n.get("Alive")]
    refs = [
        task.options(scheduling_strategy=NodeAffinitySchedulingStrategy(n["NodeID"], soft=False)).remote()
        for n in nodes
    ]
    ray.wait(refs, num_returns=len(refs), timeout=timeout)
    reports = []
    for node, ref in zip(nodes, refs, strict=True):
        base = {"node": node.get("NodeManagerAddress"), "cpus": node.get("Resources", {}).get("CPU", 0)}
        try:
            info = ray.get(ref, timeout=0.1)
        except Exception as exc:
            cause = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
            info = {"host": None, "problems": [f"no answer ({cause})"]}
        report = {**base, **info}
        if report.get("code") is not None and report["code"] != driver_fingerprint():
            report["problems"].append(
                f"rbc_bot code {report['code']} differs from the driver's {driver_fingerprint()}"
            )
        reports.append(report)
    return reports


def node_name(report: dict[str, Any]) -> str:
    return f"{report.get('host') or '?'} ({report['node']})"


@cache
def bot_cpus(spec: BotSpec) -> int:
    """CPUs one seat uses: our bot's Stockfish processes (``engine.workers``), one for any other bot."""
    return int(spec.config().engine.workers) if spec.is_ours else 1


@cache
def needs_stockfish(spec: BotSpec) -> bool:
    return (spec.is_ours and not spec.config().engine.material_only) or spec.spec == "trout"


class RayBackend:
    """A ``runner.Backend`` on a Ray cluster; use as a context manager (connects, then disconnects).

    ``cpus_per_game`` (``--cpus-per-game``) is what every game reserves; None reserves each game's
    own need: our bot's ``engine.workers`` plus one CPU for any other bot.
    """

    def __init__(self, address: str = LOCAL, cpus_per_game: float | None = None) -> None:
        if cpus_per_game is not None and not cpus_per_game > 0:
            raise ValueError(f"--cpus-per-game must be > 0: {cpus_per_game:g}")
        self.address = address
        self.cpus_per_game = cpus_per_game
        self.ray: Any = None
        self._owned = False
        self._checked: set[bool] = set()
        self._task: Any = None

    def __enter__(self) -> RayBackend:
        started = time.monotonic()
        self.ray, self._owned = connect(self.address)
        self._task = self.ray.remote(max_retries=MAX_RETRIES, retry_exceptions=False)(play_task)
        log.info("connected to Ray (%s) in %.1f s", self.address, time.monotonic() - started)
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._owned:
            self.ray.shutdown()
        self.ray = None

    def cpus_for(self, job: GameJob) -> float:
        if self.cpus_per_game is not None:
            return self.cpus_per_game
        return float(bot_cpus(job.white) + bot_cpus(job.black))

    def check(self, jobs: list[GameJob]) -> None:
        """Before the first game: every node can play these games (code, Stockfish), and some node has
        the CPUs a game reserves (Ray would otherwise wait for ever). ValueError names the problem."""
        stockfish = any(needs_stockfish(s) for job in jobs for s in (job.white, job.black))
        if stockfish not in self._checked:
            reports = probe_nodes(self.ray)
            bad = [
                f"{node_name(r)}: {'; '.join(p for p in r['problems'] if stockfish or 'Stockfish' not in p)}"
                for r in reports
                if any(stockfish or "Stockfish" not in p for p in r["problems"])
            ]
            if bad:
                raise ValueError(f"node {bad[0]}" + (f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""))
            self._checked.add(stockfish)
        largest = max((n["Resources"].get("CPU", 0) for n in self.ray.nodes() if n.get("Alive")), default=0)
        need = max((self.cpus_for(job) for job in jobs), default=0)
        if need > largest:
            raise ValueError(
                f"a game reserves {need:g} CPUs but the largest Ray node has {largest:g}: "
                "lower --cpus-per-game or engine.workers"
            )

    def window(self, cpus: float) -> int:
        """Games submitted at once: twice what the cluster runs, so nodes never idle and an SPRT stop
        has few queued tasks to cancel (recomputed as games end: nodes may join or leave)."""
        total = self.ray.cluster_resources().get("CPU", 0)
        return max(1, 2 * int(total // cpus))

    def records(
        self,
        jobs: list[GameJob],
        settings: PlaySettings,
        stop: threading.Event,
        keep: Callable[[dict[str, Any]], None],
        drain: threading.Event,
    ) -> Generator[dict[str, Any], None, None]:
        """See ``runner.Backend``. Once ``drain`` is set no further game is handed to the cluster; the
        ones it holds (up to ``window``, some maybe not yet started) play to their end."""
        if not jobs:
            return
        self.check(jobs)
        files = config_files(jobs)
        least = min(self.cpus_for(job) for job in jobs)
        queue = deque(jobs)
        pending: dict[Any, GameJob] = {}
        try:
            while (queue and not drain.is_set()) or pending:
                limit = self.window(least)
                while queue and len(pending) < limit and not drain.is_set():
                    job = queue.popleft()
                    task = self._task.options(num_cpus=self.cpus_for(job), name=f"game-{job.index}")
                    pending[task.remote(job, settings, files, driver_fingerprint())] = job
                ready, _ = self.ray.wait(list(pending), num_returns=1, timeout=1.0)
                if stop.is_set():
                    return
                for ref in ready:
                    record = self.land(pending.pop(ref), ref, settings.out_dir)
                    keep(record)
                    yield record
        finally:
            self.cancel(list(pending))

    def land(self, job: GameJob, ref: Any, out_dir: Path) -> dict[str, Any]:
        """The finished game's record, its files written into ``out_dir``; BackendError if it failed."""
        exceptions = self.ray.exceptions
        try:
            result = self.ray.get(ref)
        except exceptions.RayTaskError as exc:
            cause = getattr(exc, "cause", None) or exc
            raise BackendError(f"game {job.index}: {type(cause).__name__}: {cause}") from None
        except exceptions.RayError as exc:
            raise BackendError(
                f"game {job.index} was lost on the cluster {MAX_RETRIES + 1} times: {type(exc).__name__}"
            ) from None
        return land_files(result, out_dir)

    def cancel(self, refs: list[Any]) -> None:
        """Cancel games not finished (interrupting those in flight) and give them a moment to close their
        bot processes; they are not recorded."""
        if not refs:
            return
        # Only games still running are cancelled: in Ray 2.x a cancel racing the reply of a task that
        # just finished can fail a check inside Ray and end the driver (ray-project/ray#54260).
        _, running = self.ray.wait(refs, num_returns=len(refs), timeout=0)
        for ref in running:
            try:
                self.ray.cancel(ref, force=False)
            except Exception as exc:  # already finished, or the cluster is gone
                log.debug("cancel: %s", exc)
        self.ray.wait(refs, num_returns=len(refs), timeout=CANCEL_GRACE)
        log.info("cancelled %d games not finished", len(refs))


def config_files(jobs: list[GameJob]) -> dict[str, str]:
    """The TOML config files the jobs name, read here: nodes do not share the driver's files."""
    paths = {s.config_file for job in jobs for s in (job.white, job.black) if s.config_file}
    try:
        return {path: Path(path).read_text() for path in sorted(paths)}
    except OSError as exc:
        raise ValueError(f"cannot read a bot config file: {exc}") from exc


def land_files(result: dict[str, Any], out_dir: Path) -> dict[str, Any]:
    """Write a task's replay and turn logs into ``out_dir`` (a fresh name if one is taken) and point
    the record at them."""
    record = dict(result["record"])
    old_replay = record["replay"]
    stem = Path(old_replay).name.removesuffix(".json")
    for n in range(10_000):
        target = out_dir / (f"{stem}.json" if n == 0 else f"{stem}-r{n}.json")
        try:
            with target.open("xb") as fp:
                fp.write(zlib.decompress(result["files"]["replay"]))
            break
        except FileExistsError:
            continue
    logs = {}
    for color, path in record["turn_logs"].items():
        new_path = str(target) + path[len(old_replay) :]
        data = result["files"]["turn_logs"].get(color)
        if data is not None:
            Path(new_path).write_bytes(zlib.decompress(data))
        logs[color] = new_path
    record.update(replay=str(target), turn_logs=logs)
    return record
