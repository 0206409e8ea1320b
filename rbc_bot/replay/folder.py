"""``analyze FOLDER``: every game in a folder, ``jobs`` at a time, with its progress on stderr.

A folder of a long match holds hundreds of games and each takes from seconds to minutes, so the run
says how far it is: a rich progress bar on a terminal, one line per finished game otherwise (a log
file, CI), both on stderr so that stdout keeps the summaries. With ``jobs`` above 1 the games are
analysed in worker processes (the re-simulation is numpy and Python: threads would share one core),
each opening its own engines per game.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn, TimeElapsedColumn

from rbc_bot.replay.analysis import Options, analyse
from rbc_bot.replay.load import ReplayError, load_game
from rbc_bot.replay.report import write_game

if TYPE_CHECKING:
    from rbc_bot.replay.analysis import Engines

SKIP_NAMES = {"summary.json", "aggregate.json", "match.json"}  # our own outputs, not games


@dataclass
class Done:
    """One game of the folder analysed (``summary`` and its report ``folder``) or refused (``error``)."""

    index: int
    path: Path
    folder: Path
    summary: dict[str, Any] | None = None
    error: str | None = None


def find_games(folder: Path, out: Path) -> list[Path]:
    """Every ``*.json`` under ``folder`` except our own outputs."""
    out = out.resolve()
    found = []
    for path in sorted(folder.rglob("*.json")):
        if path.name in SKIP_NAMES or out in path.resolve().parents:
            continue
        found.append(path)
    return found


def report_folders(games: list[Path], out: Path) -> list[Path]:
    """Each game's report folder, ``out/<stem>``, a ``_`` appended while the name is taken."""
    used: set[str] = set()
    folders = []
    for path in games:
        name = path.stem
        while name in used:
            name += "_"
        used.add(name)
        folders.append(out / name)
    return folders


def analyse_one(
    index: int, path: Path, folder: Path, options: Options, engines: Engines | None = None
) -> Done:
    """Load, analyse and write one game's report; a bad file is a ``Done`` with its error."""
    try:
        game = load_game(path)
    except ReplayError as exc:
        return Done(index, path, folder, error=str(exc).removeprefix(f"{path}: "))
    return Done(index, path, folder, summary=write_game(analyse(game, options, engines), folder))


def analyse_games(
    games: list[Path], out: Path, options: Options, jobs: int = 1, engines: Engines | None = None
) -> Iterator[Done]:
    """Each game as it is done: in order with ``engines`` shared when ``jobs`` is 1, else in the order
    the ``jobs`` worker processes finish them (each opening one-worker engines of its own)."""
    folders = report_folders(games, out)
    if jobs == 1:
        for index, (path, folder) in enumerate(zip(games, folders, strict=True)):
            yield analyse_one(index, path, folder, options, engines)
        return
    options = replace(options, engine_workers=1)  # jobs x engines already fill the cores
    # spawn, not fork: the parent has threads (the progress bar's), which fork does not copy safely.
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
        futures = [
            pool.submit(analyse_one, index, path, folder, options)
            for index, (path, folder) in enumerate(zip(games, folders, strict=True))
        ]
        for future in as_completed(futures):
            yield future.result()


class FolderProgress:
    """Games done out of ``total`` on ``stream`` (stderr): a rich bar on a terminal, else one line
    per game, ``analysed 3/10: PATH``."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.total = total
        self.done = 0
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        if self.stream.isatty():
            self.bar = Progress(
                TextColumn("[bold]analysed"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                TextColumn("{task.description}"),
                console=Console(file=self.stream),
            )

    def __enter__(self) -> FolderProgress:
        if self.bar is not None:
            self.bar.start()
            self.task = self.bar.add_task("", total=self.total)
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self.bar is not None:
            self.bar.stop()

    def advance(self, path: Path) -> None:
        self.done += 1
        if self.bar is not None and self.task is not None:
            self.bar.update(self.task, completed=self.done, description=path.name)
        else:
            print(f"analysed {self.done}/{self.total}: {path}", file=self.stream, flush=True)
