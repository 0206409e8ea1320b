"""Sense selectors on hand-built belief sets whose best scan is known (or counted by hand here)."""

from __future__ import annotations

from collections import Counter

import chess
import numpy as np
import pytest
from board_sets import rare_check_boards

from rbc_bot.belief import encode
from rbc_bot.rules import sense_window
from rbc_bot.sense import (
    INTERIOR,
    attacked_first,
    choose_sense_square,
    danger_square,
    decision_square,
    decision_values,
    expected_survivors,
    king_square,
    partition_square,
    window_square,
)


def rows_of(boards: list[chess.Board]) -> np.ndarray:
    return np.stack([encode(b) for b in boards])


def moved(board: chess.Board, from_square: int, to_square: int) -> chess.Board:
    """``board`` with the piece on ``from_square`` lifted to ``to_square`` (a belief variant)."""
    out = board.copy(stack=False)
    piece = out.remove_piece_at(from_square)
    assert piece is not None
    out.set_piece_at(to_square, piece)
    return out


def window_contents(board: chess.Board, centre: int) -> tuple[chess.Piece | None, ...]:
    return tuple(board.piece_at(sq) for sq in sense_window(centre))


def survivors_by_hand(boards: list[chess.Board], centre: int) -> float:
    """Expected boards left after sensing ``centre``, counted with python-chess: sum n_i^2 / N."""
    counts = Counter(window_contents(b, centre) for b in boards)
    return sum(n * n for n in counts.values()) / len(boards)


@pytest.fixture
def knight_boards() -> list[chess.Board]:
    """Black's b8 knight on b8, c6 or a6: only those three squares differ."""
    start = chess.Board()
    return [start, moved(start, chess.B8, chess.C6), moved(start, chess.B8, chess.A6)]


@pytest.mark.parametrize("method", ["partition", "window"])
def test_selector_picks_a_window_that_tells_the_knight_boards_apart(
    knight_boards: list[chess.Board], method: str
) -> None:
    rows = rows_of(knight_boards)
    square = choose_sense_square(rows, method, np.random.default_rng(0))
    assert square in INTERIOR
    window = set(sense_window(square))
    assert len(window) == 9
    assert window & {chess.B8, chess.C6, chess.A6}
    # The sense identifies the board: every board shows different window contents.
    assert len({window_contents(b, square) for b in knight_boards}) == len(knight_boards)


def test_expected_survivors_match_hand_counts(knight_boards: list[chess.Board]) -> None:
    rows = rows_of(knight_boards)
    survivors = expected_survivors(rows)
    assert survivors.shape == (len(INTERIOR),)
    # Counted by hand: e4 sees nothing that differs (3 boards stay); d7 sees c6 only ({B}, {A, C}: 5/3);
    # b7 sees a6, c6 and b8 (every board alone: 1).
    assert survivors[INTERIOR.index(chess.E4)] == pytest.approx(3.0)
    assert survivors[INTERIOR.index(chess.D7)] == pytest.approx(5 / 3)
    assert survivors[INTERIOR.index(chess.B7)] == pytest.approx(1.0)
    for i, centre in enumerate(INTERIOR):
        by_hand = survivors_by_hand(knight_boards, centre)
        assert survivors[i] == pytest.approx(by_hand), chess.square_name(centre)


def test_window_selector_minimises_expected_survivors_on_an_uneven_belief() -> None:
    """Six boards: a knight in one of three places (3/2/1 boards) and a bishop that moved on some.
    The window centre must be the argmin of an independent count, and beat the partition choice or tie it."""
    start = chess.Board()
    variants = [
        start,
        start,
        moved(start, chess.G8, chess.F6),
        moved(start, chess.G8, chess.F6),
        moved(start, chess.G8, chess.H6),
        moved(moved(start, chess.G8, chess.H6), chess.C8, chess.G4),
    ]
    rows = rows_of(variants)
    by_hand = [survivors_by_hand(variants, centre) for centre in INTERIOR]
    best = min(by_hand)
    assert expected_survivors(rows) == pytest.approx(by_hand)
    chosen = window_square(rows)
    assert by_hand[INTERIOR.index(chosen)] == pytest.approx(best)
    assert best < by_hand[INTERIOR.index(chess.D4)]  # a nontrivial instance: some centres are useless
    assert best <= by_hand[INTERIOR.index(partition_square(rows))]


