"""Board weights by how likely the opponent's play made each board (rbc_bot.likely), and the senses
that use them (``sense.likely_weights``), with real Stockfish."""

from __future__ import annotations

import chess
import numpy as np
from reconchess.utilities import move_actions

from rbc_bot.belief import encode
from rbc_bot.board_sample import Tiers, uniform
from rbc_bot.bot import RbcBot
from rbc_bot.config import EngineConfig, MoveConfig, load_config
from rbc_bot.engine import EnginePool
from rbc_bot.likely import (
    FIFTH_WEIGHTS,
    TENTH_WEIGHTS,
    WEIGHT_TABLES,
    LikelyDraw,
    board_weights,
    rank_weights,
)
from rbc_bot.move import choose_move, move_weights
from rbc_bot.ranking import rank
from rbc_bot.scorer import Scorer
from rbc_bot.sense import window_keys, window_square
from rbc_bot.sense_rules import SenseInputs, SenseRules
from tests.test_sense_rules import after_each_unseen_reply


def test_the_boards_worst_for_us_weigh_most() -> None:
    weights = rank_weights(np.array([500.0, -500.0, 0.0, 100.0, -100.0]))
    assert list(weights) == [FIFTH_WEIGHTS[4], FIFTH_WEIGHTS[0], FIFTH_WEIGHTS[2], FIFTH_WEIGHTS[3],
                             FIFTH_WEIGHTS[1]]  # fmt: skip
    tied = rank_weights(np.array([-300.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 20.0, 900.0]))
    assert tied[0] == FIFTH_WEIGHTS[0] and tied[-1] == FIFTH_WEIGHTS[4]
    assert len(set(tied[1:-1])) == 1  # ties share their middle rank
    assert list(rank_weights(np.array([7.0]))) == [1.0] and len(rank_weights(np.array([]))) == 0


def test_tenths_split_the_worst_fifth() -> None:
    """Ten boards, one a tenth: by tenths the worst board weighs 5.0 and the next 1.6, where by fifths
    both weigh 3.25; the table is chosen by name in the sense and move sections."""
    values = np.arange(10.0)
    assert list(rank_weights(values, TENTH_WEIGHTS)) == list(TENTH_WEIGHTS)
    assert list(rank_weights(values)[:2]) == [FIFTH_WEIGHTS[0]] * 2
    assert list(TENTH_WEIGHTS) == sorted(TENTH_WEIGHTS, reverse=True)
    config = load_config(overrides=["sense.likely_table=tenths", "move.likely_table=tenths"])
    assert WEIGHT_TABLES[config.sense.likely_table] is TENTH_WEIGHTS
    assert WEIGHT_TABLES[config.move.likely_table] is TENTH_WEIGHTS
    scores = np.array([[-50.0, 10.0, 30.0, 90.0, 0.0, 20.0, 40.0, 60.0, 70.0, 80.0]])
    weights = move_weights([chess.Board()] * 10, scores, config.move)
    assert weights is not None and weights[0] == 5.0 and weights[4] == 1.6


def test_weighted_window_tells_the_heavy_boards_apart() -> None:
    """Two heavy boards that differ on the king's side (e3 or e4) and eight light ones that differ on
    the queen's side: counted alike, the window that splits the eight leaves the fewest boards; weighed,
    the one that tells e3 from e4."""
    start = chess.Board()
    heavy = ["e2e3", "e2e4"]
    light = ["a2a3", "a2a4", "b2b3", "b2b4", "c2c3", "c2c4", "b1a3", "b1c3"]
    boards = []
    for uci in heavy + light:
        board = start.copy()
        board.push_uci(uci)
        boards.append(board)
    rows = np.stack([encode(b) for b in boards])
    weights = np.array([3.0] * len(heavy) + [0.15] * len(light))

    def tells_heavy_apart(centre: int) -> bool:
        keys = window_keys(rows[: len(heavy)], centre)
        return bool(keys[0] != keys[1])

    assert not tells_heavy_apart(window_square(rows))
    assert tells_heavy_apart(window_square(rows, weights))
    assert window_square(rows, np.ones(len(rows))) == window_square(rows)


