"""Engine safety and engine recovery, against the real Stockfish (the lookup: test_engine_lookup.py).

Every board class that crashes Stockfish 15.1 or hangs python-chess (rbc_bot.engine_safety) goes through
the pool here; the pool must answer with the right kind of score and without a single restart.
"""

from __future__ import annotations

import math
import os
import signal
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import chess
import pytest
from board_sets import rbc_boards
from engine_helpers import fake_engine, hung_engine

from rbc_bot import engine, uci
from rbc_bot.engine import (
    KING_CAPTURE_SCORE,
    MATE_SCORE,
    EnginePool,
    can_capture_king,
    engine_safe_board,
    find_stockfish,
    king_capture_moves,
)
from rbc_bot.engine_safety import engine_fen, safe_fen
from rbc_bot.uci import parse_search, score_to_cp

NODES = 200
MIDDLEGAME = "r1bq1rk1/pp2bppp/2n1pn2/2pp4/3P4/2PBPN2/PP1N1PPP/R1BQ1RK1 w - - 0 9"


@pytest.fixture(scope="module")
def pool() -> Iterator[EnginePool]:
    with EnginePool(workers=2, deterministic=True, timeout=10.0) as shared:
        yield shared


# ---------------------------------------------------------------------------------------------------------
# Score mapping and king captures


def test_score_to_cp() -> None:
    assert score_to_cp("cp", -35) == -35
    assert score_to_cp("mate", 1) == MATE_SCORE - 100
    assert score_to_cp("mate", 3) == MATE_SCORE - 300
    assert score_to_cp("mate", -2) == -(MATE_SCORE - 200)
    assert score_to_cp("mate", 0) == -MATE_SCORE
    with pytest.raises(ValueError, match="lowerbound"):
        score_to_cp("lowerbound", 1)


def test_parse_search_takes_the_last_exact_line() -> None:
    info = "info depth {} seldepth 2 multipv {} score cp {} nodes 9 pv {} a7a6"
    exact = info.format(5, 1, 58, "d2d4")
    bound = info.format(6, 1, "-110 upperbound", "e2e4")
    found = parse_search(f"info string NNUE on\n{exact}\n{bound}\n", 1)
    assert (found.score, found.lines) == (58.0, {1: ("d2d4", 58.0)})
    only_bound = parse_search(f"{bound}\n", 1)
    assert (only_bound.score, only_bound.lines) == (-110.0, {1: ("e2e4", -110.0)})
    mated = parse_search("info depth 0 score mate 0\n", 1)
    assert (mated.score, mated.lines) == (-MATE_SCORE, {})
    second = info.format(5, 2, -30, "g1f3")
    both = parse_search(f"{exact}\n{second}\n", 2)
    assert (both.score, both.lines) == (58.0, {1: ("d2d4", 58.0), 2: ("g1f3", -30.0)})
    assert parse_search("info depth 3 score cp garbled pv e2e4\n", 1).score is None


def test_king_capture_moves() -> None:
    board = chess.Board("4k3/3P4/8/8/8/8/4R3/4K3 w - - 0 1")
    assert can_capture_king(board)
    assert set(king_capture_moves(board)) == {
        chess.Move.from_uci("e2e8"),
        chess.Move.from_uci("d7e8q"),
    }
    assert not can_capture_king(chess.Board())
    assert king_capture_moves(chess.Board()) == []
    assert king_capture_moves(chess.Board("8/8/8/8/8/8/4R3/4K3 w - - 0 1")) == []


# ---------------------------------------------------------------------------------------------------------
# Crash-prone classes (rbc_bot.engine_safety)


def _middlegame_king_capturable() -> chess.Board:
    """An opening from random RBC play where Black left its king en prise: Qd8 takes it on e8."""
    return chess.Board("rnbQkbn1/pp1p1ppr/2p5/4p2p/2P5/5PP1/PP1PP2P/RNB1KBNR w KQq - 0 7")


