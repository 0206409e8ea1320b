"""Ranking the selector's candidates from their scores (rbc_bot.ranking): expected scores, the aggregates
over boards, board likelihoods, the near-tie rule. Pure arithmetic on hand-made score tables."""

from __future__ import annotations

from dataclasses import replace

import chess
import numpy as np
import pytest

from rbc_bot.board_sample import Tiers
from rbc_bot.config import MoveConfig
from rbc_bot.engine import KING_CAPTURE_SCORE
from rbc_bot.ranking import (
    aggregate,
    board_likelihoods,
    capture_share,
    on_curve,
    rank,
    win_probability,
    with_check_odds,
)


def boards_of(*fens: str) -> list[chess.Board]:
    return [chess.Board(f) for f in fens]


def test_aggregates_are_expected_scores() -> None:
    mate_and_blunder = np.array([[19_500.0, -500.0]])
    won_and_level = np.array([[500.0, 0.0]])
    assert win_probability(np.array([0.0]))[0] == pytest.approx(0.5)
    assert win_probability(np.array([400.0]))[0] == pytest.approx(10 / 11)
    assert aggregate(mate_and_blunder, "mean", 0.3)[0] == pytest.approx(
        (1 + 1 / (1 + 10**1.25)) / 2, abs=1e-6
    )
    assert aggregate(mate_and_blunder, "mean", 0.3)[0] < aggregate(won_and_level, "mean", 0.3)[0]
    assert aggregate(won_and_level, "min", 0.3)[0] == pytest.approx(0.5)
    mix = aggregate(won_and_level, "mix", 0.3)[0]
    assert mix == pytest.approx(0.3 * 0.5 + 0.7 * (0.5 + 1 / (1 + 10**-1.25)) / 2)
    with pytest.raises(ValueError, match="unknown aggregate"):
        aggregate(won_and_level, "max", 0.3)


def test_regret_ignores_a_board_every_move_loses() -> None:
    """Board 2 is lost whatever we do (the sacrifice loses a little less there); on board 1 the
    sacrifice gives up a piece. ``min`` follows the hopeless board and sacrifices; ``regret`` sees that
    no move helps there and keeps the piece, as ``mean`` would."""
    scores = np.array(
        [
            [150.0, -1_400.0],  # quiet move: fine on board 1, lost on board 2
            [-300.0, -1_200.0],  # sacrifice: a piece down on board 1, lost anyway on board 2
        ]
    )
    assert np.argmax(aggregate(scores, "min", 0.5)) == 1
    assert np.argmax(aggregate(scores, "mean", 0.5)) == 0
    assert np.argmax(aggregate(scores, "regret", 0.5)) == 0
    # The worst regret is the sacrifice's on board 1: the best move there minus it, in expected score.
    p = win_probability(scores)
    expected = 0.5 * (1 - (p[0, 0] - p[1, 0])) + 0.5 * p[1].mean()
    assert aggregate(scores, "regret", 0.5)[1] == pytest.approx(expected)
    # A move that is the best on every board has no regret: its value is w + (1 - w) x its mean.
    assert aggregate(scores[:1], "regret", 0.5)[0] == pytest.approx(0.5 + 0.5 * p[0].mean())


def test_blunder_boards_neither_buy_nor_condemn_a_king_capture() -> None:
    """Two of three boards left the opponent's king en prise: the capture takes it there and loses the
    queen on the third board. Counted alike, those boards buy the raid under ``mean`` and ``regret`` (a
    quiet move "regrets" not taking the king); weighed at 0.1, both keep the queen. ``min`` ignores
    the weights: the raid's worst board is its worst either way."""
    KING, QUEEN_LOST = 20_000.0, -900.0
    scores = np.array([[KING, KING, QUEEN_LOST], [0.0, 0.0, 50.0]])  # raid, quiet move
    weights = np.array([0.1, 0.1, 1.0])
    for method in ("mean", "regret"):
        assert np.argmax(aggregate(scores, method, 0.5)) == 0
        assert np.argmax(aggregate(scores, method, 0.5, weights)) == 1
    p = win_probability(scores)
    assert aggregate(scores, "mean", 0.5, weights)[1] == pytest.approx((0.1 * 0.5 * 2 + p[1, 2]) / 1.2)
    assert aggregate(scores, "regret", 0.5, weights)[1] == pytest.approx(
        0.5 * (1 - 0.1 * (1 - 0.5)) + 0.5 * (0.1 * 0.5 * 2 + p[1, 2]) / 1.2
    )
    assert aggregate(scores, "min", 0.5, weights) == pytest.approx(aggregate(scores, "min", 0.5))


