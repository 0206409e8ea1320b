"""The belief's carried weights (rbc_bot.belief_weights): a board's probability under a uniformly random
opponent, from its parents, through every observation of the tracker."""

from __future__ import annotations

import random
from collections.abc import Sequence

import chess
import numpy as np
import pytest
from belief_helpers import Observer
from reconchess import LocalGame
from reconchess.bots.random_bot import RandomBot
from reconchess.play import play_turn
from reconchess.utilities import move_actions

from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_rows import encode
from rbc_bot.belief_weights import expand_weighted, normalized, opponent_moves
from rbc_bot.board_sample import PriorDraw, by_odds, uniform
from rbc_bot.bot import RbcBot
from rbc_bot.config import BeliefConfig, EngineConfig, MoveConfig, load_config
from rbc_bot.engine import EnginePool
from rbc_bot.expand_fast import expand
from rbc_bot.move import choose_move
from rbc_bot.rules import sense_window
from rbc_bot.scorer import Scorer
from tests.test_likely import queen_down_among_level


def moves_with_pass(board: chess.Board) -> int:
    return len(list(board.pseudo_legal_moves)) + 1


def test_a_board_two_parents_reach_weighs_both() -> None:
    """Parent A has White's knight on b1, parent B on a3: A's pass and B's Na3-b1 both reach A's board,
    A's Nb1-a3 and B's pass both reach B's, so those two weigh 1/N(A) + 1/N(B) each, where every other
    child weighs 1/N of its one parent (N: the parent's moves and the pass)."""
    a = chess.Board()
    b = chess.Board("rnbqkbnr/pppppppp/8/8/8/N7/PPPPPPPP/R1BQKBNR w KQkq - 0 1")
    rows = np.stack([encode(a), encode(b)])
    n_a, n_b = opponent_moves(rows, chess.WHITE).tolist()
    assert (n_a, n_b) == (moves_with_pass(a), moves_with_pass(b))
    children, logs = expand_weighted(rows, np.zeros(2), chess.WHITE, None)
    assert {r.tobytes() for r in children} == {r.tobytes() for r in expand(rows, chess.WHITE, None)}
    assert len(children) == n_a + n_b - 2
    parents = {encode(a)[:64].tobytes(), encode(b)[:64].tobytes()}
    shared = np.array([r[:64].tobytes() in parents for r in children])
    assert shared.sum() == 2
    weights = np.exp(logs) * (1 / n_a + 1 / n_b)  # shifted so that the largest, a shared board, is 1
    assert weights[shared] == pytest.approx([1 / n_a + 1 / n_b] * 2)
    only = sorted(weights[~shared])
    assert only == pytest.approx(sorted([1 / n_a] * (n_a - 2) + [1 / n_b] * (n_b - 2)))


def test_a_capture_counts_among_the_parent_moves() -> None:
    """Black's move count includes its captures of our pieces: a pawn that can take ours has one more."""
    quiet = chess.Board("4k3/8/8/3p4/8/8/8/4K3 b - - 0 1")
    taking = chess.Board("4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1")
    counts = opponent_moves(np.stack([encode(taking)]), chess.BLACK)
    assert counts.tolist() == [moves_with_pass(taking)]
    assert moves_with_pass(taking) == moves_with_pass(quiet) + 1


def test_a_reported_capture_weighs_each_capture_by_its_parents_moves() -> None:
    """Our pawn on e4 was taken: on parent P1 only ...dxe4 could, on P2 also ...fxe4. Each capture
    weighs 1 over its parent's number of moves, all of them (quiet ones, the pass, every capture)."""
    p1 = chess.Board("4k3/8/8/3p4/4P3/8/8/4K3 b - - 0 1")
    p2 = chess.Board("4k3/8/8/3p1p2/4P3/8/8/4K3 b - - 0 1")
    rows = np.stack([encode(p1), encode(p2)])
    children, logs = expand_weighted(rows, np.zeros(2), chess.BLACK, chess.E4)
    assert {r.tobytes() for r in children} == {r.tobytes() for r in expand(rows, chess.BLACK, chess.E4)}
    n1, n2 = moves_with_pass(p1), moves_with_pass(p2)
    from_p1 = [r[chess.D5] == 0 and r[chess.F5] == 0 for r in children]  # P2 keeps one of its pawns
    weights = np.exp(logs)
    assert sorted(weights[np.array(from_p1)]) == pytest.approx([1.0])
    assert sorted(weights[~np.array(from_p1)]) == pytest.approx([n1 / n2] * 2)