def test_the_window_rule_weighs_the_boards_by_their_scores() -> None:
    """White after 1. e4 e5 2. Nf3 and an unseen reply, the decision rule kept out by its size limit:
    with ``sense.likely_weights`` the rule is ``likely-window``, it scores every board once with the
    engine (deterministic, fixed nodes), and its centre is the weighted window's on those scores."""
    boards = after_each_unseen_reply("e4", "e5", "Nf3")
    rows = np.stack([encode(b) for b in boards])
    seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 30.0, False)
    fixed = ["engine.workers=1", "engine.deterministic=true", "engine.nodes=200"]
    settings = [
        *fixed,
        "sense.danger_first=false",
        "sense.decision_max_boards=5",
        "sense.likely_weights=true",
    ]
    bot = RbcBot(load_config(None, settings))
    try:
        bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
        square, rule = SenseRules(bot.config, bot.scorer, bot.rng).choose(seen)
        assert rule == "likely-window" and bot.scorer.evaluations == len(boards)
        weights = board_weights(boards, bot.scorer, 30.0)
        assert square == window_square(rows, weights)
        assert len(set(weights)) > 1
    finally:
        bot.close()


def queen_down_among_level() -> tuple[chess.Board, chess.Board, list[chess.Board]]:
    """The start position, the same without White's queen, and 40 of the second among 160 of the first."""
    level = chess.Board()
    down = chess.Board()
    down.remove_piece_at(chess.D1)
    return level, down, [down] * 40 + [level] * 160


def test_the_move_sample_draws_the_boards_worst_for_us_more_often() -> None:
    """Forty boards where White (to move) has lost its queen among 160 where it has not: a uniform
    draw of 20 takes about 4 of them, the likely draw about 12 (odds 3.25 against 0.3 a board), and
    the pool is scored once (depth-1 equivalent: 200 nodes) however many draws follow."""
    _, down, boards = queen_down_among_level()
    with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
        scorer = Scorer(pool, EngineConfig(nodes=200))
        draw = LikelyDraw(scorer, pool_size=200, budget_seconds=30.0)
        drawn = [draw(boards, 20, np.random.default_rng(seed)) for seed in range(5)]
        assert scorer.evaluations == 200
        assert draw(boards, 200, np.random.default_rng(0)) == boards  # all of them: nothing to weigh
    assert scorer.evaluations == 200
    uniform_counts = [uniform(boards, 20, np.random.default_rng(s)).count(down) for s in range(5)]
    likely_counts = [sample.count(down) for sample in drawn]
    assert all(len(sample) == 20 for sample in drawn)
    assert sum(likely_counts) >= 50 and sum(uniform_counts) <= 35, (likely_counts, uniform_counts)


def test_the_move_selector_scores_a_likely_sample_when_not_every_board_fits() -> None:
    """``move.likely_pool``: with 200 believed boards and room for 20, the pool is scored before the
    candidates (the 200 depth-1 evaluations on top of the candidates' own) and the move is legal."""
    level, _, boards = queen_down_among_level()
    legal = move_actions(level)
    evaluations = {}
    for pool_size in (0, 200):
        config = MoveConfig(max_boards=20, min_boards=20, likely_pool=pool_size)
        with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
            scorer = Scorer(pool, EngineConfig(nodes=200))
            decision = choose_move(boards, legal, scorer, config, 30.0, np.random.default_rng(0))
        assert decision.move in legal and decision.boards_scored == 20
        evaluations[pool_size] = scorer.evaluations - decision.evaluations
    assert evaluations[200] - evaluations[0] == 200