def test_a_near_tie_on_the_worst_board_is_decided_by_the_mean() -> None:
    """The first move's worst board is 10 cp better, the second is a pawn better everywhere else: by
    the worst board alone the first wins; within a near tie of 0.03 expected score the mean decides.
    A move that hangs our king on a board never enters the tie, however good its mean."""
    scores = np.array(
        [
            [-200.0, 20.0, 20.0, 20.0],  # worst -200
            [-210.0, 120.0, 120.0, 120.0],  # worst -210, a pawn better on three boards
            [-30_000.0, 900.0, 900.0, 900.0],  # our king captured on board 1
        ]
    )
    moves = [chess.Move.from_uci(m) for m in ("e2e4", "d2d4", "g1f3")]
    worst = MoveConfig(aggregate="min")
    assert rank(moves, scores, worst)[0].move == moves[0]
    assert rank(moves, scores, replace(worst, near_tie=0.03))[0].move == moves[1]
    assert rank(moves, scores, replace(worst, near_tie=1.0))[0].move == moves[1]
    assert rank([moves[0], moves[2]], scores[[0, 2]], replace(worst, near_tie=1.0))[0].move == moves[0]


def test_board_likelihoods_weigh_down_boards_with_the_king_en_prise() -> None:
    boards = boards_of(
        "4k3/8/8/8/8/8/8/4RK2 w - - 0 1",  # our rook on e1 takes the king on e8
        "4k3/8/8/8/8/8/8/3R1K2 w - - 0 1",  # our rook on d1 does not
        "4k3/8/8/8/8/8/8/4r1K1 b - - 0 1",  # as Black: the rook on e1 takes the king on g1
    )
    assert board_likelihoods(boards, 0.25).tolist() == [0.25, 1.0, 0.25]
    assert board_likelihoods(boards, 1.0).tolist() == [1.0, 1.0, 1.0]


def test_capture_share_weighs_the_boards_where_the_king_is_en_prise_by_their_likelihood() -> None:
    """Re1xe8 works on 3 boards of 4: counted alike that is 0.75; weighing those 3 boards 0.1 each
    (an opponent that rarely leaves its king en prise), 0.3 / 1.3."""
    takes = "4k3/8/8/8/8/8/8/4RK2 w - - 0 1"
    boards = boards_of(takes, takes, takes, "4k3/8/8/8/8/8/8/3R1K2 w - - 0 1")
    assert capture_share(boards, 3, 1.0) == 0.75
    assert capture_share(boards, 3, 0.1) == pytest.approx(0.3 / 1.3)
    assert capture_share(boards[:3], 3, 0.1) == pytest.approx(1.0), "no other board: it works on all"


