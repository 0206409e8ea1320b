"""Stockfish for many short evaluations: locate it, never feed it a position it can't take, keep it alive.

Why raw pipes and not ``chess.engine``: the perf notes measured a raw UCI pipe at about 2.8x the speed of
python-chess's engine layer (Python CPU, not Stockfish, is the bottleneck for depth-1 searches), and
python-chess can block forever on a move history whose root is illegal. Why the guards: Stockfish 15.1
dies with SIGSEGV when the side to move can capture the king, when a king is missing and on castling
rights without rooks -- all common in RBC belief boards. So every board is sanitised by
:func:`engine_safe_board` and sent as a bare FEN; the rest are scored here without the engine.
"""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import logging
import os
import re
import select
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from pathlib import Path
from types import TracebackType

import chess

logger = logging.getLogger(__name__)

KING_CAPTURE_SCORE = 30_000
"""Side to move can capture the enemy king (a won RBC game), in centipawns from the side to move."""
MATE_SCORE = 20_000
"""Mate in n is ``MATE_SCORE - 100 * n`` for the side to move; being mated in n is the negative."""

ENV_VAR = "STOCKFISH_EXECUTABLE"
REPO_DIR = Path(__file__).resolve().parent.parent
BUNDLED_PATH = REPO_DIR / "stockfish_bin" / "stockfish"
SYSTEM_PATH = Path("/usr/games/stockfish")
INSTALL_HINT = (
    "install it with `sudo sh stockfish_bin/install.sh` (or `apt-get install -y stockfish` as root)"
)

MAX_MULTIPV = 500
"""Stockfish's MultiPV maximum (a larger value would be ignored); more than any position's move count."""

PIECE_VALUES = {chess.PAWN: 100, chess.KNIGHT: 300, chess.BISHOP: 300, chess.ROOK: 500, chess.QUEEN: 900}


class StockfishNotFoundError(RuntimeError):
    """No usable Stockfish binary; the message names every place looked and how to install one."""


class EngineError(RuntimeError):
    """An engine could not be started or restarted (a broken binary, not a bad board)."""


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


# ---------------------------------------------------------------------------------------------------------
# Board safety


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


def can_capture_king(board: chess.Board) -> bool:
    """True when the side to move attacks the enemy king (it wins by taking it in RBC)."""
    king = board.king(not board.turn)
    return king is not None and board.is_attacked_by(board.turn, king)


def king_capture_moves(board: chess.Board) -> list[chess.Move]:
    """Every move of the side to move that captures the enemy king (pawns promote to a queen)."""
    king = board.king(not board.turn)
    if king is None:
        return []
    moves = []
    back_rank = 7 if board.turn == chess.WHITE else 0
    for attacker in board.attackers(board.turn, king):
        pawn_promotes = board.piece_type_at(attacker) == chess.PAWN and chess.square_rank(king) == back_rank
        moves.append(chess.Move(attacker, king, promotion=chess.QUEEN if pawn_promotes else None))
    return moves


def engine_safe_board(board: chess.Board) -> chess.Board | None:
    """A copy Stockfish 15.1 can search (no move stack, clean castling rights, en passant only when a
    legal en-passant capture exists), or None when it can't take the position at all: a king missing, the
    enemy king capturable (the caller scores that as a win), or ``is_valid()`` false for another reason.
    """
    if board.king(chess.WHITE) is None or board.king(chess.BLACK) is None:
        return None
    if can_capture_king(board):
        return None
    safe = board.copy(stack=False)
    safe.castling_rights = safe.clean_castling_rights()
    if safe.ep_square is not None and not safe.has_legal_en_passant():
        safe.ep_square = None
    if not safe.is_valid():
        return None
    return safe


_SYMBOLS = [(c, t, chess.Piece(t, c).symbol()) for c in chess.COLORS for t in chess.PIECE_TYPES]
_EMPTY_RUN = re.compile("1+")
_CASTLING = ((chess.BB_H1, "K"), (chess.BB_A1, "Q"), (chess.BB_H8, "k"), (chess.BB_A8, "q"))


