"""Fair move judgement: the played move and the best move valued by ONE search of the same position.

Why: valuing the best move by a search of the position before the move and the played move by a
separate search of the position after it compares two different searches, so a move equal to the
best could show thousands of centipawns of "loss". Here every board gets one search for the best move
and, when the played move differs, one search restricted (UCI ``searchmoves``) to exactly the best and
the played move, so both scores come from the same tree. A move equal to the best loses 0.

RBC moves chess cannot search are valued without it: a king capture wins, a move after which our king
can be taken loses the king; only the pass (no UCI move) needs a search of its own.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import chess
import chess.engine

from rbc_bot.closing import Closing
from rbc_bot.engine import (
    KING_CAPTURE_SCORE,
    MATE_SCORE,
    EngineError,
    can_capture_king,
    engine_safe_board,
    fallback_score,
    fallback_top_moves,
    find_stockfish,
    king_capture_moves,
)
from rbc_bot.rules import revise
from rbc_bot.uci import score_to_cp

logger = logging.getLogger(__name__)

MISTAKE_CP = 100  # thresholds as on lichess: inaccuracy 50, mistake 100, blunder 300
BLUNDER_CP = 300
LOSS_CLIP = 1000  # losses past a clear blunder count the same in averages (mate scores are huge)

Analyse = Callable[..., list[chess.engine.InfoDict]]
"""One search: ``analyse(board, multipv=k, root_moves=[...])`` returns its info lines, best first."""


@dataclass
class BoardJudgement:
    """One requested move judged on one board, scores for the mover."""

    best: chess.Move | None  # the engine's best move (a king capture when there is one)
    best_score: float
    taken: chess.Move | None  # what the request became on this board (RBC revision)
    played_score: float
    king_hung: bool  # after the move the opponent can capture the mover's king
    king_captured: bool  # the move took the enemy king

    @property
    def loss(self) -> float:
        return max(0.0, self.best_score - self.played_score)


def _cp(info: chess.engine.InfoDict, turn: chess.Color) -> float:
    pov = info["score"].pov(turn)
    mate = pov.mate()
    if mate is not None:
        return score_to_cp("mate", mate)
    return float(pov.score() or 0)


class Searcher(Closing):
    """Stockfish processes (one per worker, Threads=1) judging boards in parallel, reproducibly: a new
    game (``ucinewgame``) before every search and node limits only, so the same input scores the same."""

    def __init__(self, path: str | None = None, workers: int = 2, nodes: int = 20_000) -> None:
        if workers < 1 or nodes < 1:
            raise ValueError(f"workers and nodes must be >= 1, got {workers} and {nodes}")
        self.path = find_stockfish(path)
        self.nodes = nodes
        self._engines: list[chess.engine.SimpleEngine] = []
        self._free: queue.Queue[int] = queue.Queue()
        try:
            for index in range(workers):
                self._engines.append(self._start())
                self._free.put(index)
        except BaseException:
            self.close()
            raise
        self.name = str(self._engines[0].id.get("name", "stockfish"))
        self._executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="judge")

    def _start(self) -> chess.engine.SimpleEngine:
        try:
            engine = chess.engine.SimpleEngine.popen_uci(str(self.path))
            engine.configure({"Threads": 1, "Hash": 16})
        except (OSError, chess.engine.EngineError) as exc:
            raise EngineError(f"could not start Stockfish at {self.path}: {exc}") from exc
        return engine

    def close(self) -> None:
        executor = getattr(self, "_executor", None)
        if executor is not None:
            executor.shutdown(wait=True)
        for engine in self._engines:
            try:
                engine.quit()
            except (chess.engine.EngineError, OSError, TimeoutError):
                engine.close()
        self._engines = []

    def judge(
        self, items: Sequence[tuple[chess.Board, chess.Move | None]], nodes: int | None = None
    ) -> list[BoardJudgement]:
        """Judge each (board, requested move) pair; the mover is the side to move on the board."""
        limit = chess.engine.Limit(nodes=nodes or self.nodes)
        futures = [self._executor.submit(self._judge_one, board, move, limit) for board, move in items]
        return [future.result() for future in futures]

    def _judge_one(
        self, board: chess.Board, requested: chess.Move | None, limit: chess.engine.Limit
    ) -> BoardJudgement:
        index = self._free.get()
        try:

            def analyse(safe: chess.Board, **kwargs: object) -> list[chess.engine.InfoDict]:
                return self._analyse(index, safe, limit, **kwargs)

            return judge_board(analyse, board, requested)
        finally:
            self._free.put(index)

    def _analyse(
        self, index: int, board: chess.Board, limit: chess.engine.Limit, **kwargs: object
    ) -> list[chess.engine.InfoDict]:
        """One search (a new game first: reproducible); a dead engine is restarted and asked again once."""
        for attempt in (1, 2):
            try:
                result = self._engines[index].analyse(board, limit, game=object(), **kwargs)  # type: ignore[call-overload]
                return result if isinstance(result, list) else [result]
            except (chess.engine.EngineError, chess.engine.EngineTerminatedError, OSError) as exc:
                logger.warning("judge engine %d failed on %s (%s): restarting", index, board.fen(), exc)
                self._engines[index].close()
                self._engines[index] = self._start()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def judge_board(search: Analyse, board: chess.Board, requested: chess.Move | None) -> BoardJudgement:
    """Best and played move on ``board`` from one search (see the module's docstring)."""
    taken, _ = revise(board, requested) if requested is not None else (None, None)
    child = board.copy(stack=False)
    child.push(taken if taken is not None else chess.Move.null())
    safe = engine_safe_board(board)
    best, best_score = _best(search, board, safe)
    king_captured = taken is not None and child.king(not board.turn) is None
    king_hung = not king_captured and can_capture_king(child)
    if king_captured:
        played_score = float(KING_CAPTURE_SCORE)
    elif king_hung:
        # Already mated in chess terms (no legal move): every move hangs the king; the move costs nothing.
        mated = best_score <= -MATE_SCORE / 2 and not any(board.legal_moves)
        played_score = best_score if mated else -float(KING_CAPTURE_SCORE)
    elif taken == best:
        played_score = best_score
    elif _searchable(safe, taken) and _searchable(safe, best):
        assert safe is not None and taken is not None and best is not None
        lines = search(safe, multipv=2, root_moves=[best, taken])
        scores = {line["pv"][0]: _cp(line, board.turn) for line in lines if line.get("pv")}
        best_score = scores.get(best, best_score)
        played_score = scores.get(taken, best_score)
        if played_score > best_score:  # the restricted search found the played move better
            best, best_score = taken, played_score
    else:  # the pass, or RBC castling through check: no UCI root move, so the position after it
        played_score = -_score(search, child)
    return BoardJudgement(best, best_score, taken, played_score, king_hung, king_captured)


def _searchable(safe: chess.Board | None, move: chess.Move | None) -> bool:
    return safe is not None and move is not None and safe.is_legal(move)


def _best(search: Analyse, board: chess.Board, safe: chess.Board | None) -> tuple[chess.Move | None, float]:
    if can_capture_king(board):
        return king_capture_moves(board)[0], float(KING_CAPTURE_SCORE)
    if safe is None or not any(safe.legal_moves):
        top = fallback_top_moves(board, 1)
        score = _score(search, board) if safe is not None else fallback_score(board)
        return (None, score) if not any(board.legal_moves) else (top[0][0] if top else None, score)
    lines = search(safe, multipv=1)
    line = lines[0]
    move = line["pv"][0] if line.get("pv") else None
    return move, _cp(line, board.turn)


def _score(search: Analyse, board: chess.Board) -> float:
    """The side to move's score of ``board`` (no search when the engine can't take it)."""
    safe = engine_safe_board(board)
    if safe is None:
        return fallback_score(board)
    lines = search(safe, multipv=1)
    return _cp(lines[0], board.turn)
