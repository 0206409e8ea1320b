"""Fake UCI engines for the engine tests: shell scripts that stand in for Stockfish where a test needs
an engine that is missing, broken, scripted, dying, hung or spinning."""

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


def hung_engine(directory: Path) -> Path:
    """A UCI engine that starts normally and never answers a search (blocked on its input)."""
    return fake_engine(
        directory,
        "hangfish",
        """while read line; do
  case "$line" in
    uci) echo "id name Hangfish"; echo uciok;;
    isready) echo readyok;;
    quit) exit 0;;
  esac
done""",
    )


def spinning_engine(directory: Path) -> Path:
    """A UCI engine that starts normally and, given a search, spins on the CPU without answering."""
    return fake_engine(
        directory,
        "spinfish",
        """while read line; do
  case "$line" in
    uci) echo "id name Spinfish"; echo uciok;;
    isready) echo readyok;;
    go*) while :; do :; done;;
    quit) exit 0;;
  esac
done""",
    )