def safe_fen(safe: chess.Board) -> str:
    """``safe.fen()`` for a board from :func:`engine_safe_board`, about twice as fast: FEN building was
    the largest Python cost of a depth-1 evaluation (33 of 82 µs). Relies on the sanitising (castling
    rights are corners only, the en-passant square is a legal one)."""
    cells = ["1"] * 64
    for color, piece_type, symbol in _SYMBOLS:
        for square in chess.scan_forward(safe.pieces_mask(piece_type, color)):
            cells[square] = symbol
    placement = _EMPTY_RUN.sub(
        lambda run: str(len(run.group())),
        "/".join("".join(cells[r * 8 : r * 8 + 8]) for r in range(7, -1, -1)),
    )
    castling = "".join(letter for mask, letter in _CASTLING if safe.castling_rights & mask) or "-"
    ep = chess.SQUARE_NAMES[safe.ep_square] if safe.ep_square is not None else "-"
    turn = "w" if safe.turn else "b"
    return f"{placement} {turn} {castling} {ep} {safe.halfmove_clock} {safe.fullmove_number}"


def fallback_score(board: chess.Board) -> float:
    """Score of a board the engine can't take, for the side to move: a capturable enemy king or a
    missing king decides the game; anything else is counted as material."""
    own_king, their_king = board.king(board.turn), board.king(not board.turn)
    if own_king is not None and their_king is None:
        return float(KING_CAPTURE_SCORE)
    if own_king is None and their_king is not None:
        return float(-KING_CAPTURE_SCORE)
    if can_capture_king(board):
        return float(KING_CAPTURE_SCORE)
    return float(material_balance(board))


def material_balance(board: chess.Board) -> int:
    """Material of the side to move minus the opponent's, in centipawns."""
    total = 0
    for piece_type, value in PIECE_VALUES.items():
        total += value * (
            len(board.pieces(piece_type, board.turn)) - len(board.pieces(piece_type, not board.turn))
        )
    return total


def fallback_top_moves(board: chess.Board, k: int) -> list[tuple[chess.Move, float]]:
    """Top moves without the engine: king captures first, then pseudo-legal moves by material after."""
    captures = king_capture_moves(board)
    if captures:
        return [(move, float(KING_CAPTURE_SCORE)) for move in captures[:k]]
    scored = []
    for move in board.pseudo_legal_moves:
        after = board.copy(stack=False)  # never touch the caller's board, even briefly
        after.push(move)
        scored.append((move, -float(material_balance(after))))
    scored.sort(key=lambda item: -item[1])
    return scored[:k]


# ---------------------------------------------------------------------------------------------------------
# One raw UCI process


_INFO_RE = re.compile(
    r"info .*?(?: multipv (\d+))? score (cp|mate) (-?\d+)( lowerbound| upperbound)?(?:.*? pv (\S+))?"
)
"""An info line with a score: MultiPV rank, score kind and value, bound, first move of the PV."""
_PIPELINE_WINDOW = 32
"""Searches in flight per engine: commands are ~100 bytes, so writes never block on a full pipe."""


class _EngineFailure(Exception):
    """The process died, closed its pipe or missed the deadline."""


@dataclasses.dataclass
class _Search:
    """One parsed search result: the last score line, and the last move/score per MultiPV index."""

    score: float | None = None
    lines: dict[int, tuple[str, float]] = dataclasses.field(default_factory=dict)
    exact: set[int] = dataclasses.field(default_factory=set)


