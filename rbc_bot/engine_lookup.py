"""Where the Stockfish binary is: ``--stockfish`` > ``$STOCKFISH_EXECUTABLE`` > the repository's
``stockfish_bin/stockfish`` > ``stockfish`` on PATH > ``/usr/games/stockfish``.
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path

logger = logging.getLogger(__name__)

ENV_VAR = "STOCKFISH_EXECUTABLE"
REPO_DIR = Path(__file__).resolve().parent.parent
BUNDLED_PATH = REPO_DIR / "stockfish_bin" / "stockfish"
SYSTEM_PATH = Path("/usr/games/stockfish")
INSTALL_HINT = (
    "install it with `sudo sh stockfish_bin/install.sh` (or `apt-get install -y stockfish` as root)"
)


class StockfishNotFoundError(RuntimeError):
    """No usable Stockfish binary; the message names every place looked and how to install one."""


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def find_stockfish(explicit: str | os.PathLike[str] | None = None) -> Path:
    """The Stockfish binary to use: ``explicit`` (``--stockfish``) > ``$STOCKFISH_EXECUTABLE`` >
    ``<repo>/stockfish_bin/stockfish`` > ``stockfish`` on PATH > ``/usr/games/stockfish``.

    An explicit path that is not executable is an error (the user asked for that one); a bad environment
    variable is only a warning, because it is often left over from another tool (reconchess's TroutBot
    reads the same variable).
    """
    if explicit is not None:
        given = Path(explicit)
        if _is_executable(given):
            return given
        on_path = shutil.which(str(explicit)) if os.sep not in str(explicit) else None
        if on_path:
            return Path(on_path)
        raise StockfishNotFoundError(
            f"--stockfish {str(explicit)!r}: no executable file there; {INSTALL_HINT}, "
            f"or pass the path of a Stockfish binary"
        )
    looked: list[str] = []
    env_value = os.environ.get(ENV_VAR)
    if env_value:
        if _is_executable(Path(env_value)):
            return Path(env_value)
        logger.warning("$%s=%r is not an executable file; looking elsewhere", ENV_VAR, env_value)
        looked.append(f"${ENV_VAR} ({env_value}: not an executable file)")
    else:
        looked.append(f"${ENV_VAR} (not set)")
    if _is_executable(BUNDLED_PATH):
        return BUNDLED_PATH
    looked.append(str(BUNDLED_PATH))
    on_path = shutil.which("stockfish")
    if on_path:
        return Path(on_path)
    looked.append("`stockfish` on PATH")
    if _is_executable(SYSTEM_PATH):
        return SYSTEM_PATH
    looked.append(str(SYSTEM_PATH))
    raise StockfishNotFoundError(
        f"Stockfish not found; looked at: {', '.join(looked)}. To fix: {INSTALL_HINT}, "
        f"set ${ENV_VAR}, drop a binary at {BUNDLED_PATH}, or pass --stockfish PATH"
    )
