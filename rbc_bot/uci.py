"""One Stockfish process driven over raw UCI pipes, with a deadline on every read.

Raw pipes rather than ``chess.engine``: Python CPU, not Stockfish, bounds depth-1 searches, and the raw
pipe is several times faster (``benchmarks/engine.py`` measures the pool against python-chess's
``SimpleEngine`` on the same boards). Searches are pipelined: up to ``PIPELINE_WINDOW`` are in flight.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import os
import re
import select
import subprocess
import time
from collections.abc import Callable, Sequence
from pathlib import Path

logger = logging.getLogger(__name__)

MATE_SCORE = 20_000
"""Mate in n is ``MATE_SCORE - 100 * n`` for the side to move; being mated in n is the negative."""

_INFO_RE = re.compile(
    r"info .*?(?: multipv (\d+))? score (cp|mate) (-?\d+)( lowerbound| upperbound)?(?:.*? pv (\S+))?"
)
"""An info line with a score: MultiPV rank, score kind and value, bound, first move of the PV."""
PIPELINE_WINDOW = 32
"""Searches in flight per engine: commands are ~100 bytes, so writes never block on a full pipe."""


def score_to_cp(kind: str, value: int) -> float:
    """Map a UCI score (``cp`` or ``mate``) to centipawns for the side to move.

    ``mate n`` (n > 0) is ``MATE_SCORE - 100 n``; ``mate -n`` and ``mate 0`` (already mated) are negative.
    """
    if kind == "cp":
        return float(value)
    if kind != "mate":
        raise ValueError(f"unknown UCI score kind {kind!r} (expected 'cp' or 'mate')")
    if value > 0:
        return float(MATE_SCORE - 100 * value)
    return float(-(MATE_SCORE - 100 * -value))


def go_command(nodes: int | None, depth: int | None, movetime: float | None = None) -> str:
    """The UCI ``go`` line; ``movetime`` (seconds) stops a deep search early (first limit reached wins)."""
    if nodes is None and depth is None:
        depth = 1
    parts = ["go"]
    if movetime is not None:
        if movetime <= 0:
            raise ValueError(f"movetime must be > 0, got {movetime}")
        parts.append(f"movetime {max(1, round(movetime * 1000))}")
    if depth is not None:
        if depth < 1:
            raise ValueError(f"depth must be >= 1, got {depth}")
        parts.append(f"depth {depth}")
    if nodes is not None:
        if nodes < 1:
            raise ValueError(f"nodes must be >= 1, got {nodes}")
        parts.append(f"nodes {nodes}")
    return " ".join(parts)


class EngineFailure(Exception):
    """The process died, closed its pipe or missed the deadline (``timed_out`` tells which)."""

    def __init__(self, message: str, timed_out: bool = False) -> None:
        super().__init__(message)
        self.timed_out = timed_out


@dataclasses.dataclass
class SearchResult:
    """One parsed search result: the last score line, and the last move/score per MultiPV index."""

    score: float | None = None
    lines: dict[int, tuple[str, float]] = dataclasses.field(default_factory=dict)
    exact: set[int] = dataclasses.field(default_factory=set)

    def add(self, line: str) -> None:
        """Take in one output line of the search (lines without a score are ignored)."""
        info = _INFO_RE.match(line)
        if info is None:
            return
        multipv, kind, value, bound, pv = info.groups()
        rank = int(multipv) if multipv else 1
        # A node limit can stop the search on a fail-low/high line ("upperbound -110" at move 1):
        # a bound never replaces an exact score already seen for that line.
        if bound and rank in self.exact:
            return
        if not bound:
            self.exact.add(rank)
        score = score_to_cp(kind, int(value))
        if rank == 1:
            self.score = score
        if pv is not None:
            self.lines[rank] = (pv, score)


class UciProcess:
    """One Stockfish process driven over raw pipes, with a deadline on every read (``timeout`` seconds
    for the start-up handshake and, unless a search is given its own, for each search)."""

    def __init__(self, path: Path, hash_mb: int, timeout: float) -> None:
        self.path = path
        self.timeout = timeout
        self.multipv = 1
        self._partial = b""
        self._lines: collections.deque[str] = collections.deque()
        self.proc = subprocess.Popen(
            [str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, bufsize=0
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in = self.proc.stdin.fileno()
        self._out = self.proc.stdout.fileno()
        self.name = ""
        try:
            self.send("uci")
            for line in self._lines_until("uciok"):
                if line.startswith("id name "):
                    self.name = line[len("id name ") :]
            self.send(f"setoption name Threads value 1\nsetoption name Hash value {hash_mb}")
            self.sync()
        except EngineFailure:
            self.kill()  # not a UCI engine, or a broken one: leave no process behind
            raise

    @property
    def pid(self) -> int:
        return self.proc.pid

    def send(self, text: str) -> None:
        try:
            data = (text + "\n").encode()
            while data:
                data = data[os.write(self._in, data) :]
        except OSError as exc:
            raise EngineFailure(f"writing to the engine failed: {exc}") from exc

    def readline(self, deadline: float, timeout: float | None = None) -> str:
        """The next output line; :class:`EngineFailure` past ``deadline`` (``timeout`` is for the
        message). Whole reads are split into lines at once: MultiPV output comes in 64 KB reads."""
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineFailure(f"no answer within {timeout or self.timeout:g} s", timed_out=True)
            ready, _, _ = select.select([self._out], [], [], left)
            if ready:
                chunk = os.read(self._out, 65536)
                if not chunk:
                    raise EngineFailure(f"engine closed its output (exit code {self.proc.poll()})")
                *complete, self._partial = (self._partial + chunk).split(b"\n")
                self._lines.extend(line.decode(errors="replace").rstrip("\r") for line in complete)
        return self._lines.popleft()

    def _lines_until(self, prefix: str) -> list[str]:
        deadline = time.monotonic() + self.timeout
        lines = []
        while True:
            line = self.readline(deadline)
            lines.append(line)
            if line.startswith(prefix):
                return lines

    def sync(self) -> None:
        self.send("isready")
        self._lines_until("readyok")

    def set_multipv(self, k: int) -> None:
        if k != self.multipv:
            self.send(f"setoption name MultiPV value {k}")
            self.multipv = k

    def new_game(self) -> None:
        """Clear hash and histories, so that the same searches give the same scores."""
        self.send("ucinewgame")
        self.sync()

    def search(
        self,
        fens: Sequence[str],
        go: str,
        done: Callable[[int, SearchResult], None],
        timeout: float | None = None,
    ) -> None:
        """Search every FEN with ``go``, pipelined, calling ``done(i, result)`` in order; raises
        :class:`EngineFailure` at the first one that fails (results before it have been delivered).
        Each search may take ``timeout`` seconds (default: the process's ``timeout``) from the end of
        the one before it."""
        timeout = self.timeout if timeout is None else timeout
        sent = 0
        for index in range(len(fens)):
            while sent < len(fens) and sent - index < PIPELINE_WINDOW:
                self.send(f"position fen {fens[sent]}\n{go}")
                sent += 1
            result = SearchResult()
            deadline = time.monotonic() + timeout
            while True:
                line = self.readline(deadline, timeout)
                if line.startswith("bestmove"):
                    break
                result.add(line)
            done(index, result)

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def quit(self) -> None:
        with contextlib.suppress(EngineFailure):
            self.send("quit")
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            logger.warning("engine pid %d did not quit; killing it", self.proc.pid)
        self.kill()