def tracker(carry: bool) -> BeliefTracker:
    return BeliefTracker(chess.WHITE, config=BeliefConfig(max_cap=100_000, carry_weights=carry))


def sense_result(truth: chess.Board, square: int) -> list[tuple[int, chess.Piece | None]]:
    return [(sq, truth.piece_at(sq)) for sq in sense_window(square)]


def test_the_tracker_carries_weights_over_the_same_boards() -> None:
    """Through own moves, opponent moves and senses the weighted tracker holds the same boards as the
    plain one, with weights of mean 1 that are not all alike, found again from the boards themselves."""
    truth = chess.Board()
    plain, carried = tracker(False), tracker(True)
    plies = (("e2e4", "e7e5", chess.B2), ("g1f3", "b8c6", chess.G2), ("f1c4", "g8f6", chess.D7))
    for ours, theirs, sense in plies:
        move = chess.Move.from_uci(ours)
        truth.push(move)
        for t in (plain, carried):
            t.on_own_move(move, move, None)
        truth.push(chess.Move.from_uci(theirs))
        for t in (plain, carried):
            t.on_opponent_move(None)
            t.on_sense(sense, sense_result(truth, sense))
    assert {r.tobytes() for r in plain.rows} == {r.tobytes() for r in carried.rows}
    assert carried.contains(truth)
    weights = carried.weights()
    assert weights.mean() == pytest.approx(1.0)
    assert weights.max() > 1.5 * weights.min()
    assert np.allclose(carried.weights_of_boards(carried.boards()), weights)
    assert np.allclose(plain.weights(), 1.0)


def test_boards_rebuilt_after_a_contradiction_weigh_alike() -> None:
    """A sense no board fits rebuilds the belief: the boards forced to fit have no history to weigh."""
    t = tracker(True)
    for uci in ("e2e4", "d2d4"):
        t.on_own_move(chess.Move.from_uci(uci), chess.Move.from_uci(uci), None)
        t.on_opponent_move(None)
    assert len(set(t.weights().round(9))) > 1
    queen = chess.Piece(chess.QUEEN, chess.BLACK)
    t.on_sense(chess.E5, [(sq, queen) for sq in sense_window(chess.E5)])  # nine black queens: none fits
    assert t.stats.rebuilds == 1
    assert np.allclose(t.weights(), 1.0)


def test_normalized_weights_have_mean_one() -> None:
    assert normalized(np.log(np.array([1.0, 3.0]))).tolist() == pytest.approx([0.5, 1.5])
    assert len(normalized(np.zeros(0))) == 0


def test_the_bot_hands_the_sense_and_the_move_its_weights_at_their_power() -> None:
    """``sense.prior_power`` and ``move.prior_power`` raise the carried weights (0: not used); without
    ``belief.carry_weights`` neither gets any; a negative power is refused before a game."""
    fixed = ["engine.workers=1", "belief.carry_weights=true"]
    bot = RbcBot(load_config(None, [*fixed, "sense.prior_power=0.5", "move.prior_power=0"]))
    try:
        bot.handle_game_start(chess.WHITE, chess.Board(), "nobody")
        for uci in ("e2e4", "d2d4"):
            bot.tracker.on_own_move(chess.Move.from_uci(uci), chess.Move.from_uci(uci), None)
            bot.tracker.on_opponent_move(None)
        rows = bot.tracker.rows
        sense = bot._prior(bot.config.sense.prior_power, bot.tracker.weights_of)
        assert sense is not None
        assert np.allclose(sense(rows), bot.tracker.weights() ** 0.5)
        assert bot._prior(bot.config.move.prior_power, bot.tracker.weights_of_boards) is None
    finally:
        bot.close()
    with pytest.raises(ValueError, match=r"move\.prior_power"):
        load_config(None, ["move.prior_power=-1"])