def test_unguarded_stockfish_really_dies() -> None:
    """The premise of the guards: the raw FEN of a capturable king kills Stockfish 15.1."""
    # A death is seen at once (end of output); the timeout only bounds the start on a loaded machine.
    process = uci.UciProcess(find_stockfish(), hash_mb=16, timeout=60.0)
    try:
        with pytest.raises(uci.EngineFailure):
            process.search([_middlegame_king_capturable().fen()], "go depth 1", lambda i, r: None)
    finally:
        process.kill()


def test_king_capturable_is_a_win_without_the_engine(pool: EnginePool) -> None:
    boards = [chess.Board("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1"), _middlegame_king_capturable()]
    assert all(can_capture_king(b) and engine_safe_board(b) is None for b in boards)
    restarts = pool.stats.restarts
    assert pool.evaluate(boards, nodes=NODES) == [KING_CAPTURE_SCORE, KING_CAPTURE_SCORE]
    tops = pool.top_moves(boards, 3, depth=2)
    assert tops[0] == [(chess.Move.from_uci("e2e8"), KING_CAPTURE_SCORE)]
    assert tops[1] == [(chess.Move.from_uci("d8e8"), KING_CAPTURE_SCORE)]
    assert pool.stats.restarts == restarts


@pytest.mark.parametrize(
    ("fen", "expected"),
    [
        ("8/8/8/8/8/8/4R3/4K3 w - - 0 1", KING_CAPTURE_SCORE),  # the enemy king is gone: we won
        ("4k3/8/8/8/8/8/4R3/8 w - - 0 1", -KING_CAPTURE_SCORE),  # our king is gone: we lost
        ("8/8/8/8/8/8/4R3/8 b - - 0 1", -500),  # both gone: material
    ],
)
def test_missing_kings(pool: EnginePool, fen: str, expected: float) -> None:
    board = chess.Board(fen)
    assert engine_safe_board(board) is None
    restarts = pool.stats.restarts
    assert pool.evaluate([board], depth=3) == [expected]
    assert isinstance(pool.top_moves([board], 2, nodes=NODES)[0], list)
    assert pool.stats.restarts == restarts


def test_castling_rights_without_rooks(pool: EnginePool) -> None:
    board = chess.Board("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1")
    board.castling_rights = chess.BB_CORNERS  # raw rights, as an RBC belief can carry them
    safe = engine_safe_board(board)
    assert safe is not None and safe.castling_rights == chess.BB_EMPTY
    with_rooks = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    assert engine_safe_board(with_rooks).castling_rights == chess.BB_CORNERS  # type: ignore[union-attr]
    restarts = pool.stats.restarts
    score, score_again = pool.evaluate([board, board.copy()], nodes=NODES)
    assert score == score_again and abs(score) < 300  # a real engine score of a level position
    assert pool.top_moves([board], 3, nodes=NODES)[0]
    assert pool.stats.restarts == restarts


def test_en_passant_square(pool: EnginePool) -> None:
    bogus = chess.Board("4k3/8/8/8/8/8/8/4K3 w - e6 0 1")
    assert not bogus.is_valid()
    safe = engine_safe_board(bogus)
    assert safe is not None and safe.ep_square is None
    legal_ep = chess.Board("rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3")
    assert engine_safe_board(legal_ep).ep_square == chess.D6  # type: ignore[union-attr]
    restarts, fallbacks = pool.stats.restarts, pool.stats.fallbacks
    assert abs(pool.evaluate([bogus], depth=5)[0]) < 50  # bare kings: a dead draw
    assert pool.stats.fallbacks == fallbacks  # ... scored by the engine, not by the fallback
    assert pool.stats.restarts == restarts