def test_the_tail_sees_past_a_board_every_move_loses() -> None:
    """Board 1 is lost whatever we do (the knight move loses a little less there); on boards 2 and 3 the
    knight move leaves a piece en prise. ``min`` follows the hopeless board alone and plays the knight;
    the mean of the worst half of the boards sees the hanging piece too."""
    scores = np.array(
        [
            [-900.0, -300.0, -300.0, 50.0],  # knight move: hangs a piece on two boards
            [-950.0, 20.0, 30.0, 40.0],  # solid move
        ]
    )
    assert np.argmax(aggregate(scores, "min", 0.5)) == 0
    assert np.argmax(aggregate(scores, "tail", 0.5, tail_share=0.5)) == 1
    p = win_probability(scores)
    assert aggregate(scores, "tail", 0.5, tail_share=0.5)[1] == pytest.approx((p[1, 0] + p[1, 1]) / 2)
    assert aggregate(scores, "tail", 0.5, tail_share=1.0) == pytest.approx(aggregate(scores, "mean", 0.5))
    assert aggregate(scores, "tail", 0.5, tail_share=0.01) == pytest.approx(aggregate(scores, "min", 0.5))
    # Weighted: board 1 at weight 0.5, a 0.25 share (of 3.5) is board 1's 0.5 and 0.375 of board 2's 1.
    weights = np.array([0.5, 1.0, 1.0, 1.0])
    tail = aggregate(scores, "tail", 0.5, weights, tail_share=0.25)
    assert tail[1] == pytest.approx((0.5 * p[1, 0] + 0.375 * p[1, 1]) / 0.875)


def test_when_every_move_can_lose_the_king_the_expected_score_ranks_them() -> None:
    """Ten boards. The block loses our king on one and the queen on the other nine; the king move
    loses the king on two and keeps level on eight. Fewest king losses first plays the block; the
    expected score (a lost king 0) plays the king move. With a safe move among them it stays first
    either way: the rule only orders moves that all risk the king."""
    block = [-30_000.0] + [-900.0] * 9
    king_move = [-30_000.0] * 2 + [0.0] * 8
    safe = [-300.0] * 10
    moves = [chess.Move.from_uci(m) for m in ("c8c6", "e8e7", "b8c6")]
    scores = np.array([block, king_move])
    assert rank(moves[:2], scores, MoveConfig())[0].move == moves[0]
    assert rank(moves[:2], scores, MoveConfig(king_risk="expected"))[0].move == moves[1]
    with_safe = np.array([block, king_move, safe])
    assert rank(moves, with_safe, MoveConfig(king_risk="expected"))[0].move == moves[2]


def test_the_aggregate_king_risk_prices_a_rare_king_loss_against_a_piece_hung_often() -> None:
    """Forty boards. The quiet move loses our king on one and keeps level on the rest; the king walk
    never loses it but hangs a rook (-300) on sixteen. Counting king losses first plays the walk
    whatever it costs; under the mixed aggregate a lost king scores 0 like any lost game, so the one
    board in forty weighs less than the rook on sixteen. A move losing the king on half the boards
    still ranks below the walk."""
    quiet = [-30_000.0] + [0.0] * 39
    walk = [-300.0] * 16 + [0.0] * 24
    reckless = [-30_000.0] * 20 + [0.0] * 20
    moves = [chess.Move.from_uci(m) for m in ("a2a3", "e1d2", "h2h4")]
    scores = np.array([quiet, walk, reckless])
    assert rank(moves, scores, MoveConfig())[0].move == moves[1]
    ranked = rank(moves, scores, MoveConfig(king_risk="aggregate"))
    assert [c.move for c in ranked] == moves
    assert [c.king_losses for c in ranked] == [1, 0, 20]


def test_a_king_loss_below_the_share_is_priced_by_the_aggregate_not_counted_first() -> None:
    """The same forty boards with ``move.king_risk_share=0.02``: the board where the quiet move loses
    our king is 1 in 40 of the scored ones (counted first: the walk) but stands for 1 believed board of
    391 (priced by the mixed aggregate: the quiet move). Losing it on half of them is counted still."""
    quiet = [-30_000.0] + [0.0] * 39
    walk = [-300.0] * 16 + [0.0] * 24
    reckless = [-30_000.0] * 20 + [0.0] * 20
    moves = [chess.Move.from_uci(m) for m in ("a2a3", "e1d2", "h2h4")]
    scores = np.array([quiet, walk, reckless])
    config = MoveConfig(king_risk_share=0.02)
    stand_for = np.array([1.0] + [10.0] * 39)
    assert rank(moves, scores, config)[0].move == moves[1]
    ranked = rank(moves, scores, config, stand_for=stand_for)
    assert [c.move for c in ranked] == moves
    assert [c.king_losses for c in ranked] == [0, 0, 20]
    assert [c.king_losses for c in rank(moves, scores, MoveConfig(), stand_for=stand_for)] == [0, 1, 20]


