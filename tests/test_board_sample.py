"""The move selector's scored sample: check threats against move generation, the threat and queen
tiers, a real position (TroutBot, seed 304, session 18) where the one believed board in 546 on which
the opponent mates in one was left out of a uniform sample of 211 and the game was lost, and the
pattern of StrangeFish's wins (session 24's loss analysis) where an unseen quiet move attacked our
queen on a few boards the sample left out."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import chess
import numpy as np
import pytest
from board_sets import rbc_boards
from reconchess.utilities import move_actions

from rbc_bot.board_sample import Tiers, check_threat, our_king_attacked, our_queen_attacked
from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.scorer import Scorer

# Black to move; White's queen on f3 and knight on g5 threaten Qxf7 mate (the true board of the game).
MATE_THREAT = "r2qkb1r/pbppnpp1/np2p2p/3P2N1/4P3/2N2Q2/PPP2PPP/R1B1KB1R b KQkq - 1 7"
# White's knight on f3 and queen on d1: nothing threatens Black's king.
DECOY = "r2qkb1r/pbppnpp1/np2p2p/3P4/4P3/2N2N2/PPP2PPP/R1BQKB1R b KQkq - 1 7"
# White's bishop on b5 gives check (d7 moved away).
ATTACKED = "r2qkb1r/pbp1npp1/np1pp2p/1B1P2N1/4P3/2N2Q2/PPP2PPP/R1B1K2R b KQkq - 1 7"
# The same with the queen still on d1, as on most believed boards: no check is possible at once.
QUIET = "r2qkb1r/pbppnpp1/np2p2p/3P2N1/4P3/2N5/PPP2PPP/R1BQKB1R b KQkq - 1 7"


def direct_check_possible(board: chess.Board, quiet: bool = False) -> bool:
    """What ``check_threat`` computes, by generating the opponent's moves: a move (not castling, en
    passant or a promotion; with ``quiet``, not a capture either) after which the moved piece (its king
    too) attacks our king."""
    king = board.king(board.turn)
    flipped = board.copy(stack=False)
    flipped.turn = not board.turn
    flipped.ep_square = None
    for move in flipped.pseudo_legal_moves:
        if flipped.is_castling(move) or move.promotion or (quiet and flipped.is_capture(move)):
            continue
        after = flipped.copy(stack=False)
        after.push(move)
        if king is not None and after.attacks_mask(move.to_square) & chess.BB_SQUARES[king]:
            return True
    return False


def test_check_threat_agrees_with_move_generation() -> None:
    positions = [b for b in rbc_boards(600, seed=7) if not our_king_attacked(b)]  # the boards it is for
    threats = [check_threat(b) for b in positions]
    assert threats == [direct_check_possible(b) for b in positions]
    assert 0.1 < sum(threats) / len(threats) < 0.9  # both answers are common: the comparison tests both


def test_quiet_check_threat_agrees_with_move_generation_from_either_side() -> None:
    """``quiet``: only checks onto an empty square; ``us``: our king's side named, as on the boards after
    our move, where the opponent is to move."""
    positions = [b for b in rbc_boards(600, seed=8) if not our_king_attacked(b)]
    threats = [check_threat(b, quiet=True) for b in positions]
    assert threats == [direct_check_possible(b, quiet=True) for b in positions]
    assert 0.1 < sum(threats) / len(threats) < 0.9
    assert sum(threats) < sum(check_threat(b) for b in positions)  # some checks only capture
    passed = []
    for board in positions:
        after = board.copy(stack=False)
        after.push(chess.Move.null())  # the opponent to move, our king's side named
        passed.append(check_threat(after, board.turn, quiet=True))
    assert passed == threats


def test_check_threat_sees_the_mate_threat_and_not_the_quiet_board() -> None:
    assert check_threat(chess.Board(MATE_THREAT)) and not check_threat(chess.Board(QUIET))
    assert not our_king_attacked(chess.Board(MATE_THREAT))
    # pawns: a push onto a checking square (d4-d5), a capture onto one (exf5), and neither (e3-e4)
    assert check_threat(chess.Board("8/8/4k3/8/3P4/8/8/K7 b - - 0 1"))
    assert check_threat(chess.Board("8/8/4k3/5n2/4P3/8/8/K7 b - - 0 1"))
    assert not check_threat(chess.Board("8/8/4k3/8/8/4P3/8/K7 b - - 0 1"))


def test_the_sample_takes_the_attacked_boards_first_and_the_rest_uniformly() -> None:
    board, attacked = chess.Board(QUIET), chess.Board(ATTACKED)
    assert our_king_attacked(attacked) and not our_king_attacked(board)
    tiers = Tiers.of([board] * 20 + [attacked] * 3 + [board] * 10, split_threats=False)
    assert (len(tiers.attacked), len(tiers.threatened), len(tiers.calm)) == (3, 0, 30)
    chosen, weights = tiers.sample(10, 0.5, np.random.default_rng(1))
    assert chosen[:3] == [attacked] * 3 and attacked not in chosen[3:] and len(chosen) == 10
    assert weights.tolist() == [1.0] * 3 + [30 / 7] * 7
    chosen, weights = tiers.sample(10, 0.0, np.random.default_rng(1), most_attacked=1)
    assert chosen[0] is attacked and attacked not in chosen[1:] and weights[0] == 3.0


def test_a_wider_sample_draws_from_the_boards_left_out_and_the_weights_add_up() -> None:
    """``move.fill_breadth``'s second draw: only boards the first left out (told apart by identity, as
    the belief decodes each board anew), and each board of both then stands for its tier's boards over
    the ones the two hold."""
    attacked = [chess.Board(ATTACKED) for _ in range(3)]
    calm = [chess.Board(QUIET) for _ in range(30)]
    tiers = Tiers.of(calm[:20] + attacked + calm[20:], split_threats=False)
    chosen, weights = tiers.sample(10, 0.0, np.random.default_rng(1))
    assert tiers.stands_for(chosen).tolist() == weights.tolist() == [1.0] * 3 + [30 / 7] * 7
    extra = tiers.widen(chosen, 12, 0.0, np.random.default_rng(2))
    assert len(extra) == 12 and not {id(b) for b in extra} & {id(b) for b in chosen}
    assert all(any(b is c for c in calm) for b in extra), "every attacked board was in the first draw"
    widened = tiers.stands_for([*chosen, *extra])
    assert widened.tolist() == [1.0] * 3 + [30 / 19] * 19 and widened.sum() == pytest.approx(33)
    rest = tiers.widen([*chosen, *extra], 100, 0.0, np.random.default_rng(3))
    assert len(rest) == 11 and tiers.stands_for([*chosen, *extra, *rest]).tolist() == [1.0] * 33


def test_the_threat_tier_keeps_the_rare_threatened_boards_and_the_weights_add_up() -> None:
    threat, quiet = chess.Board(MATE_THREAT), chess.Board(QUIET)
    tiers = Tiers.of([quiet] * 540 + [threat] * 6, split_threats=True)
    assert (len(tiers.attacked), len(tiers.threatened), len(tiers.calm)) == (0, 6, 540)
    for seed in range(20):
        chosen, weights = tiers.sample(211, 0.5, np.random.default_rng(seed))
        assert len(chosen) == 211 and chosen[:6] == [threat] * 6 and threat not in chosen[6:]
        assert weights.sum() == pytest.approx(546) and weights[:6].tolist() == [1.0] * 6
    # more threatened boards than the share allows: half the room, the rest from the calm boards
    many = Tiers.of([quiet] * 300 + [threat] * 300, split_threats=True)
    chosen, weights = many.sample(100, 0.5, np.random.default_rng(0))
    assert chosen.count(threat) == 50 and weights.sum() == pytest.approx(600)


def test_the_queen_tier_keeps_the_rare_boards_where_our_queen_is_attacked() -> None:
    """Queen boards first (up to their share of the room), then threatened ones, then calm ones; the
    weights still add up to the believed boards; off, the queen boards are calm ones."""
    queen, threat, quiet = QUEEN_ATTACKED, chess.Board(MATE_THREAT), chess.Board(QUIET)
    assert our_queen_attacked(queen) and not our_queen_attacked(threat) and not our_queen_attacked(quiet)
    boards = [quiet] * 500 + [threat] * 30 + [queen] * 20
    tiers = Tiers.of(boards, split_threats=True, split_queen=True)
    assert (len(tiers.attacked), len(tiers.queen), len(tiers.threatened), len(tiers.calm)) == (0, 20, 30, 500)
    chosen, weights = tiers.sample(100, 0.2, np.random.default_rng(0), queen_share=0.1)
    assert chosen[:10] == [queen] * 10 and chosen[10:30] == [threat] * 20 and quiet not in chosen[:30]
    assert len(chosen) == 100 and weights.sum() == pytest.approx(550) and weights[0] == 2.0
    plain = Tiers.of(boards, split_threats=True)  # Bb5+ is possible on the queen boards: threatened ones
    assert (len(plain.queen), len(plain.threatened), len(plain.calm)) == (0, 50, 500)
    few_calm = Tiers.of([quiet] * 5 + [queen] * 50, split_threats=False, split_queen=True)
    chosen, weights = few_calm.sample(40, 0.0, np.random.default_rng(0), queen_share=0.25)
    assert chosen.count(queen) == 35 and chosen.count(quiet) == 5, "the queen boards fill what calm leaves"
    assert weights.sum() == pytest.approx(55)


@pytest.mark.parametrize("seed", range(2))
def test_the_one_board_where_our_queen_is_attacked_decides_the_move(seed: int) -> None:
    """Black after 1. e4 e6 2. d4 d5 3. e5 c5 4. Nc3 Qb6 and an unseen 5. Na4, which attacks the queen,
    among 199 boards where White played 5. Nf3: with ``move.queen_share`` the sample of 40 holds the
    true board and the queen steps away; without it the sample (here) leaves it out and the queen
    stays where Nxb6 takes it, as in the losses of session 24's analysis."""
    boards = [QUEEN_ATTACKED] + [after_moves("e4", "e6", "d4", "d5", "e5", "c5", "Nc3", "Qb6", "Nf3")] * 199
    legal = move_actions(QUEEN_ATTACKED)
    hung = {}
    for share in (0.0, 0.25):
        config = MoveConfig(max_boards=40, min_boards=40, queen_share=share)
        with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
            scorer = Scorer(pool, EngineConfig(depth=6, max_depth=6))
            decision = choose_move(boards, legal, scorer, config, 10.0, np.random.default_rng(seed))
        assert decision.boards_scored == 40
        played = QUEEN_ATTACKED.copy()
        played.push(decision.move or chess.Move.null())
        hung[share] = our_queen_attacked_after(played)
    assert hung == {0.0: True, 0.25: False}