class WeighingObserver(Observer):
    """The belief tests' observer with the carried weights on: besides the truth, each observation
    leaves one weight per live board."""

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        super().handle_game_start(color, board, opponent_name)
        self.tracker.carry_weights = True

    def check(self) -> None:
        super().check()
        assert len(self.tracker.log_weights) == self.tracker.live_size
        assert np.isfinite(self.tracker.log_weights).all()


def test_weights_follow_samplings_and_recoveries_of_a_real_game() -> None:
    """A small cap against RandomBot samples and recovers often: the truth stays live or stashed (the
    observer's check) and the weights stay one per live board, the recovered ones alike."""
    random.seed(3)
    game = LocalGame(seconds_per_player=None, full_turn_limit=15)
    observer = WeighingObserver(game, cap=8, seed=3)
    players = {chess.WHITE: observer, chess.BLACK: RandomBot()}
    for side, player in players.items():
        player.handle_game_start(side, game.board.copy(), "opponent")
    game.start()
    while not game.is_over():
        play_turn(game, players[game.turn], end_turn_last=False)
    assert observer.checks > 20
    assert observer.tracker.stats.samplings > 0 and observer.tracker.stats.recoveries > 0


class CountingPrior:
    """A prior of 9 for the boards without White's queen and 1 for the others, counting the boards it
    is asked about."""

    def __init__(self) -> None:
        self.asked = 0

    def __call__(self, boards: Sequence[chess.Board]) -> np.ndarray:
        self.asked += len(boards)
        return np.array([1.0 if board.pieces(chess.QUEEN, chess.WHITE) else 9.0 for board in boards])


def queen_down_copies() -> tuple[chess.Board, list[chess.Board]]:
    """tests/test_likely's 40 queenless boards among 160 level ones, each its own object (the prior
    draw tells boards apart by identity), and the queenless board."""
    _, down, boards = queen_down_among_level()
    return down, [board.copy() for board in boards]


def test_the_prior_draw_takes_the_heavier_boards_more_often_and_asks_each_weight_once() -> None:
    """Odds 9 against 1: a uniform draw of 20 of the 200 boards takes about 4 queenless ones, this one
    about 13 (without replacement, a little fewer than the odds' 14); the prior is asked once per board
    however many draws follow, and a draw of every board is every board."""
    (down, boards), prior = queen_down_copies(), CountingPrior()
    draw = PriorDraw(prior)
    drawn = [draw(boards, 20, np.random.default_rng(seed)) for seed in range(5)]
    assert prior.asked == 200 and all(len(sample) == 20 for sample in drawn)
    assert draw(boards, 200, np.random.default_rng(0)) == boards
    queenless = [sample.count(down) for sample in drawn]
    uniform_counts = [uniform(boards, 20, np.random.default_rng(s)).count(down) for s in range(5)]
    assert sum(queenless) >= 50 and sum(uniform_counts) <= 30, (queenless, uniform_counts)
    assert by_odds(boards, np.ones(200), 200, np.random.default_rng(0)) == boards  # all, in order


def test_the_move_draws_its_boards_by_the_prior_or_weighs_its_means_by_it() -> None:
    """``move.prior_draw``: with 200 boards and room for 20, the prior weighs the whole calm tier
    before the draw (and not the 20 scored boards' means afterwards); without it, only the 20 scored
    boards are weighed. Real Stockfish at 200 nodes a search; the move is legal either way."""
    legal = move_actions(chess.Board())
    asked = {}
    for prior_draw in (False, True):
        prior = CountingPrior()
        config = MoveConfig(max_boards=20, min_boards=20, prior_draw=prior_draw)
        with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
            scorer = Scorer(pool, EngineConfig(nodes=200))
            _, boards = queen_down_copies()
            decision = choose_move(boards, legal, scorer, config, 30.0, np.random.default_rng(0), prior=prior)
        assert decision.move in legal and decision.boards_scored == 20
        asked[prior_draw] = prior.asked
    assert asked == {False: 20, True: 200}