def test_partition_edge_choice_is_shifted_inward() -> None:
    """Boards that differ only on a1 (white rook there or not): the per-square argmin is the corner,
    and the selector moves it to b2 so the whole 3x3 window lies on the board and still covers a1."""
    start = chess.Board()
    no_rook = start.copy()
    no_rook.remove_piece_at(chess.A1)
    rows = rows_of([start, no_rook])
    square = partition_square(rows)
    assert square == chess.B2
    assert chess.A1 in sense_window(square) and len(sense_window(square)) == 9


def test_partition_picks_the_square_whose_largest_part_is_smallest() -> None:
    """Knight on f6 on 2 boards, h6 on 1, g8 on 1; the h-pawn moved on 2 of them independently.
    f6 splits 2/2 (largest part 2); h6 splits 3/1; so the chosen window must contain a square that
    splits 2/2 (f6, g8 or h-pawn squares) and never be a square where every board agrees."""
    start = chess.Board()
    a = moved(start, chess.G8, chess.F6)
    b = moved(moved(start, chess.G8, chess.F6), chess.H7, chess.H5)
    c = moved(start, chess.G8, chess.H6)
    d = moved(start, chess.H7, chess.H5)
    boards = [a, b, c, d]
    square = partition_square(rows_of(boards))
    largest = {
        sq: max(Counter(bd.piece_at(sq) for bd in boards).values()) for sq in chess.SQUARES
    }  # counted by hand
    assert min(largest.values()) == 2
    assert any(largest[sq] == 2 for sq in sense_window(square))


@pytest.mark.parametrize("method", ["partition", "window", "random"])
def test_single_board_belief_still_returns_an_interior_square(method: str) -> None:
    rows = rows_of([chess.Board()])
    square = choose_sense_square(rows, method, np.random.default_rng(3))
    assert square in INTERIOR and len(sense_window(square)) == 9


def test_empty_belief_and_sampled_window_and_bad_method() -> None:
    rng = np.random.default_rng(1)
    assert choose_sense_square(rows_of([chess.Board()])[:0], "window", rng) in INTERIOR
    start = chess.Board()
    boards = [moved(start, chess.B8, sq) for sq in (chess.A6, chess.C6, chess.D7)] * 10
    square = choose_sense_square(rows_of(boards), "window", rng, window_sample=5)
    assert square in INTERIOR
    with pytest.raises(ValueError, match="unknown sense method 'best'"):
        choose_sense_square(rows_of(boards), "best", rng)


def test_danger_square_separates_boards_where_our_king_is_attacked() -> None:
    """A black bishop on b4 or h4 (checking our e1 king) or on a6 (not): the centre must split the
    attacked boards from the safe one, and among such centres leave the fewest boards (b4+a6 seen)."""
    boards = [chess.Board(f"4k3/8/{rank6}/8/{rank4}/8/8/4K3 w - - 0 1") for rank6, rank4 in
              [("8", "1b6"), ("b7", "8"), ("8", "7b")]]  # fmt: skip
    attacked = np.array([b.is_check() for b in boards])
    assert attacked.tolist() == [True, False, True]
    rows = rows_of(boards)
    square = danger_square(rows, attacked)
    assert square in INTERIOR
    groups: dict[tuple[chess.Piece | None, ...], set[bool]] = {}
    for board, hit in zip(boards, attacked, strict=True):
        groups.setdefault(window_contents(board, square), set()).add(bool(hit))
    assert all(len(kinds) == 1 for kinds in groups.values()), "the sense leaves attacked and safe mixed"
    assert survivors_by_hand(boards, square) == pytest.approx(1.0)
    assert {chess.A6, chess.B4} <= set(sense_window(square))
    assert danger_square(rows, np.array([True, True, True])) is None
    assert danger_square(rows, np.array([False, False, False])) is None
    rare = np.array([True, False, False])  # attacked on a third of the boards
    assert danger_square(rows, rare, min_share=0.3) is not None
    assert danger_square(rows, rare, min_share=0.4) is None