def test_pawns_on_back_rank_use_material(pool: EnginePool) -> None:
    boards = [
        chess.Board("P3k3/8/8/8/8/8/8/4K3 w - - 0 1"),
        chess.Board("4k3/8/8/8/8/8/8/p3K2R b - - 0 1"),
    ]
    assert all(engine_safe_board(b) is None for b in boards)
    assert pool.evaluate(boards, nodes=NODES) == [100.0, -400.0]
    moves = pool.top_moves(boards, 2, nodes=NODES)
    assert all(len(m) == 2 for m in moves)


def test_too_many_checkers_use_material(pool: EnginePool) -> None:
    board = chess.Board("4k3/8/8/8/1b6/3n4/8/r3K3 w - - 0 1")
    assert len(board.checkers()) == 3
    assert engine_safe_board(board) is None
    assert pool.evaluate([board], nodes=NODES) == [-1100.0]


def test_illegal_move_stack_root(pool: EnginePool) -> None:
    """python-chess would send the illegal root plus moves and block forever; we send a bare FEN."""
    board = chess.Board("4k3/8/8/8/8/8/4r3/4K3 b - - 0 1")  # White's king is capturable at the root
    board.push(chess.Move.from_uci("e2e7"))
    assert board.is_valid() and board.move_stack
    safe = engine_safe_board(board)
    assert safe is not None and not safe.move_stack
    bare = chess.Board(board.fen())
    restarts = pool.stats.restarts
    assert pool.evaluate([board], nodes=NODES) == pool.evaluate([bare], nodes=NODES)
    assert pool.top_moves([board], 3, nodes=NODES)[0]
    assert pool.stats.restarts == restarts