class _UciProcess:
    """One Stockfish process driven over raw pipes, with a deadline on every read."""

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
        except _EngineFailure:
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
            raise _EngineFailure(f"writing to the engine failed: {exc}") from exc

    def readline(self, deadline: float) -> str:
        # Whole reads are split into lines at once: MultiPV output comes in 64 KB reads of ~400 lines.
        while not self._lines:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _EngineFailure(f"no answer within {self.timeout:g} s")
            ready, _, _ = select.select([self._out], [], [], left)
            if ready:
                chunk = os.read(self._out, 65536)
                if not chunk:
                    raise _EngineFailure(f"engine closed its output (exit code {self.proc.poll()})")
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

    def search(self, fens: Sequence[str], go: str, done: Callable[[int, _Search], None]) -> None:
        """Search every FEN with ``go``, pipelined, calling ``done(i, result)`` in order; raises
        :class:`_EngineFailure` at the first one that fails (results before it have been delivered)."""
        sent = 0
        for index in range(len(fens)):
            while sent < len(fens) and sent - index < _PIPELINE_WINDOW:
                self.send(f"position fen {fens[sent]}\n{go}")
                sent += 1
            result = _Search()
            deadline = time.monotonic() + self.timeout
            while True:
                line = self.readline(deadline)
                if line.startswith("bestmove"):
                    break
                info = _INFO_RE.match(line)
                if info is None:
                    continue
                multipv, kind, value, bound, pv = info.groups()
                rank = int(multipv) if multipv else 1
                # A node limit can stop the search on a fail-low/high line ("upperbound -110" at move 1):
                # a bound never replaces an exact score already seen for that line.
                if bound and rank in result.exact:
                    continue
                if not bound:
                    result.exact.add(rank)
                score = score_to_cp(kind, int(value))
                if rank == 1:
                    result.score = score
                if pv is not None:
                    result.lines[rank] = (pv, score)
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
        with contextlib.suppress(_EngineFailure):
            self.send("quit")
        try:
            self.proc.wait(timeout=1)
        except subprocess.TimeoutExpired:
            logger.warning("engine pid %d did not quit; killing it", self.proc.pid)
        self.kill()


# ---------------------------------------------------------------------------------------------------------
# The pool


@dataclasses.dataclass
class EngineStats:
    """Counters for the per-turn log: calls to the pool, engine searches, boards scored without the
    engine, engine restarts, and wall seconds spent in calls."""

    calls: int = 0
    searches: int = 0
    fallbacks: int = 0
    restarts: int = 0
    seconds: float = 0.0


def _go_command(nodes: int | None, depth: int | None, movetime: float | None = None) -> str:
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