def test_boards_per_point_trades_the_move_choice_for_boards_left() -> None:
    """The boards of ``knight_or_f6_piece``: sensing c3 is worth 1.0 and leaves 4 boards on average,
    sensing f6 is worth 0.5 and leaves 2 (it tells the four f6 pieces apart). Each board left costs
    1 / boards per point: f6 wins when its 2 boards fewer are worth more than the 0.5 it gives up,
    below 4 boards a point; on a belief a hundred times larger (the same survivors, scaled) below 400."""
    rows, values = knight_or_f6_piece()

    def senses_c3(survivors: np.ndarray | None = None, boards_per_point: float = 0.0) -> bool:
        chosen = decision_square(rows, values, survivors=survivors, boards_per_point=boards_per_point)
        seen = sense_window(chosen)
        assert (chess.C3 in seen) != (chess.F6 in seen)
        return chess.C3 in seen

    assert senses_c3()
    assert not senses_c3(boards_per_point=3.9)
    assert senses_c3(boards_per_point=4.1)
    large = expected_survivors(rows) * 100
    assert not senses_c3(survivors=large, boards_per_point=390.0)
    assert senses_c3(survivors=large, boards_per_point=410.0)


def test_danger_tolerance_trades_a_rare_threat_left_mixed_for_a_smaller_belief() -> None:
    """On ``rare_check_boards``: the clearest centre leaves the nine safe boards together; a tolerance
    of a tenth of the boards takes the window on g6 instead (the check mixed with one safe board)."""
    boards = rare_check_boards()
    attacked = np.array([b.is_check() for b in boards])
    assert attacked.tolist() == [True] + [False] * 9
    rows = rows_of(boards)
    clearest = danger_square(rows, attacked)
    assert clearest is not None and survivors_by_hand(boards, clearest) == pytest.approx(8.2)
    assert danger_square(rows, attacked, tolerance=0.09) == clearest
    traded = danger_square(rows, attacked, tolerance=0.1)
    assert traded is not None and survivors_by_hand(boards, traded) == pytest.approx(1.2)


PAWN_SQUARES = (chess.D4, chess.E4, chess.D5, chess.E5)


def king_and_pawn_boards() -> list[chess.Board]:
    """Two places for the black king (b8, g8) times six pairs of black pawns on d4/e4/d5/e5: 12 boards."""
    boards = []
    for king in (chess.B8, chess.G8):
        for pawns in ((a, b) for i, a in enumerate(PAWN_SQUARES) for b in PAWN_SQUARES[i + 1 :]):
            board = chess.Board(None)
            board.set_piece_at(chess.E1, chess.Piece(chess.KING, chess.WHITE))
            board.set_piece_at(king, chess.Piece(chess.KING, chess.BLACK))
            for square in pawns:
                board.set_piece_at(square, chess.Piece(chess.PAWN, chess.BLACK))
            boards.append(board)
    return boards


def test_king_square_locates_the_king_where_the_window_rule_counts_pawns() -> None:
    """Two places for the black king times six pawn pairs on d4/e4/d5/e5: the window rule senses the
    pawns (6 groups of 2 boards), the king hunt senses a king square (every king then known)."""
    boards = king_and_pawn_boards()
    rows = rows_of(boards)
    black_king = 12
    assert len(rows) == 12
    assert set(sense_window(window_square(rows))) >= set(PAWN_SQUARES)
    hunt = king_square(rows, black_king)
    assert hunt is not None
    seen = set(sense_window(hunt))
    assert chess.B8 in seen or chess.G8 in seen
    assert king_square(rows[:6], black_king) is None  # every board agrees: nothing to hunt