def test_survivors_ranks_king_losing_moves_by_their_worst_board_where_the_king_survives() -> None:
    """Ten boards; every move loses our king on one. The queen sortie wins a king capture on another
    (+30,000) and hangs the queen on two; the quiet move keeps level on the nine. By fewest king
    losses and then the centipawn mean, the capture chance buys the sortie; taking the worst of the
    boards where our king survives plays the quiet move. A move that never loses the king stays
    first either way, and the count still comes first: losing the king on two boards ranks last."""
    sortie = [-30_000.0, 30_000.0, -900.0, -900.0] + [0.0] * 6
    quiet = [-30_000.0] + [-50.0] * 9
    twice = [-30_000.0] * 2 + [100.0] * 8
    safe = [-400.0] * 10
    moves = [chess.Move.from_uci(m) for m in ("d8h4", "g8f6", "e8e7", "b8c6")]
    survivors = MoveConfig(king_risk="survivors")
    assert rank(moves[:2], np.array([sortie, quiet]), MoveConfig())[0].move == moves[0]
    ranked = rank(moves[:3], np.array([sortie, quiet, twice]), survivors)
    assert [c.move for c in ranked] == [moves[1], moves[0], moves[2]]
    assert [c.king_losses for c in ranked] == [1, 1, 2]
    assert rank(moves, np.array([sortie, quiet, twice, safe]), survivors)[0].move == moves[3]


def test_the_expected_score_weighs_each_scored_board_by_the_boards_it_stands_for() -> None:
    """Two attacked boards (all of them scored) and two of 98 quiet ones: the quiet boards stand for
    49 each. The first move loses the king on both attacked boards and is level on the quiet ones;
    the second loses it on one attacked board and a pawn on the quiet ones. Unweighted, the second
    looks better (half the scored boards lost by the first); weighted, the first loses 2 boards of 100
    and keeps level on the rest: it wins."""
    scores = np.array([[-30_000.0, -30_000.0, 0.0, 0.0], [-30_000.0, 0.0, -100.0, -100.0]])
    moves = [chess.Move.from_uci(m) for m in ("e1f1", "d1d2")]
    weights = stood_for(attacked=2, others=98, chosen=4)
    assert weights.tolist() == [1.0, 1.0, 49.0, 49.0]
    config = MoveConfig(king_risk="expected")
    assert rank(moves, scores, config)[0].move == moves[1]
    assert rank(moves, scores, config, stand_for=weights)[0].move == moves[0]
    assert stood_for(attacked=30, others=500, chosen=10).tolist() == [3.0] * 10


def stood_for(attacked: int, others: int, chosen: int) -> np.ndarray:
    """How many boards each of ``chosen`` sampled boards stands for (attacked boards first)."""
    board = chess.Board()
    tiers = Tiers([board] * attacked, [], [board] * others)
    return tiers.sample(chosen, 0.0, np.random.default_rng(0))[1]


def test_rational_weighs_boards_by_how_well_the_opponent_did_there() -> None:
    """Board 1: the opponent played well (our best reply -200). Board 2: it hung its queen (our best
    reply, C, takes it: +800). A is the best move on board 1 and loses a pawn more on board 2; B is a
    little worse on board 1 and fine on board 2; C takes the queen if it is there and is lost if not.
    ``min`` lets board 2 decide against A (B); ``mean`` lets the blunder board buy C; ``rational``
    barely counts the board only a blunder reaches and plays the best move on the likely one (A)."""
    scores = np.array([[-200.0, -300.0], [-260.0, 200.0], [-900.0, 800.0]])
    moves = [chess.Move.from_uci(m) for m in ("e2e4", "d2d4", "d1h5")]
    chosen = {
        how: rank(moves, scores, MoveConfig(aggregate=how))[0].move for how in ("min", "mean", "rational")
    }
    assert chosen == {"min": moves[1], "mean": moves[2], "rational": moves[0]}
    lean = aggregate(scores, "rational", 0.0, temperature=0.05)
    assert lean[0] == pytest.approx(float(win_probability(np.array([-200.0]))[0]), abs=1e-4)
    assert aggregate(scores, "rational", 0.0, temperature=1e6) == pytest.approx(
        aggregate(scores, "mean", 0.0)
    )