def after_moves(*sans: str) -> chess.Board:
    """The board after these moves (SAN) from the start."""
    board = chess.Board()
    for san in sans:
        board.push_san(san)
    return board


def our_queen_attacked_after(board: chess.Board) -> bool:
    """Whether the side that just moved left a queen the side to move attacks."""
    mover = not board.turn
    return any(board.is_attacked_by(board.turn, square) for square in board.pieces(chess.QUEEN, mover))


QUEEN_ATTACKED = after_moves("e4", "e6", "d4", "d5", "e5", "c5", "Nc3", "Qb6", "Na4")


@pytest.mark.parametrize("seed", range(2))
def test_the_one_mating_board_in_two_hundred_decides_the_move(seed: int) -> None:
    """The true board of the game among 199 where White's knight stands on f3 and its queen on d1 (no
    threat there, and hxg5 is no capture): with the threat tier the sample of 40 holds the true board
    and the move chosen does not allow Qxf7 mate on it (h6h5 did in the game)."""
    boards = [chess.Board(MATE_THREAT)] + [chess.Board(DECOY)] * 199
    legal = move_actions(chess.Board(MATE_THREAT))
    config = MoveConfig(max_boards=40, min_boards=40, threat_share=0.5)
    with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
        scorer = Scorer(pool, EngineConfig(depth=6, max_depth=6))  # a mate in one needs no more
        decision = choose_move(boards, legal, scorer, config, 10.0, np.random.default_rng(seed))
    assert decision.boards_scored == 40 and decision.threatened == 1 and decision.move is not None
    after = chess.Board(MATE_THREAT)
    after.push(decision.move)
    assert not mates_in_one(after), decision.move


def mates_in_one(board: chess.Board) -> list[chess.Move]:
    """The side to move's moves that checkmate."""
    mates = []
    for move in board.legal_moves:
        board.push(move)
        if board.is_checkmate():
            mates.append(move)
        board.pop()
    return mates


def test_the_cost_benchmark_reports_its_tiers_and_ratio() -> None:
    """benchmarks/board_sample.py on a few boards: the tiers add up and the ratio is printed (the figure
    itself belongs to a quiet machine, not to a test)."""
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "board_sample.py"
    done = subprocess.run(
        [sys.executable, str(script), "--boards", "60", "--repeats", "1"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    first, base, threats = done.stdout.splitlines()
    counts = [int(part.split()[-1]) for part in first.split(":", 1)[1].split(",")]
    assert first.startswith("60 boards:") and sum(counts) == 60
    assert base.startswith("split without threats:") and base.endswith("(baseline)")
    assert threats.startswith("split with threats:") and threats.endswith("x the baseline")
    bad = subprocess.run([sys.executable, str(script), "--boards", "0"], capture_output=True, text=True)
    assert (
        bad.returncode != 0
        and bad.stderr.strip() == "board_sample.py: error: --boards and --repeats must be at least 1"
    )
