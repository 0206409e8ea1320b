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


def silent_engine(directory: Path, name: str, on_go: str = "") -> Path:
    """A UCI engine called ``name`` that starts normally and never answers a search: on ``go`` it runs
    the shell command ``on_go``, or nothing (then it waits, blocked on its input)."""
    go = f"\n    go*) {on_go};;" if on_go else ""
    return fake_engine(
        directory,
        name.lower(),
        f"""while read line; do
  case "$line" in
    uci) echo "id name {name}"; echo uciok;;
    isready) echo readyok;;{go}
    quit) exit 0;;
  esac
done""",
    )


def hung_engine(directory: Path) -> Path:
    """A UCI engine that never answers a search, blocked on its input."""
    return silent_engine(directory, "Hangfish")


def spinning_engine(directory: Path) -> Path:
    """A UCI engine that, given a search, spins on the CPU without answering."""
    return silent_engine(directory, "Spinfish", on_go="while :; do :; done")
