"""Stockfish for many short evaluations: a pool of engines that keeps the game going.

The pool (:class:`EnginePool`) scores batches of boards on one engine process per core (the binary is
found by :mod:`rbc_bot.engine_lookup`, each process driven by :mod:`rbc_bot.uci`). Boards the
engine can't take are scored without it (:mod:`rbc_bot.engine_safety`); a dead engine is restarted; a
search that overruns its time (derived from the search's ``movetime``, so from the turn's budget) counts
as hung. An engine that can't be restarted, or that hangs twice in a row, puts the pool into material
scoring for the rest of its life (one game), so the bot keeps choosing real moves in time.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path

import chess

from rbc_bot.closing import Closing
from rbc_bot.engine_lookup import StockfishNotFoundError, find_stockfish
from rbc_bot.engine_safety import (
    KING_CAPTURE_SCORE,
    can_capture_king,
    engine_fen,
    engine_safe_board,
    fallback_score,
    fallback_top_moves,
    king_capture_moves,
    safe_fen,
)
from rbc_bot.uci import MATE_SCORE, EngineFailure, SearchResult, UciProcess, go_command

__all__ = [  # re-exported: rbc_bot.move, .players, .replay, .commands and the benchmarks import these here
    "KING_CAPTURE_SCORE",
    "MATE_SCORE",
    "EngineError",
    "EnginePool",
    "EngineStats",
    "StockfishNotFoundError",
    "can_capture_king",
    "engine_fen",
    "engine_safe_board",
    "fallback_score",
    "fallback_top_moves",
    "find_stockfish",
    "king_capture_moves",
    "safe_fen",
]

logger = logging.getLogger(__name__)

MAX_MULTIPV = 500
"""Stockfish's MultiPV maximum (a larger value would be ignored); more than any position's move count."""

SEARCH_TIMEOUT_FACTOR = 2.0
SEARCH_TIMEOUT_SLACK = 0.5
"""A search given ``movetime`` m counts as hung after ``2 m + 0.5`` s (never past the pool's timeout),
plus the time its engine was kept waiting for a CPU (:mod:`rbc_bot.deadline`): Stockfish stops within
milliseconds of its movetime, so only a hung engine overruns by that much, and a hung engine then costs
the turn about a second, not the pool's timeout."""


class EngineError(RuntimeError):
    """The engines could not be started (a broken binary, not a bad board), or the pool is closed."""


@dataclasses.dataclass
class EngineStats:
    """Counters for the per-turn log: calls to the pool, engine searches, boards scored without the
    engine, engine restarts, engines given up (hung twice in a row, or not restartable), and wall
    seconds spent in calls."""

    calls: int = 0
    searches: int = 0
    fallbacks: int = 0
    restarts: int = 0
    hangs: int = 0
    restart_failures: int = 0
    seconds: float = 0.0


_Result = tuple[float, list[tuple[chess.Move, float]]]


class EnginePool(Closing):
    """N Stockfish processes (Threads=1 each: one engine per core beats one engine with 2 threads) that
    score batches of boards in parallel, one Python thread per engine. Never raises on a bad board; a
    dead engine is killed, restarted (logged, counted) and the search retried once; a board that fails
    twice is scored without the engine.

    ``timeout`` bounds the start-up handshake and every search without a ``movetime``; a search with
    one may take ``2 movetime + 0.5`` s (``SEARCH_TIMEOUT_*``). Two timeouts in a row on one engine, or
    an engine that can't be restarted, switch the pool to material scoring (:attr:`material_only`) for
    the rest of its life. ``deterministic=True`` sends ``ucinewgame`` to every engine at the start of
    every call, so the same call with node or depth limits gives the same scores (a mid-call restart
    can break that). Raises :class:`EngineError` when the engines can't be started at all, and
    ``ValueError`` on bad limits; thread-safe (calls are serialised).
    """

    def __init__(
        self,
        path: str | Path | None = None,
        workers: int = 2,
        hash_mb: int = 16,
        timeout: float = 10.0,
        deterministic: bool = False,
    ) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        if timeout <= 0:
            raise ValueError(f"timeout must be > 0, got {timeout}")
        if hash_mb < 1:
            raise ValueError(f"hash_mb must be >= 1, got {hash_mb}")
        self.path = find_stockfish(path)
        self.workers = workers
        self.hash_mb = hash_mb
        self.timeout = timeout
        self.deterministic = deterministic
        self.stats = EngineStats()
        self.material_only = False  # set for good when an engine hangs or can't be restarted
        self.patience: float | None = None
        """Seconds a call's searches may wait in all, per engine, past their timeouts for an engine kept
        from a CPU (None: ``deadline.MAX_STARVED_WAIT``): a bot short of clock sets 0."""
        self._lock = threading.Lock()
        self._closed = False
        self._engines: list[UciProcess] = []
        try:
            for _ in range(workers):
                self._engines.append(self._start())
        except BaseException:
            self.close()
            raise
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="engine")

    def _start(self) -> UciProcess:
        try:
            return UciProcess(self.path, self.hash_mb, self.timeout)
        except (OSError, EngineFailure) as exc:
            raise EngineError(f"could not start Stockfish at {self.path}: {exc}") from exc

    @property
    def name(self) -> str:
        """The engine's ``id name``, e.g. ``Stockfish 15.1``."""
        return self._engines[0].name if self._engines else ""

    @property
    def pids(self) -> list[int]:
        """Process ids of the engines (for monitoring, and for tests that kill one)."""
        return [engine.pid for engine in self._engines]

    def close(self) -> None:
        """Quit every engine; calling it again does nothing."""
        with self._lock:  # never while a call is using the engines
            if self._closed:
                return
            self._closed = True
        executor = getattr(self, "_executor", None)
        if executor is not None:
            executor.shutdown(wait=True)
        for engine in self._engines:
            engine.quit()

    def search_timeout(self, movetime: float | None) -> float:
        """Seconds one search may take before its engine counts as hung."""
        if movetime is None:
            return self.timeout
        return min(self.timeout, SEARCH_TIMEOUT_FACTOR * movetime + SEARCH_TIMEOUT_SLACK)

    def evaluate(
        self,
        boards: Sequence[chess.Board],
        *,
        nodes: int | None = None,
        depth: int | None = None,
        movetime: float | None = None,
    ) -> list[float]:
        """Score every board in centipawns for its side to move (depth 1 when no limit is given);
        ``movetime`` caps each search in seconds."""
        go = go_command(nodes, depth, movetime)
        results = self._run(boards, 1, go, self.search_timeout(movetime), want_moves=False)
        return [score for score, _ in results]

    def top_moves(
        self,
        boards: Sequence[chess.Board],
        k: int,
        *,
        nodes: int | None = None,
        depth: int | None = None,
        movetime: float | None = None,
    ) -> list[list[tuple[chess.Move, float]]]:
        """The k best moves of every board via MultiPV, best first, each with the score of the position
        after it for the mover. Boards with no legal move get an empty list."""
        if k < 1:
            raise ValueError(f"k must be >= 1, got {k}")
        go = go_command(nodes, depth, movetime)
        results = self._run(boards, min(k, MAX_MULTIPV), go, self.search_timeout(movetime), want_moves=True)
        return [moves for _, moves in results]

    def _fallback(self, board: chess.Board, multipv: int, want_moves: bool) -> _Result:
        self.stats.fallbacks += 1
        return fallback_score(board), fallback_top_moves(board, multipv) if want_moves else []

    def _run(
        self, boards: Sequence[chess.Board], multipv: int, go: str, timeout: float, *, want_moves: bool
    ) -> list[_Result]:
        """Deal the boards round-robin to the engines and search them, one thread per engine."""
        with self._lock:
            if self._closed:
                raise EngineError("EnginePool is closed")
            started = time.perf_counter()
            out: list[_Result] = [(0.0, [])] * len(boards)
            every = range(len(boards))
            chunks = [every[w :: self.workers] for w in range(min(self.workers, len(boards)))]
            args = (boards, out, multipv, go, timeout, want_moves)
            if len(chunks) == 1:
                searched = [self._search_on(0, chunks[0], *args)]
            else:
                futures = [
                    self._executor.submit(self._search_on, w, chunk, *args) for w, chunk in enumerate(chunks)
                ]
                wait(futures)  # all of them, even when one failed: no engine is left mid-search
                searched = [future.result() for future in futures]
            self.stats.calls += 1
            self.stats.searches += sum(searched)
            self.stats.seconds += time.perf_counter() - started
            return out

    def _search_on(
        self,
        worker: int,
        indices: Sequence[int],
        boards: Sequence[chess.Board],
        out: list[_Result],
        multipv: int,
        go: str,
        timeout: float,
        want_moves: bool,
    ) -> int:
        """Score ``boards[i]`` for every i in ``indices`` into ``out[i]`` on engine ``worker``; return
        how many went to the engine. FENs are built as the engine takes them, so Python's share of the
        work overlaps the engine's. On a failure restart the engine and retry from the failing board
        once; a board that fails twice is scored without the engine (and logged). Two timeouts in a row
        (the engine hangs) or a failed restart: every board left is scored without the engine."""
        sent: list[int] = []  # boards whose FEN was built, in the engine's order; fens[j] is sent[j]'s
        fens: list[str] = []
        delivered = 0  # sent[:delivered] have their results
        timeouts_in_a_row = 0

        def feed() -> Iterator[str]:
            for i in indices:
                fen = None if self.material_only else engine_fen(boards[i])
                if fen is None:
                    out[i] = self._fallback(boards[i], multipv, want_moves)
                else:
                    sent.append(i)
                    fens.append(fen)
                    yield fen

        def done(_: int, search: SearchResult) -> None:
            nonlocal delivered, timeouts_in_a_row
            timeouts_in_a_row = 0
            i = sent[delivered]
            out[i] = _parse(search, boards[i], want_moves)
            delivered += 1

        pending = feed()
        failed_at: int | None = None
        prepared = False
        while True:
            if self.material_only:
                for i in sent[delivered:]:
                    out[i] = self._fallback(boards[i], multipv, want_moves)
                for _ in pending:  # scores every board left without the engine
                    pass
                return len(fens)
            if delivered == len(fens) and next(pending, None) is None:
                return len(fens)  # fens[delivered] exists below: the board a failure is blamed on
            engine = self._engines[worker]
            try:
                if not prepared:
                    if self.deterministic:
                        engine.new_game()
                    engine.set_multipv(multipv)
                    prepared = True
                engine.search(itertools.chain(fens[delivered:], pending), go, done, timeout, self.patience)
            except EngineFailure as exc:
                if self.material_only:  # another worker gave up meanwhile: no restart is worth it
                    continue
                reason = f"{exc} (searching {fens[delivered]!r})"
                timeouts_in_a_row = timeouts_in_a_row + 1 if exc.timed_out else 0
                if timeouts_in_a_row >= 2:
                    self._give_up(worker, f"it hung twice in a row: {reason}")
                    continue
                if not self._restart(worker, reason):
                    continue
                prepared = False
                if failed_at == delivered:
                    logger.error("engine failed twice on %r; scoring it without the engine", fens[delivered])
                    out[sent[delivered]] = self._fallback(boards[sent[delivered]], multipv, want_moves)
                    delivered += 1
                    failed_at = None
                else:
                    failed_at = delivered

    def _restart(self, worker: int, reason: str) -> bool:
        """Kill engine ``worker`` and start a new one; False (and material scoring from now on) when
        the new one can't start."""
        old = self._engines[worker]
        logger.warning("restarting engine %d (pid %d): %s", worker, old.pid, reason)
        old.kill()
        try:
            self._engines[worker] = self._start()
        except EngineError as exc:
            self.stats.restart_failures += 1
            self.material_only = True
            logger.error(
                "engine %d could not be restarted (%s); scoring by material from now on", worker, exc
            )
            return False
        self.stats.restarts += 1
        return True

    def _give_up(self, worker: int, reason: str) -> None:
        """Kill engine ``worker`` for good and score by material from now on."""
        engine = self._engines[worker]
        logger.error(
            "giving up engine %d (pid %d): %s; scoring by material from now on", worker, engine.pid, reason
        )
        engine.kill()
        self.stats.hangs += 1
        self.material_only = True


def _parse(search: SearchResult, board: chess.Board, want_moves: bool) -> _Result:
    """A search's score and (with ``want_moves``) its moves ranked by score."""
    moves = []
    if want_moves:
        for rank in sorted(search.lines):
            uci, score = search.lines[rank]
            with contextlib.suppress(ValueError):  # a garbled line loses one move, not the call
                moves.append((chess.Move.from_uci(uci), score))
        # A node limit can stop the last iteration part-way: later lines keep older scores, so rank
        # by score (stable, Stockfish's order breaks ties).
        moves.sort(key=lambda item: -item[1])
    # "bestmove (none)" with no score never happens in 15.1, but a missing score must not crash.
    score = search.score if search.score is not None else fallback_score(board)
    return score, moves
