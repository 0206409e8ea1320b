"""``move.probe_cp`` (rbc_bot.probing): a move earns centipawns for the believed boards its answer rules
out. Checked against reconchess's own revision of each request, and in a real choice with Stockfish."""

from __future__ import annotations

from collections import Counter

import chess
import numpy as np
import pytest
from reconchess.utilities import capture_square_of_move, revise_move

from rbc_bot.config import EngineConfig, MoveConfig
from rbc_bot.engine import EnginePool
from rbc_bot.move import choose_move
from rbc_bot.playout import play_out
from rbc_bot.probing import probe_bonuses, ruled_out_share
from rbc_bot.scorer import Scorer

# White: Ra1, Ke1; Black: Ke8 and a knight on a4, on a6, or nowhere. Ra1-a8 stops on the knight (and
# takes it) or reaches a8: three answers. Ke1-e2 is taken as asked on all three.
KNIGHT_FILES = ("4k3/8/8/8/n7/8/8/R3K3", "4k3/8/n7/8/8/8/8/R3K3", "4k3/8/8/8/8/8/8/R3K3")
BOARDS = [chess.Board(f"{placement} w - - 0 1") for placement in KNIGHT_FILES]


def answer_shares(board_set: list[chess.Board], move: chess.Move | None) -> list[float]:
    """The shares of ``board_set`` giving each answer to ``move``, by reconchess itself."""
    if move is None:
        return [1.0]
    answers: Counter[tuple[chess.Move | None, int | None]] = Counter()
    for board in board_set:
        taken = revise_move(board, move)
        answers[(taken, capture_square_of_move(board, taken) if taken else None)] += 1
    return [n / len(board_set) for n in answers.values()]


def test_the_share_ruled_out_is_one_minus_the_sum_of_squared_answer_shares() -> None:
    outcomes = np.array([[5, 5, 5, 5], [1, 1, 2, 2], [1, 2, 3, 4], [1, 1, 1, 2]])
    shares = ruled_out_share(outcomes, np.ones(4))
    assert np.allclose(shares, [0.0, 0.5, 0.75, 1 - (0.75**2 + 0.25**2)])
    # A scored board standing for three believed ones counts three times.
    assert np.allclose(ruled_out_share(np.array([[1, 2]]), np.array([3.0, 1.0])), [1 - (0.75**2 + 0.25**2)])


def test_a_slide_that_stops_on_different_boards_earns_the_bonus_and_a_sure_move_none() -> None:
    slide, king_step = chess.Move.from_uci("a1a8"), chess.Move.from_uci("e1e2")
    played = play_out([slide, king_step, None], BOARDS, MoveConfig(), 0.0)
    bonuses = probe_bonuses([slide, king_step, None], played.outcomes, np.ones(3), 3_000, 90.0)
    assert answer_shares(BOARDS, slide) == [1 / 3] * 3 and answer_shares(BOARDS, king_step) == [1.0]
    # Two thirds of 3,000 boards is 2,000: twice the 1,000 that 90 cp pays for.
    assert bonuses == pytest.approx({slide: 180.0, king_step: 0.0, None: 0.0})


def test_the_choice_adds_each_candidates_bonus_to_every_board() -> None:
    """The same choice with and without ``move.probe_cp``, real Stockfish at 200 nodes a search: every
    candidate's mean over the boards differs by exactly its bonus, reckoned here from reconchess's
    answers, and some candidate (a rook move up the a-file) earns one."""
    legal = list(BOARDS[2].pseudo_legal_moves)  # the rook's whole a-file among them
    means, pays = {}, {}
    for probe_cp in (0.0, 300.0):
        config = MoveConfig(probe_cp=probe_cp, max_boards=3, min_boards=3)
        with EnginePool(workers=1, deterministic=True, timeout=10.0) as pool:
            scorer = Scorer(pool, EngineConfig(nodes=200))
            decision = choose_move(BOARDS, legal, scorer, config, 30.0, np.random.default_rng(0))
        assert decision.boards_scored == 3
        means[probe_cp] = {c.move: c.mean for c in decision.candidates}
        pays[probe_cp] = decision.probe_pay
    assert means[0.0].keys() == means[300.0].keys()
    expected = {
        move: 300.0 * (1 - sum(p**2 for p in answer_shares(BOARDS, move))) * len(BOARDS) / 1_000
        for move in means[0.0]
    }
    gained = {move: means[300.0][move] - means[0.0][move] for move in means[0.0]}
    assert gained == pytest.approx(expected) and pays[300.0] == pytest.approx(expected)
    assert pays[0.0] is None  # off: nothing reckoned, nothing logged
    assert max(expected.values()) > 0, expected