def test_rational_counts_equally_likely_boards_alike() -> None:
    """Three boards on which our best reply expects the same (-100): the opponent did equally well on
    each, so each counts a third. The second move is 10 cp worse on its worst board than the first
    and 150 cp better on two boards: ``min`` keeps the first, ``rational`` (like the mean) the second."""
    scores = np.array([[-100.0, -250.0, -250.0], [-260.0, -100.0, -100.0]])
    moves = [chess.Move.from_uci(m) for m in ("e2e4", "d2d4")]
    assert rank(moves, scores, MoveConfig(aggregate="min"))[0].move == moves[0]
    assert rank(moves, scores, MoveConfig(aggregate="rational"))[0].move == moves[1]
    assert aggregate(scores, "rational", 0.0) == pytest.approx(aggregate(scores, "mean", 0.0))


def test_check_odds_are_worth_most_where_we_stand_worst() -> None:
    """A check that wins at once one time in five lifts the expected score p to 0.2 + 0.8 p: from
    -800 cp (p ~0.01) to about -260, from 0 to about +70, and from +800 (p ~0.99) by a few centipawns;
    a lost king stays lost, and without odds nothing changes."""
    cp = np.array([-KING_CAPTURE_SCORE, -800.0, 0.0, 800.0, 20_000.0])
    valued = with_check_odds(cp, 0.2)
    expected = 0.2 + 0.8 * win_probability(cp[1:4])
    assert win_probability(valued[1:4]) == pytest.approx(expected)
    assert valued[0] == -KING_CAPTURE_SCORE and valued[4] == 20_000.0
    gains = valued[1:4] - cp[1:4]
    assert gains[0] > 500 > gains[1] > 50 > gains[2] > 0
    assert np.array_equal(with_check_odds(cp, 0.0), cp)


def test_the_measured_curve_is_flat_near_level_and_steep_past_it() -> None:
    """The logistic leaves centipawns alone; the measured curve gives our measured scores at its points
    (0 cp: 0.66, -300: 0.60, +600: 0.87), rises with the centipawns and gives a lost king nothing."""
    cp = np.array([-30_000.0, -300.0, 0.0, 600.0])
    assert (on_curve(cp, "logistic") == cp).all()
    scores = win_probability(on_curve(cp, "measured"))
    assert scores[0] < 1e-6 and scores[1:] == pytest.approx([0.60, 0.66, 0.87])
    grid = np.linspace(-5_000.0, 5_000.0, 201)
    assert (np.diff(win_probability(on_curve(grid, "measured"))) >= 0).all()
    with pytest.raises(ValueError, match="unknown score curve"):
        on_curve(cp, "steep")


def test_under_the_measured_curve_a_rare_queen_hang_outweighs_a_small_gain() -> None:
    """Twenty boards: one move stands 50 cp better on 19 and hangs the queen (-900) on the other, the
    second stands level on all. Averaged on the logistic the hang is worth its risk (0.54 against
    0.50); on the measured curve, where 50 cp near level buys little, it is not."""
    risky = np.array([50.0] * 19 + [-900.0])
    scores = np.stack([risky, np.zeros(20)])
    moves = [chess.Move.from_uci("d1h5"), chess.Move.from_uci("g1f3")]
    logistic = rank(moves, scores, MoveConfig(aggregate="mean"))
    measured = rank(moves, scores, MoveConfig(aggregate="mean", score_curve="measured"))
    assert logistic[0].move == moves[0] and measured[0].move == moves[1]
    assert measured[1].mean == pytest.approx(risky.mean())  # the logged mean stays in centipawns
