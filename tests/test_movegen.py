"""The bulk expansion (rbc_bot.expand_fast) returns exactly what rbc_bot.belief.expand returns.

Exactly: the same array, order included, so swapping one for the other changes no game. Checked on
thousands of positions from real reconchess games, for both movers, with no capture and with every
capture square, and on hand-made positions for the rare moves (castling both ways, en passant,
promotions by push and by capture, rights left without their rook).
"""

from __future__ import annotations

import chess
import numpy as np
import pytest
from reconchess.bots.random_bot import RandomBot

from rbc_bot import expand_fast
from rbc_bot.belief_ops import expand
from rbc_bot.belief_rows import encode

# Rare moves: promotions (quiet and capturing), castles both ways for both sides, en passant both ways.
SPECIAL_FENS = [
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPpP/R3K2R w KQkq - 0 1",
    "r3k2r/pPppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPpP/R3K2R b KQkq - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3",
    "rnbqkbnr/pppp1ppp/8/8/2pPp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 3",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1",
    "4k3/8/8/8/8/8/8/4K2R w KQ - 0 1",  # a right whose rook is gone: no castle there
    "1r2k2r/1P6/8/8/8/8/6p1/R3K1N1 w Qk - 0 1",
    "1r2k2r/1P6/8/8/8/8/6p1/R3K1N1 b Qk - 0 1",
    "4k3/8/8/8/8/8/8/4K3 w - - 0 1",  # kings only
]


def _rows(boards: list[chess.Board]) -> np.ndarray:
    return np.stack([encode(board) for board in boards])


def _assert_same(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> None:
    expected = expand(rows, mover, capture_square)
    got = expand_fast.expand(rows, mover, capture_square)
    assert got.dtype == expected.dtype and got.shape == expected.shape, (mover, capture_square)
    assert np.array_equal(got, expected), (mover, capture_square)


@pytest.mark.parametrize("mover", [chess.WHITE, chess.BLACK])
def test_quiet_expansion_equals_belief_expand_on_real_boards(
    game_boards: list[chess.Board], mover: chess.Color
) -> None:
    _assert_same(_rows(game_boards), mover, None)


@pytest.mark.parametrize("mover", [chess.WHITE, chess.BLACK])
def test_capture_expansion_equals_belief_expand_on_every_square(
    game_boards: list[chess.Board], mover: chess.Color
) -> None:
    rows = _rows(game_boards[::7])  # every square x 1,500 boards: every capture kind occurs
    for square in range(64):
        _assert_same(rows, mover, square)


@pytest.mark.parametrize("fen", SPECIAL_FENS)
def test_rare_moves_equal_belief_expand(fen: str) -> None:
    rows = _rows([chess.Board(fen)])
    for mover in (chess.WHITE, chess.BLACK):
        for square in [None, *range(64)]:
            _assert_same(rows, mover, square)


def test_children_of_many_parents_are_deduplicated_across_parents(game_boards: list[chess.Board]) -> None:
    """Parents that share children (the same board twice, boards one move apart) merge them, and
    blocks of parents are joined before deduplication."""
    rows = _rows(game_boards[:500])
    doubled = np.concatenate([rows, rows, rows])
    original = expand_fast.BLOCK
    expand_fast.BLOCK = 256
    try:
        _assert_same(doubled, chess.WHITE, None)
    finally:
        expand_fast.BLOCK = original


def test_a_key_collision_falls_back_to_whole_rows(
    game_boards: list[chess.Board], monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the second key half disagrees inside a group, rows are compared whole: still exact."""
    monkeypatch.setattr(expand_fast, "first_of_each", lambda keys: None)
    _assert_same(_rows(game_boards[:400]), chess.BLACK, None)


def test_first_of_each_detects_a_collision() -> None:
    keys = np.array([[5, 1], [3, 2], [5, 1], [3, 2]], dtype=np.uint64)
    assert expand_fast.first_of_each(keys).tolist() == [0, 1]  # type: ignore[union-attr]
    keys[2, 1] = 9  # same first half, different second half
    assert expand_fast.first_of_each(keys) is None


def test_zobrist_keys_of_children_equal_keys_of_the_built_rows(game_boards: list[chess.Board]) -> None:
    """The keys computed from parent and move are the keys of the child rows themselves."""
    rows = _rows(game_boards[:300])
    for mover in (chess.WHITE, chess.BLACK):
        white = mover == chess.WHITE
        for square in (None, chess.E4, chess.D5):
            moves = expand_fast.generate(rows, mover, square)
            children = expand_fast.build_children(rows, moves, white)
            assert np.array_equal(expand_fast.child_keys(rows, moves, white), expand_fast.row_keys(children))


def test_empty_input_and_no_children() -> None:
    rows = _rows([chess.Board()])
    assert expand_fast.expand(rows[:0], chess.WHITE, None).shape == (0, 66)
    assert expand_fast.expand(rows, chess.WHITE, chess.E4).shape == (0, 66)  # nothing to capture there


def test_castling_bits_without_king_or_rook_at_home_are_ignored(game_boards: list[chess.Board]) -> None:
    """Every castling bit set on boards whose kings and rooks went elsewhere: python-chess's clean
    rights (king on e1/e8, rook on its corner) decide, in both expansions."""
    rows = _rows(game_boards[:2000])
    rows[:, 64] = 15
    for mover in (chess.WHITE, chess.BLACK):
        _assert_same(rows, mover, None)


def test_equal_on_the_tracker_beliefs_of_real_games(monkeypatch: pytest.MonkeyPatch) -> None:
    """Inside the tracker, on the beliefs of real games (our double pushes' en-passant squares, rights
    lost in play, real capture squares): every expansion the tracker asks for gives the same array."""
    from belief_helpers import observe_game  # the truth-invariant games of tests/test_belief.py

    import rbc_bot.belief_observations as belief_module

    calls = []

    def checked(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> np.ndarray:
        expected = expand(rows, mover, capture_square)
        assert np.array_equal(expand_fast.expand(rows, mover, capture_square), expected)
        calls.append(capture_square)
        return expected

    monkeypatch.setattr(belief_module, "expand", checked)
    for seed in range(3):
        for color in (chess.WHITE, chess.BLACK):
            observe_game(RandomBot, color, cap=2_000, seed=seed, turns=25)
    assert len(calls) >= 100, "the tracker no longer calls belief_observations.expand: patch where it lives"
    assert any(square is not None for square in calls)
