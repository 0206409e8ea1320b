"""One Stockfish process driven over raw UCI pipes, with a deadline on every read.

Raw pipes rather than ``chess.engine``: Python CPU, not Stockfish, bounds depth-1 searches, and the raw
pipe is several times faster (``benchmarks/engine.py`` measures the pool against python-chess's
``SimpleEngine`` on the same boards). Searches are pipelined: up to ``PIPELINE_WINDOW`` are in flight.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import itertools
import logging
import os
import select
import subprocess
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from rbc_bot.deadline import Deadline

logger = logging.getLogger(__name__)

MATE_SCORE = 20_000
"""Mate in n is ``MATE_SCORE - 100 * n`` for the side to move; being mated in n is the negative."""

PIPELINE_WINDOW = 64
"""Searches in flight per engine: commands are ~100 bytes, so writes never block on a full pipe. The
window is refilled when half of it has been answered, in one write: one system call per 32 searches."""
FIRST_WRITE = 4
"""Searches in a call's first write: the engine starts at once, while the FENs of the rest of the
window are built (writes then double until the window is full)."""
READ_NAP = (0.0005, 0.005)
"""Seconds to wait before reading while more than half the window is in flight: four searches' time
(as measured in the call so far) within these bounds. The engine has 32 searches queued then, so it
never waits, and a read that finds a few searches' output rather than one line saves the system calls
and thread switches that take CPU from the engines on a busy machine."""
_BOUNDS = ("lowerbound", "upperbound")


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
        words = line.split()
        if len(words) < 4 or words[0] != "info" or "score" not in words:
            return
        at = words.index("score")
        if at + 2 >= len(words) or words[at + 1] not in ("cp", "mate") or not _is_int(words[at + 2]):
            return
        kind, value = words[at + 1], int(words[at + 2])
        bound = at + 3 < len(words) and words[at + 3] in _BOUNDS
        rank = int(words[words.index("multipv") + 1]) if "multipv" in words else 1
        # A node limit can stop the search on a fail-low/high line ("upperbound -110" at move 1):
        # a bound never replaces an exact score already seen for that line.
        if bound and rank in self.exact:
            return
        if not bound:
            self.exact.add(rank)
        score = score_to_cp(kind, value)
        if rank == 1:
            self.score = score
        if "pv" in words:
            pv = words.index("pv") + 1
            if pv < len(words):
                self.lines[rank] = (words[pv], score)


def _is_int(text: str) -> bool:
    return text.removeprefix("-").isdigit()


def parse_search(output: str, multipv: int) -> SearchResult:
    """The result of one search from its output (the lines before ``bestmove``). With one line
    (MultiPV 1) the result is the last exact score line when it has a PV, so the output is searched
    backwards for it and only that line is parsed: a node-limited search prints a dozen info lines,
    and often ends on a bound."""
    result = SearchResult()
    end = len(output)
    while multipv == 1 and (at := output.rfind(" score ", 0, end)) >= 0:
        start = output.rfind("\n", 0, at) + 1
        stop = output.find("\n", at)
        line = output[start:] if stop < 0 else output[start:stop]
        if "bound" not in line:
            if " pv " not in line:
                break  # an exact score without a PV: an earlier line's PV may count
            result.add(line)
            return result
        end = start
    for line in output.split("\n"):
        if " score " in line:
            result.add(line)
    return result


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

    def readline(self, deadline: Deadline) -> str:
        """The next output line; :class:`EngineFailure` past ``deadline``."""
        while not self._lines:
            text = self._read(deadline)
            self._lines.extend(line.rstrip("\r") for line in text.split("\n")[:-1])
        return self._lines.popleft()

    def _read(self, deadline: Deadline) -> str:
        """The complete lines of the next reads (at least one line, each ending in a newline); a
        partial line waits for the next read. Reads are large: MultiPV output comes in 64 KB reads.
        An answer already in the pipe when the deadline passes is still taken: a stall of our own
        process is not the engine's."""
        while True:
            left = deadline.left()
            ready, _, _ = select.select([self._out], [], [], left)
            if not ready:
                if left <= 0:
                    raise EngineFailure(deadline.describe(), timed_out=True)
                continue
            chunk = os.read(self._out, 65536)
            if not chunk:
                raise EngineFailure(f"engine closed its output (exit code {self.proc.poll()})")
            data = self._partial + chunk
            cut = data.rfind(b"\n") + 1
            self._partial = data[cut:]
            if cut:
                return data[:cut].decode(errors="replace")

    def _lines_until(self, prefix: str) -> list[str]:
        deadline = Deadline(self.pid, self.timeout)
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
        fens: Iterable[str],
        go: str,
        done: Callable[[int, SearchResult], None],
        timeout: float | None = None,
        patience: float | None = None,
    ) -> None:
        """Search every FEN with ``go``, pipelined, calling ``done(i, result)`` in order; raises
        :class:`EngineFailure` at the first one that fails (results before it have been delivered).
        Each search may take ``timeout`` seconds (default: the process's ``timeout``) from the end of
        the one before it, and the call's searches may wait ``patience`` seconds more in all while the
        engine is kept from a CPU (:class:`~rbc_bot.deadline.Deadline`). ``fens`` is consumed as the
        window has room, so a generator's FENs are built while the engine searches the ones before
        them."""
        timeout = self.timeout if timeout is None else timeout
        pending = iter(fens)
        in_flight = index = 0
        more = True
        output = "".join(line + "\n" for line in self._lines)  # lines read before the search
        self._lines.clear()
        started = time.monotonic()
        deadline = Deadline(self.pid, timeout, patience)
        while True:
            while more and in_flight <= PIPELINE_WINDOW // 2:
                # A short first write starts the engine while the rest of the window's FENs are built.
                room = min(PIPELINE_WINDOW - in_flight, max(FIRST_WRITE, in_flight))
                commands = [f"position fen {fen}\n{go}" for fen in itertools.islice(pending, room)]
                more = len(commands) == room
                if commands:
                    self.send("\n".join(commands))
                    in_flight += len(commands)
            if not in_flight:
                break
            if in_flight > PIPELINE_WINDOW // 2:
                per_search = (time.monotonic() - started) / index if index else 0.0
                time.sleep(min(max(4 * per_search, READ_NAP[0]), READ_NAP[1]))
            *finished, output = self._outputs(output, deadline)
            for text in finished:
                done(index, parse_search(text, self.multipv))
                index += 1
            in_flight -= len(finished)
            deadline = Deadline(self.pid, timeout, deadline.patience - deadline.extended)
        self._lines.extend(output.split("\n")[:-1])

    def _outputs(self, text: str, deadline: Deadline) -> list[str]:
        """Read on from ``text`` until a search has ended: the output of every ended search (its lines
        before ``bestmove``), then the lines after the last ``bestmove`` line. Whole reads are split
        at once, so a read holding many searches costs a few string operations, not a loop per line."""
        while True:
            text += self._read(deadline)
            *outputs, rest = text.split("bestmove")
            if outputs:
                return [*outputs, rest[rest.index("\n") + 1 :]]

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
