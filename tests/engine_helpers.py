"""Fake UCI engines for the engine tests: shell scripts that stand in for Stockfish where a test needs
an engine that is missing, broken, scripted, dying or hung."""

from __future__ import annotations

import stat
from pathlib import Path


def fake_engine(directory: Path, name: str = "stockfish", body: str = "exit 0") -> Path:
    """An executable shell script ``directory/name`` running ``body`` (the directory is created)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path
