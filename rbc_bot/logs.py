"""Logging set-up shared by every command: rich on a terminal, plain lines otherwise."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


def configure_logging(verbosity: int = 0, log_file: Path | None = None) -> None:
    """Log WARNING (0), INFO (1) or DEBUG (2+) to stderr, and everything at INFO+ to ``log_file``."""
    level = logging.WARNING if verbosity <= 0 else logging.INFO if verbosity == 1 else logging.DEBUG
    handlers: list[logging.Handler] = []
    if sys.stderr.isatty():
        from rich.logging import RichHandler

        handlers.append(RichHandler(level=level, show_path=False))
    else:
        stream = logging.StreamHandler()
        stream.setLevel(level)
        stream.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handlers.append(stream)
    if log_file is not None:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        file_handler = logging.FileHandler(log_file)
        file_handler.setLevel(logging.INFO)
        file_handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        handlers.append(file_handler)
    root = logging.getLogger()
    root.handlers = handlers
    root.setLevel(min(h.level for h in handlers))