def test_the_averaging_aggregates_weigh_the_boards_worst_for_us_most() -> None:
    """``move.likely_weights``: a move that does well on four boards where we stand well and badly on
    the one where we stand worst (the likeliest) wins the plain mean and loses the weighed one to a
    move that is modest everywhere; ``min`` ignores the weights."""
    bold, modest = chess.Move.from_uci("d1h5"), chess.Move.from_uci("g1f3")
    scores = np.array([[-300.0, 600, 600, 600, 600], [-100.0, 100, 100, 100, 100]])
    boards = [chess.Board()] * 5
    for likely, best in ((False, bold), (True, modest)):
        config = MoveConfig(aggregate="mean", likely_weights=likely)
        weights = move_weights(boards, scores, config)
        assert (weights is None) != likely
        assert rank([bold, modest], scores, config, weights)[0].move == best
    weights = move_weights(boards, scores, MoveConfig(likely_weights=True))
    assert weights is not None and weights[0] == FIFTH_WEIGHTS[0] and len(set(weights[1:])) == 1
    worst_first = MoveConfig(aggregate="min", likely_weights=True)
    assert rank([bold, modest], scores, worst_first, weights)[0].move == modest
    assert rank([bold, modest], scores[:, 1:], worst_first, weights[1:])[0].move == bold


def test_weighing_the_represented_boards_keeps_a_rare_check_to_its_share() -> None:
    """``move.weigh_represented``: one believed board of 41 holds a check; all attacked boards are
    scored, so in a sample of five it is a fifth of the mean. A move that loses 400 cp there and gains
    150 on the calm boards loses to a move level everywhere when the boards count alike, and wins
    when each counts for the believed boards it stands for (the worst board still counts in full)."""
    checked = chess.Board("4k3/8/8/8/8/8/4r3/4K3 w - - 0 1")
    calm = [chess.Board("4k3/8/8/8/8/8/r7/4K3 w - - 0 1") for _ in range(40)]
    tiers = Tiers.of([checked, *calm], split_threats=False)
    boards, represented = tiers.sample(5, 0.0, np.random.default_rng(0))
    assert boards[0] is checked and list(represented) == [1.0, 10.0, 10.0, 10.0, 10.0]
    level, bold = chess.Move.from_uci("e1d1"), chess.Move.from_uci("e1f1")
    scores = np.array([[0.0] * 5, [-400.0, 150, 150, 150, 150]])
    for weigh, best in ((False, level), (True, bold)):
        config = MoveConfig(aggregate="mix", likely_weights=False, weigh_represented=weigh)
        weights = move_weights(boards, scores, config, represented)
        assert (weights is None) != weigh
        assert rank([level, bold], scores, config, weights)[0].move == best
    both = move_weights(boards, scores, MoveConfig(likely_weights=True, weigh_represented=True), represented)
    likely = move_weights(boards, scores, MoveConfig(likely_weights=True))
    assert both is not None and likely is not None
    assert np.allclose(both, likely * represented / 10.0)


def test_the_window_rule_multiplies_in_the_belief_prior() -> None:
    """With a prior from the belief (its carried weights, rbc_bot.belief_weights) the likely-window
    centre is the weighted window's on the rank weights times the prior: here a prior that counts the
    boards where Black's g8 knight has moved a hundred times moves the centre."""
    boards = after_each_unseen_reply("e4", "e5", "Nf3")
    rows = np.stack([encode(b) for b in boards])

    def prior(some: np.ndarray) -> np.ndarray:
        return np.where(some[:, chess.G8] == 0, 100.0, 1.0)

    fixed = ["engine.workers=1", "engine.deterministic=true", "engine.nodes=200"]
    rules = ["sense.danger_first=false", "sense.decision_max_boards=5", "sense.likely_weights=true"]
    bot = RbcBot(load_config(None, [*fixed, *rules]))
    try:
        bot.handle_game_start(chess.WHITE, boards[0].copy(), "nobody")
        seen = SenseInputs(rows, chess.WHITE, 0.0, 0.0, move_actions(boards[0]), 30.0, False, prior=prior)
        square, rule = SenseRules(bot.config, bot.scorer, bot.rng).choose(seen)
        weights = board_weights(boards, bot.scorer, 30.0)
        assert rule == "likely-window"
        assert square == window_square(rows, weights * prior(rows))
        assert square != window_square(rows, weights)
    finally:
        bot.close()