def test_mate_and_stalemate(pool: EnginePool) -> None:
    mated = chess.Board("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1")
    stalemate = chess.Board("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert pool.evaluate([mated, stalemate], depth=3) == [-MATE_SCORE, 0.0]
    assert pool.top_moves([mated, stalemate], 3, depth=3) == [[], []]


ODD_BOARDS = [
    "4k3/8/8/8/1b6/3n4/8/r3K3 w - - 0 1",  # three checkers
    "4k3/8/8/8/8/8/8/r3K2r w - - 0 1",  # two checkers on one line through the king: impossible
    "4k3/8/8/8/8/5n2/8/4K2r w - - 0 1",  # a real double check
    "4k3/8/8/8/8/8/8/K3K3 w - - 0 1",  # three kings
    "P3k3/8/8/8/8/8/8/4K3 w - - 0 1",  # a pawn on the back rank
    "4k3/8/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1",  # nine pawns
    "4k3/8/8/8/QQQQQQQQ/QQQQQQQQ/8/4K3 w - - 0 1",  # seventeen pieces
    "4k3/8/8/8/8/8/4R3/4K3 b - - 0 1",  # in check, legal
    "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1",  # the enemy king capturable
    "8/8/8/8/8/8/4R3/4K3 w - - 0 1",  # no enemy king
]


def test_safe_fen_is_python_chess_fen() -> None:
    """safe_fen is fen() on sanitised boards, and the pool's copy-free engine_fen gives the same, or
    None where sanitising gives None, on every class of board (with and without a move stack)."""
    boards = rbc_boards(1000, seed=5)
    boards += [board.copy(stack=False) for board in boards[:200]]  # clean_castling_rights really cleans
    boards.append(chess.Board("r3k2r/8/8/3pP3/8/8/8/R3K2R w Kq d6 0 30"))
    boards += [chess.Board(fen) for fen in ODD_BOARDS]
    safe_boards = [engine_safe_board(b) for b in boards]
    expected = [None if s is None else s.fen() for s in safe_boards]
    assert 800 < sum(fen is not None for fen in expected) < len(boards)
    assert [safe_fen(s) for s in safe_boards if s is not None] == [fen for fen in expected if fen]
    assert [engine_fen(b) for b in boards] == expected


def test_random_rbc_boards_never_crash(pool: EnginePool) -> None:
    boards = rbc_boards(300, seed=7)
    capturable = [b for b in boards if can_capture_king(b)]
    assert len(capturable) > 20  # the mix does contain the class that kills Stockfish ...
    safe_boards = [(b, engine_safe_board(b)) for b in boards]
    assert any(
        s is not None and s.castling_rights != b.castling_rights for b, s in safe_boards
    )  # ... and this
    restarts = pool.stats.restarts
    scores = pool.evaluate(boards, depth=1)
    assert len(scores) == len(boards) and all(math.isfinite(s) for s in scores)
    for board, score in zip(boards, scores, strict=True):
        if can_capture_king(board):
            assert score == KING_CAPTURE_SCORE
    tops = pool.top_moves(boards[:60], 4, depth=1)
    for board, moves in zip(boards[:60], tops, strict=True):  # each answer belongs to its own board
        safe = engine_safe_board(board)
        assert all(
            safe.is_legal(move) if safe is not None else board.is_pseudo_legal(move) for move, _ in moves
        )
    assert pool.stats.restarts == restarts


# ---------------------------------------------------------------------------------------------------------
# Answers, determinism and recovery


def test_top_moves_known_best(pool: EnginePool) -> None:
    mate_in_one = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    hanging_queen = chess.Board("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1")
    tops = pool.top_moves([mate_in_one, hanging_queen], 3, nodes=2000)
    assert tops[0][0] == (chess.Move.from_uci("a1a8"), MATE_SCORE - 100)
    assert tops[1][0][0] == chess.Move.from_uci("d2d5")
    assert tops[1][0][1] > 300 > tops[1][1][1]
    assert [s for _, s in tops[1]] == sorted((s for _, s in tops[1]), reverse=True)
    assert pool.top_moves([hanging_queen], 1, nodes=2000)[0][0][0] == chess.Move.from_uci("d2d5")
    every_move = pool.top_moves([chess.Board()], 1000, depth=1)[0]  # more than MultiPV's 500: all moves
    assert {move for move, _ in every_move} == set(chess.Board().legal_moves)


def test_deterministic_mode_repeats_scores(pool: EnginePool) -> None:
    boards = [b for b in rbc_boards(80, seed=11) if engine_safe_board(b) is not None][:40]
    boards.append(chess.Board(MIDDLEGAME))
    first = pool.evaluate(boards, nodes=1000)
    pool.evaluate(rbc_boards(40, seed=12), nodes=1000)  # warm the hash with other positions
    assert pool.evaluate(boards, nodes=1000) == first
    with EnginePool(workers=2, deterministic=True) as other:
        assert other.evaluate(boards, nodes=1000) == first
        assert other.top_moves(boards[:10], 3, nodes=500) == pool.top_moves(boards[:10], 3, nodes=500)


def test_killed_engine_is_restarted_mid_call(caplog: pytest.LogCaptureFixture) -> None:
    boards = [b for b in rbc_boards(400, seed=3) if engine_safe_board(b) is not None][:200]
    original_search = uci.UciProcess.search
    with EnginePool(workers=2, timeout=5.0) as killed_pool:
        victim = killed_pool.pids[0]

        def search_and_kill(
            self: uci.UciProcess,
            fens: Sequence[str],
            go: str,
            done: Callable[[int, uci.SearchResult], None],
            timeout: float | None = None,
            patience: float | None = None,
        ) -> None:
            def done_then_kill(index: int, result: uci.SearchResult) -> None:
                done(index, result)
                if self.pid == victim and index == 10:  # SIGKILL it with searches still in flight
                    os.kill(victim, signal.SIGKILL)

            original_search(self, fens, go, done_then_kill, timeout, patience)

        uci.UciProcess.search = search_and_kill  # type: ignore[method-assign]
        try:
            scores = killed_pool.evaluate(boards, nodes=1000)
        finally:
            uci.UciProcess.search = original_search  # type: ignore[method-assign]
        assert len(scores) == len(boards) and all(math.isfinite(s) for s in scores)
        assert killed_pool.stats.restarts == 1
        assert killed_pool.stats.fallbacks == 0  # the retry answered every board with the engine
        assert victim not in killed_pool.pids
        assert "restarting engine 0" in caplog.text
        # The restarted engine keeps working.
        assert killed_pool.top_moves([chess.Board()], 2, depth=2)[0]


def test_engine_killed_between_calls(pool: EnginePool) -> None:
    with EnginePool(workers=1) as solo:
        os.kill(solo.pids[0], signal.SIGKILL)
        assert solo.evaluate([chess.Board(MIDDLEGAME)], depth=4)[0] == pytest.approx(
            pool.evaluate([chess.Board(MIDDLEGAME)], depth=4)[0], abs=200
        )
        assert solo.stats.restarts == 1


def test_hung_engine_times_out_restarts_and_falls_back(tmp_path: Path) -> None:
    """A search past the pool's timeout restarts the engine; the retry hanging too gives it up: that
    board and every later one are scored by material."""
    hung = hung_engine(tmp_path)
    board = chess.Board("4k3/8/8/8/8/8/8/R3K3 w - - 0 1")
    with EnginePool(hung, workers=1, timeout=0.3) as hung_pool:
        assert hung_pool.name == "Hangfish"
        assert hung_pool.evaluate([board], depth=1) == [500.0]  # material, after two timeouts
        assert hung_pool.stats.restarts == 1  # killed and restarted after the first try
        assert hung_pool.stats.hangs == 1 and hung_pool.material_only  # given up after the retry
        assert hung_pool.stats.fallbacks == 1


def test_not_an_engine_is_a_clear_error(tmp_path: Path) -> None:
    not_uci = fake_engine(tmp_path, "not-an-engine", "exit 0")
    with pytest.raises(engine.EngineError, match=r"could not start Stockfish at .*not-an-engine"):
        EnginePool(not_uci, workers=1, timeout=2.0)


def test_close_is_idempotent_and_final() -> None:
    closing = EnginePool(workers=1)
    process_ids = closing.pids
    closing.close()
    closing.close()
    for pid in process_ids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)
    with pytest.raises(engine.EngineError, match="closed"):
        closing.evaluate([chess.Board()])


