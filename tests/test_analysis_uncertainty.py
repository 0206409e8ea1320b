"""Uncertainty per turn: the share of believed boards with the king attacked, the heat map of believed
enemy pieces, and whether the sense changed the move our selector picks.

Checked on hand-built boards and against the belief of a real reconchess game re-simulated exactly.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

import chess
import numpy as np
import pytest
from reconchess import LocalGame, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

from rbc_bot.belief import encode
from rbc_bot.engine import EnginePool
from rbc_bot.replay.decisions import sense_decision
from rbc_bot.replay.resim import resimulate, truth_at_turn_start
from rbc_bot.replay.views import ATTACK_SAMPLE, ViewRecorder, enemy_heat, king_attacked_share


def test_king_attacked_share_counts_the_boards_with_the_king_attacked() -> None:
    safe = chess.Board()
    checked = chess.Board("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1")  # a knight on f3 attacks e1
    assert checked.is_check()
    assert king_attacked_share([safe, safe, safe, checked]) == 0.25
    assert king_attacked_share([]) is None


def test_enemy_heat_is_the_share_of_boards_with_an_enemy_piece() -> None:
    boards = [chess.Board(), chess.Board("4k3/8/8/8/8/5n2/8/4K3 w - - 0 1")]
    pieces = np.stack([encode(b)[:64] for b in boards])
    heat = enemy_heat(pieces, chess.WHITE)
    assert heat[chess.E8] == 1.0 and heat[chess.F3] == 0.5 and heat[chess.A7] == 0.5 and heat[chess.E1] == 0.0
    assert enemy_heat(pieces, chess.BLACK)[chess.E1] == 1.0


@pytest.fixture(scope="module")
def pool() -> Iterator[EnginePool]:
    with EnginePool(workers=2, deterministic=True) as engines:
        yield engines


# White to move. A: Black's queen on h5 attacks White's queen and can be taken; B, B2: it stands far off.
A = chess.Board("6k1/5p1p/6p1/7q/5N2/8/5PPP/3Q2K1 w - - 0 1")
B = chess.Board("6k1/5p1p/6p1/q7/5N2/8/5PPP/3Q2K1 w - - 0 1")
B2 = chess.Board("6k1/5p1p/6p1/8/1q3N2/8/5PPP/3Q2K1 w - - 0 1")


def test_a_sense_that_finds_the_queen_changes_the_move(pool: EnginePool) -> None:
    found = sense_decision(pool, A, [A, B, B2], [A], nodes=1000)
    assert found.changed is True and found.before != found.after
    assert found == sense_decision(pool, A, [A, B, B2], [A], nodes=1000)  # node limits: reproducible
    # Learning nothing new leaves the decision as it was.
    same = sense_decision(pool, B, [B, B2], [B, B2], nodes=1000)
    assert same.changed is False and same.before == same.after
    assert sense_decision(pool, B, [], [B], nodes=1000).changed is None


def test_views_of_a_real_game_match_its_belief() -> None:
    attacked_turns = 0
    random.seed(3)
    history = play_local_game(RandomBot(), AttackerBot(), game=LocalGame(full_turn_limit=6))[2]
    for color in chess.COLORS:
        recorder = ViewRecorder(color, sample=100_000)  # more than the belief holds: every board
        side = resimulate(history, color, cap=None, observe=recorder)
        assert side.error is None and sorted(recorder.views) == [t.turn for t in side.turns]
        for t in side.turns:
            view = recorder.views[t.turn]
            assert (view.size_before_sense, view.size_after_sense) == (
                t.size_after_opponent,
                t.size_after_sense,
            )
            assert (
                len(view.after_sense) == t.size_after_sense
                and len(view.before_sense) == t.size_after_opponent
            )
            for square in (chess.E1, chess.D4, chess.E8, chess.H5):
                share = sum(
                    (p := b.piece_at(square)) is not None and p.color != color for b in view.after_sense
                ) / len(view.after_sense)
                assert view.heat[square] == pytest.approx(share)
            turn = next(x for x in history.turns(color) if x.turn_number == t.turn)
            truth = truth_at_turn_start(history, turn)
            assert view.king_attacked_share is not None
            if t.size_after_sense <= ATTACK_SAMPLE and king_attacked_share([truth]):
                assert view.king_attacked_share > 0  # the truth is among the boards, so some are attacked
                attacked_turns += 1
    assert attacked_turns > 0  # the game (AttackerBot) checks a king, else the check above proves nothing