class EnginePool:
    """N Stockfish processes (Threads=1 each: one engine per core beats one engine with 2 threads) that
    score batches of boards in parallel, one Python thread per engine. Never raises on a bad board; a
    dead or hung engine is killed, restarted (logged, counted) and the search retried once.

    ``timeout`` bounds every single search (and the start-up handshake), not a whole batch.
    ``deterministic=True`` sends ``ucinewgame`` to every engine at the start of every call, so the same
    call with node or depth limits gives the same scores (a mid-call restart can break that).
    Raises :class:`EngineError` only when an engine can't be restarted at all (a broken binary), and
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
        self._lock = threading.Lock()
        self._closed = False
        self._engines: list[_UciProcess] = []
        try:
            for _ in range(workers):
                self._engines.append(self._start())
        except BaseException:
            self.close()
            raise
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="engine")

    def _start(self) -> _UciProcess:
        try:
            return _UciProcess(self.path, self.hash_mb, self.timeout)
        except (OSError, _EngineFailure) as exc:
            raise EngineError(f"could not start Stockfish at {self.path}: {exc}") from exc

    @property
    def name(self) -> str:
        """The engine's ``id name``, e.g. ``Stockfish 15.1``."""
        return self._engines[0].name if self._engines else ""

    @property
    def pids(self) -> list[int]:
        """Process ids of the engines (for monitoring, and for tests that kill one)."""
        return [engine.pid for engine in self._engines]

    def __enter__(self) -> EnginePool:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

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
        results = self._run(boards, 1, _go_command(nodes, depth, movetime), want_moves=False)
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
        results = self._run(boards, min(k, MAX_MULTIPV), _go_command(nodes, depth, movetime), want_moves=True)
        return [moves for _, moves in results]

    def _run(
        self, boards: Sequence[chess.Board], multipv: int, go: str, *, want_moves: bool
    ) -> list[tuple[float, list[tuple[chess.Move, float]]]]:
        with self._lock:
            if self._closed:
                raise EngineError("EnginePool is closed")
            started = time.perf_counter()
            out: list[tuple[float, list[tuple[chess.Move, float]]]] = [(0.0, [])] * len(boards)
            todo: list[int] = []
            fens: list[str] = []
            for i, board in enumerate(boards):
                safe = engine_safe_board(board)
                if safe is None:
                    self.stats.fallbacks += 1
                    out[i] = (fallback_score(board), fallback_top_moves(board, multipv) if want_moves else [])
                else:
                    todo.append(i)
                    fens.append(safe_fen(safe))
            chunks = [
                (w, todo[w :: self.workers], fens[w :: self.workers])
                for w in range(min(self.workers, len(todo)))
            ]

            def work(worker: int, indices: list[int], chunk_fens: list[str]) -> None:
                for j, (score, moves) in enumerate(
                    self._search_on(worker, chunk_fens, [boards[i] for i in indices], multipv, go, want_moves)
                ):
                    out[indices[j]] = (score, moves)

            if len(chunks) == 1:
                work(*chunks[0])
            else:
                futures = [self._executor.submit(work, *chunk) for chunk in chunks]
                wait(futures)  # all of them, even when one failed: no engine is left mid-search
                for future in futures:
                    future.result()
            self.stats.calls += 1
            self.stats.searches += len(todo)
            self.stats.seconds += time.perf_counter() - started
            return out

    def _search_on(
        self, worker: int, fens: list[str], boards: list[chess.Board], multipv: int, go: str, want_moves: bool
    ) -> list[tuple[float, list[tuple[chess.Move, float]]]]:
        """Search ``fens`` on engine ``worker``; on a failure restart it and retry from the failing
        board once; a board that fails twice is scored without the engine (and logged)."""
        results: list[tuple[float, list[tuple[chess.Move, float]]]] = []

        def done(index: int, search: _Search) -> None:
            board = boards[len(results)]
            moves = []
            for rank in sorted(search.lines):
                uci, score = search.lines[rank]
                with contextlib.suppress(ValueError):  # a garbled line loses one move, not the call
                    moves.append((chess.Move.from_uci(uci), score))
            # A node limit can stop the last iteration part-way: later lines keep older scores, so rank
            # by score (stable, Stockfish's order breaks ties).
            moves.sort(key=lambda item: -item[1])
            # "bestmove (none)" with no score never happens in 15.1, but a missing score must not crash.
            score = search.score if search.score is not None else fallback_score(board)
            results.append((score, moves if want_moves else []))

        failed_at: int | None = None
        prepared = False
        while len(results) < len(fens):
            engine = self._engines[worker]
            start = len(results)
            try:
                if not prepared:
                    if self.deterministic:
                        engine.new_game()
                    engine.set_multipv(multipv)
                    prepared = True
                engine.search(fens[start:], go, done)
            except _EngineFailure as exc:
                position = len(results)
                self._restart(worker, f"{exc} (searching {fens[position]!r})")
                prepared = False
                if failed_at == position:
                    logger.error("engine failed twice on %r; scoring it without the engine", fens[position])
                    board = boards[position]
                    results.append(
                        (fallback_score(board), fallback_top_moves(board, multipv) if want_moves else [])
                    )
                    self.stats.fallbacks += 1
                    failed_at = None
                else:
                    failed_at = position
        return results

    def _restart(self, worker: int, reason: str) -> None:
        old = self._engines[worker]
        logger.warning("restarting engine %d (pid %d): %s", worker, old.pid, reason)
        old.kill()
        self._engines[worker] = self._start()
        self.stats.restarts += 1
