"""King captures (rbc_bot.raid) as the move selector takes them, guards them or weighs them, on
hand-built beliefs with a known answer, scored by real Stockfish (deterministic: tests/move_helpers.py)."""

from __future__ import annotations

from collections.abc import Iterator

import chess
import numpy as np
import pytest
from move_helpers import actions, boards_of, decide, deterministic_scorer, safe_everywhere
from reconchess.utilities import move_actions

from rbc_bot.config import MoveConfig
from rbc_bot.move import choose_move
from rbc_bot.raid import exposes_king, guard_for_turn, king_capture, king_safe_after, unparried
from rbc_bot.scorer import Scorer


@pytest.fixture(scope="module")
def scorer() -> Iterator[Scorer]:
    yield from deterministic_scorer()


KING_H5 = "8/8/8/7k/8/8/8/R2QK3 w - - 0 1"  # Qd1xh5 takes the king
KING_H5_PAWN = "8/1p6/8/7k/8/8/8/R2QK3 w - - 0 1"
KING_A8 = "k7/8/8/8/8/8/8/R2QK3 w - - 0 1"  # Ra1xa8 takes the king


def test_king_capture_possible_on_most_boards_is_taken(scorer: Scorer) -> None:
    boards = boards_of(KING_H5, KING_A8, KING_H5_PAWN)
    decision = decide(boards, scorer)
    assert decision.reason == "king-capture"
    assert decision.move == chess.Move.from_uci("d1h5")  # 2 boards against 1 for a1a8
    assert king_capture(boards, set(actions(boards))) == chess.Move.from_uci("d1h5")


def test_king_capture_on_one_board_only_is_still_taken(scorer: Scorer) -> None:
    boards = boards_of(KING_A8, "7k/8/8/8/8/8/8/R2QK3 w - - 0 1")
    decision = decide(boards, scorer)
    assert decision.reason == "king-capture" and decision.move == chess.Move.from_uci("a1a8")


def test_a_king_capture_on_a_board_only_a_blunder_reaches_waits_for_its_likelihood(scorer: Scorer) -> None:
    """Ra1xa8 works on one board of two. Counted alike that share (0.5) takes it at once; with such
    boards weighing 0.1 (a strong opponent rarely leaves its king en prise) it is 0.1 / 1.1, under
    the 30 % share, and the move is chosen like any other."""
    boards = boards_of(KING_A8, "7k/8/8/8/8/8/8/R2QK3 w - - 0 1")
    config = MoveConfig(blunder_board_weight=0.1)
    decision = choose_move(boards, actions(boards), scorer, config, 2.0, np.random.default_rng(0))
    assert decision.reason == "best-worst"
    assert decision.candidates, "scored with the other candidates"


def test_king_capture_that_would_leave_our_king_en_prise_is_not_gambled(scorer: Scorer) -> None:
    """In check from Bf7 on every board; Qxg1 takes the king on one board in three (over the 30 % share).
    Found in a game against TroutBot: the bot gambled on the capture and lost its king on the others."""
    boards = boards_of(
        "4k3/5B2/8/8/8/8/5q2/6K1 b - - 0 1",
        "4k3/5B2/8/8/8/8/5q2/1K6 b - - 0 1",
        "4k3/5B2/8/8/8/8/5q2/2K5 b - - 0 1",
    )
    gamble = chess.Move.from_uci("f2g1")
    assert king_capture(boards, set(actions(boards))) == gamble
    decision = decide(boards, scorer)
    assert decision.reason == "best-worst"
    assert decision.move != gamble
    assert safe_everywhere(boards, decision.move)


def test_black_king_capture_and_promotion_capture() -> None:
    """A pawn taking the king on the last rank is requested as a queen promotion, as reconchess offers it."""
    board = chess.Board("8/8/8/8/8/8/1p6/K1k5 b - - 0 1")
    assert king_capture([board], set(move_actions(board))) == chess.Move.from_uci("b2a1q")