def test_bad_arguments_are_clear(pool: EnginePool) -> None:
    with pytest.raises(ValueError, match="k must be"):
        pool.top_moves([chess.Board()], 0)
    with pytest.raises(ValueError, match="nodes must be"):
        pool.evaluate([chess.Board()], nodes=0)
    with pytest.raises(ValueError, match="workers must be"):
        EnginePool(workers=0)
    assert pool.evaluate([]) == []


SCRIPTED_ENGINE = """while read line; do
  case "$line" in
    uci) echo "id name Scripted"; echo uciok;;
    isready) echo readyok;;
    go*) echo "info depth 5 seldepth 2 multipv 1 score cp 58 nodes 174 pv d2d4 a7a6"
         echo "info depth 6 seldepth 3 multipv 1 score cp -110 upperbound nodes 1000 pv d2d4 a7a6"
         echo "bestmove d2d4 ponder a7a6";;
    quit) exit 0;;
  esac
done"""


def test_bound_line_never_replaces_an_exact_score(tmp_path: Path) -> None:
    """Stockfish 15.1 stopped by a node limit can end on a fail-low line (it does at 1000 nodes from
    the start position): the last exact score is the one to trust."""
    scripted = fake_engine(tmp_path, "scripted", SCRIPTED_ENGINE)
    with EnginePool(scripted, workers=1) as scripted_pool:
        assert scripted_pool.evaluate([chess.Board()], nodes=1000) == [58.0]
        assert scripted_pool.top_moves([chess.Board()], 1, nodes=1000) == [
            [(chess.Move.from_uci("d2d4"), 58.0)]
        ]
