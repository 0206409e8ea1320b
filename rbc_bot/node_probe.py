"""What a cluster node has: Python, Ray, this project (version and code fingerprint) and Stockfish.

``probe`` runs on every node (``cluster-check``, and before the first game of a ``--ray`` run). It is
sent to the node *by value* (``rbc_bot.cluster`` registers this module with Ray's cloudpickle), so it
still answers on a node that lacks the project: that is the node it must name. Hence only standard
library imports at module level, and ``rbc_bot`` imported inside ``probe``.
"""

from __future__ import annotations

import hashlib
import platform
import socket
import sys
from pathlib import Path
from typing import Any


def code_fingerprint(package_dir: Path) -> str:
    """A short hash of every ``.py`` file of the package: two nodes with the same fingerprint play
    the same code, whatever version number they claim (a checkout with local edits included)."""
    digest = hashlib.sha256()
    for path in sorted(package_dir.rglob("*.py")):
        digest.update(str(path.relative_to(package_dir)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def probe() -> dict[str, Any]:
    """This node's host name, Python, Ray, rbc_bot and Stockfish, each with the problem if missing."""
    info: dict[str, Any] = {
        "host": socket.gethostname(),
        "python": platform.python_version(),
        "ray": sys.modules["ray"].__version__ if "ray" in sys.modules else None,
        "rbc_bot": None,
        "code": None,
        "stockfish": None,
        "stockfish_path": None,
        "problems": [],
    }
    try:
        import rbc_bot

        info["rbc_bot"] = rbc_bot.__version__
        info["code"] = code_fingerprint(Path(rbc_bot.__file__).parent)
    except Exception as exc:  # any import failure means the node cannot play
        info["problems"].append(f"no rbc_bot ({type(exc).__name__}: {exc})")
        return info
    try:
        from rbc_bot.engine import EnginePool, find_stockfish

        path = find_stockfish(None)
        info["stockfish_path"] = str(path)
        with EnginePool(path, workers=1, timeout=10.0) as pool:
            info["stockfish"] = pool.name
    except Exception as exc:  # not found, or does not speak UCI
        info["problems"].append(f"no working Stockfish ({type(exc).__name__}: {exc})")
    return info
