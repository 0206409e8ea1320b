"""``--ray [ADDRESS]`` and ``--cpus-per-game``: the flags that send a command's games to a Ray cluster.

Shared by ``match``, ``tournament`` and ``gauntlet``. Nothing here imports Ray: without ``--ray`` the
tool never does, and with it a missing Ray is one error line (``rbc_bot.cluster.import_ray``).
"""

from __future__ import annotations

import argparse
import contextlib
from typing import Any

LOCAL = "local"  # rbc_bot.cluster.LOCAL, repeated so that --help never imports the cluster module


def add_ray_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--ray",
        nargs="?",
        const=LOCAL,
        default=None,
        metavar="ADDRESS",
        help="play every game as a task on a Ray cluster: auto, HOST:PORT or ray://HOST:10001; bare "
        "--ray starts Ray on this machine (put it after the bots, or write --ray=ADDRESS). Needs pip "
        "install -e '.[cluster]'. --jobs is then ignored: the cluster's CPUs decide",
    )
    parser.add_argument(
        "--cpus-per-game",
        type=float,
        default=None,
        metavar="N",
        help="CPUs each game reserves on the cluster (default: each rbc_bot's engine.workers plus 1 "
        "for each other bot)",
    )


def backend_from_args(args: argparse.Namespace) -> contextlib.AbstractContextManager[Any]:
    """A context manager giving the backend to play on: None (this machine) without ``--ray``, else
    a connected ``RayBackend``; ValueError (a usage error) for a flag that makes no sense."""
    if args.ray is None:
        if args.cpus_per_game is not None:
            raise ValueError("--cpus-per-game needs --ray")
        return contextlib.nullcontext(None)
    from rbc_bot.cluster import RayBackend

    return RayBackend(args.ray, args.cpus_per_game)
