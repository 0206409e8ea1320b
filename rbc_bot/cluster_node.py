"""What runs on a cluster node for ``--ray`` (rbc_bot.cluster): each game's task checks that the node
plays as the driver would (the same rbc_bot code, every bot loading, Stockfish starting), makes the
bots' seats import this copy of rbc_bot, and plays the game into a temporary folder whose replay and
turn logs it returns to the driver.
"""

from __future__ import annotations

import os
import socket
import tempfile
import zlib
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

from rbc_bot import node_probe
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import GameJob, PlaySettings, play_job


class NodeSetupError(RuntimeError):
    """A node cannot play this game as the driver would (other code, a bot or Stockfish missing)."""


@cache
def driver_fingerprint() -> str:
    return node_probe.code_fingerprint(Path(__file__).parent)


_READY: set[BotSpec] = set()
"""Bot specs this worker process has checked already (a check starts Stockfish once)."""


def check_node(specs: list[tuple[BotSpec, BotSpec]], fingerprint: str) -> None:
    """Refuse to play a game this node would play differently from the driver: other rbc_bot code, a
    bot that does not load or a Stockfish that does not start. A bot that fails to load in a game
    loses it, so without this a misconfigured node would quietly hand the games to the other side.
    ``specs`` pairs each bot as the driver named it (the cache key) with its copy on this node."""
    host = socket.gethostname()
    here = driver_fingerprint()  # on the node: the node's own code
    if here != fingerprint:
        raise NodeSetupError(
            f"node {host}: rbc_bot code {here} differs from the driver's {fingerprint}; "
            "install the same commit on every node (python run_bot.py cluster-check)"
        )
    for key, spec in specs:
        if key in _READY:
            continue
        try:
            spec.validate()
        except BotSpecError as exc:
            raise NodeSetupError(f"node {host}: {exc}") from None
        _READY.add(key)


def pin_code_path() -> None:
    """Make the bots' seats import the rbc_bot this worker runs (the one ``check_node`` checked).

    Seats are forked from a multiprocessing forkserver, which on Python 3.11 ignores this process's
    ``sys.path``: a worker that found rbc_bot through its working directory (a checkout beside an
    installed copy) had seats import the installed copy, whose games then crashed on the other side.
    PYTHONPATH, which the forkserver inherits, puts this copy first.
    """
    root = str(Path(__file__).resolve().parent.parent)
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != root]
    os.environ["PYTHONPATH"] = os.pathsep.join([root, *paths])


def play_task(
    job: GameJob, settings: PlaySettings, files: dict[str, str], fingerprint: str
) -> dict[str, Any]:
    """One game on a node (the Ray task): checked, played into a temporary folder, its files returned."""
    pin_code_path()
    with tempfile.TemporaryDirectory(prefix="rbc-ray-") as tmp:
        folder = Path(tmp)

        def local(spec: BotSpec, n: int) -> BotSpec:
            if not spec.config_file:
                return spec
            path = folder / f"config-{n}.toml"
            path.write_text(files[spec.config_file])
            return replace(spec, config_file=str(path))

        here = replace(job, white=local(job.white, 0), black=local(job.black, 1))
        check_node([(job.white, here.white), (job.black, here.black)], fingerprint)
        record = play_job(here, replace(settings, out_dir=folder))
        if record is None:  # pragma: no cover - play_job without a stop event always plays
            raise RuntimeError("game aborted")
        replay = zlib.compress(Path(record["replay"]).read_bytes())
        logs = {
            c: zlib.compress(Path(p).read_bytes()) for c, p in record["turn_logs"].items() if Path(p).exists()
        }
    return {"record": record, "files": {"replay": replay, "turn_logs": logs}}