def knight_or_f6_piece() -> tuple[np.ndarray, np.ndarray]:
    """Eight boards: a knight on c3 or not (which decides the better of two moves), and one of four
    pieces on f6 (which matters to no move); and the two moves' values on them (2 moves x 8 boards)."""
    f6_pieces = [chess.Piece(t, chess.BLACK) for t in (chess.PAWN, chess.KNIGHT, chess.BISHOP, chess.ROOK)]
    boards = []
    for knight in (False, True):
        for piece in f6_pieces:
            board = chess.Board("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
            board.set_piece_at(chess.F6, piece)
            if knight:
                board.set_piece_at(chess.C3, chess.Piece(chess.KNIGHT, chess.BLACK))
            boards.append(board)
    knight_there = np.array([b.piece_at(chess.C3) is not None for b in boards])
    return rows_of(boards), np.stack([knight_there.astype(float), (~knight_there).astype(float)])


def test_decision_sense_looks_where_the_answer_changes_the_move() -> None:
    """On ``knight_or_f6_piece``, sensing f6 leaves fewer boards; sensing c3 picks the move."""
    rows, values = knight_or_f6_piece()

    chosen = decision_square(rows, values)
    assert chess.C3 in sense_window(chosen) and chess.F6 not in sense_window(chosen)
    assert chess.F6 in sense_window(window_square(rows)), "the plain window rule cuts the most boards"
    worth = decision_values(rows, values)
    assert worth.max() == pytest.approx(1.0) and worth.min() == pytest.approx(0.5)
    assert decision_values(rows, values, "min").max() == pytest.approx(1.0)


def test_attacked_first_samples_the_threats_and_weighs_each_board_by_what_it_stands_for() -> None:
    """3 boards of 100 hold the threat: with 10 drawn and a quarter kept for threats, 2 of them come
    first (each standing for 1.5 threat boards), then 8 of the 97 others (each for 97/8)."""
    rows = np.arange(100 * 3).reshape(100, 3)
    attacked = np.zeros(100, dtype=bool)
    attacked[[5, 50, 95]] = True
    chosen, weights = attacked_first(rows, attacked, 10, 0.25, np.random.default_rng(0))
    assert len(chosen) == 10 and len({tuple(r) for r in chosen}) == 10
    assert all(attacked[row[0] // 3] for row in chosen[:2]) and not any(
        attacked[row[0] // 3] for row in chosen[2:]
    )
    assert weights.tolist() == [1.5, 1.5] + [97 / 8] * 8 and weights.sum() == pytest.approx(100)
    only_threats, weights = attacked_first(
        rows[attacked], attacked[attacked], 10, 0.25, np.random.default_rng(0)
    )
    assert len(only_threats) == 3 and weights.tolist() == [1.0] * 3


@pytest.mark.parametrize("how", ["mean", "min"])
def test_a_weighted_board_counts_as_that_many_copies_in_the_decision_values(
    knight_boards: list[chess.Board], how: str
) -> None:
    """Weights are how many believed boards a sampled one stands for: weighing a board 3 gives the
    centres the values that three copies of it would."""
    rows = rows_of(knight_boards)
    values = np.random.default_rng(1).random((4, len(rows)))
    weights = np.ones(len(rows))
    weights[0] = 3.0
    copies = np.r_[[0, 0], np.arange(len(rows))]
    weighted = decision_values(rows, values, how, weights)
    assert weighted == pytest.approx(decision_values(rows[copies], values[:, copies], how))
    assert decision_values(rows, values, how, np.ones(len(rows))) == pytest.approx(
        decision_values(rows, values, how)
    )