def test_by_value_a_king_capture_that_hangs_the_queen_on_a_miss_is_refused(scorer: Scorer) -> None:
    """Qd1xd8 takes the king on one board in two (share 0.5 >= 0.3: the share rule takes it at once);
    on the other the king on e8 takes the queen, a draw, where any quiet queen move wins on both boards.
    Weighed by value the raid expects ~0.75 against ~1: refused."""
    boards = boards_of("3k4/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    raid = chess.Move.from_uci("d1d8")
    rng = np.random.default_rng(0)
    at_once = choose_move(boards, actions(boards), scorer, MoveConfig(), 2.0, rng)
    assert (at_once.move, at_once.reason) == (raid, "king-capture")
    weighed = choose_move(boards, actions(boards), scorer, MoveConfig(king_capture_by_value=True), 2.0, rng)
    assert weighed.reason == "best-worst" and weighed.move != raid
    assert raid in [c.move for c in weighed.candidates], "the raid was scored, then refused"


def test_by_value_a_king_capture_whose_miss_costs_nothing_is_taken(scorer: Scorer) -> None:
    """Rd1xd8 takes the king on two boards in three; on the third the rook lands on d8 unattacked and
    White still wins: the raid expects about 1, as much as any quiet move, so it is taken."""
    boards = boards_of(
        "3k4/8/8/8/8/8/8/3RK3 w - - 0 1", "3k3p/8/8/8/8/8/8/3RK3 w - - 0 1", "k7/8/8/8/8/8/8/3RK3 w - - 0 1"
    )
    config = MoveConfig(king_capture_by_value=True)
    decision = choose_move(boards, actions(boards), scorer, config, 2.0, np.random.default_rng(0))
    assert (decision.move, decision.reason) == (chess.Move.from_uci("d1d8"), "king-capture")
    assert decision.candidates, "weighed against the scored candidates, not taken blindly"


def test_a_king_capture_that_would_hang_the_queen_when_it_misses_is_not_taken_blindly() -> None:
    """Qd1xd8 takes the king on one board in two; on the other the king stands on e8 and takes the queen."""
    boards = boards_of("3k4/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    legal = set(actions(boards))
    capture = chess.Move.from_uci("d1d8")
    assert king_capture(boards, legal) == capture
    rng = np.random.default_rng(0)
    assert not exposes_king(boards, capture, 10, rng), "our king is safe either way"
    assert exposes_king(boards, capture, 10, rng, guard_value=9), "but the queen hangs on a miss"
    assert not exposes_king(boards, chess.Move.from_uci("d1d2"), 10, rng, guard_value=9)


def test_the_opening_guard_refuses_a_raid_that_hangs_the_queen_and_later_takes_it(scorer: Scorer) -> None:
    """Qd1xd8 takes the king on one board in two (at least the 30 % that takes a king capture at once);
    on the other the king on e8 takes the queen. Guarded through turn 12, the bot scores the candidates
    instead and does not play the raid at turn 12; at turn 13 the guard is lifted and the raid is taken."""
    boards = boards_of("3k4/8/8/8/8/8/8/3QK3 w - - 0 1", "4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
    raid = chess.Move.from_uci("d1d8")
    config = MoveConfig(king_capture_guard_value=9, king_capture_guard_turns=12)
    rng = np.random.default_rng(0)
    guarded = choose_move(boards, actions(boards), scorer, guard_for_turn(config, 12), 2.0, rng)
    assert guarded.reason == "best-worst" and guarded.move != raid
    later = choose_move(boards, actions(boards), scorer, guard_for_turn(config, 13), 2.0, rng)
    assert (later.move, later.reason) == (raid, "king-capture")


def test_the_king_capture_guard_can_be_kept_to_the_opening() -> None:
    """With ``king_capture_guard_turns`` the guard holds through that turn (1-based, as the bot counts)
    and is lifted after it; without, it holds in every turn."""
    opening_only = MoveConfig(king_capture_guard_value=9, king_capture_guard_turns=12)
    assert guard_for_turn(opening_only, 12).king_capture_guard_value == 9
    assert guard_for_turn(opening_only, 13).king_capture_guard_value == 0
    assert guard_for_turn(opening_only, 13).king_capture_share == opening_only.king_capture_share
    always = MoveConfig(king_capture_guard_value=9)
    assert guard_for_turn(always, 60).king_capture_guard_value == 9


# AttackerBot's knight rush as Black, as our turn 4 sees it (White: d4, e4, Nc3): the knight that went
# Nc6-b4 checks from d3 on one board, the one that went Nc6-e5 from f3 on another; on a third no knight
# came, and a bishop on g4 eyes e2 through the empty f3.
RUSH_D3 = "r1bqkbnr/pppppppp/8/8/3PP3/2Nn4/PPP2PPP/R1BQKBNR w KQkq - 3 4"
RUSH_F3 = "r1bqkbnr/pppppppp/8/8/3PP3/2N2n2/PPP2PPP/R1BQKBNR w KQkq - 3 4"
BISHOP_G4 = "rn1qkbnr/ppp1pppp/3p4/8/3PP1b1/2N5/PPP2PPP/R1BQKBNR w KQkq - 1 4"


def test_king_safe_after_follows_the_revised_request() -> None:
    """c2xd3 takes the d3 knight; on the f3 board it is no move (a pawn capture onto an empty square),
    so the check stands; Ke2 steps out of both knights' reach but into the g4 bishop's; the pass
    leaves a check standing; a king capture leaves no king of theirs to answer."""
    d3, f3, g4 = boards_of(RUSH_D3, RUSH_F3, BISHOP_G4)
    cxd3, ke2 = chess.Move.from_uci("c2d3"), chess.Move.from_uci("e1e2")
    assert king_safe_after(d3, cxd3) and not king_safe_after(f3, cxd3)
    assert king_safe_after(d3, ke2) and king_safe_after(f3, ke2) and not king_safe_after(g4, ke2)
    assert not king_safe_after(d3, None) and king_safe_after(g4, None)
    assert king_safe_after(chess.Board(KING_H5), chess.Move.from_uci("d1h5"))


def test_checks_are_unparried_when_every_request_loses_the_king_somewhere() -> None:
    """With only the two knight boards believed, Ke2 parries both; with the bishop board too, nothing
    is safe everywhere. A single check with a safe answer, or none at all, is parried."""
    d3, f3, g4 = boards_of(RUSH_D3, RUSH_F3, BISHOP_G4)
    legal = actions([d3, f3, g4])
    assert not unparried([d3, f3], [d3, f3], legal)
    assert unparried([d3, f3], [d3, f3, g4], legal)
    assert not unparried([d3], [d3, g4], legal)
    assert not unparried([], [g4], legal)
