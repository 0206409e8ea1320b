"""rbc_bot.rules and the belief's move application agree exactly with reconchess on real-game boards."""

from __future__ import annotations

import random

import chess
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from reconchess import LocalGame
from reconchess.utilities import capture_square_of_move, move_actions, revise_move

from rbc_bot.belief_ops import expand, filter_own_move
from rbc_bot.belief_rows import decode, encode
from rbc_bot.rules import inward, opponent_moves, revise, sense_window


def reconchess_taken_moves(board: chess.Board) -> set[chess.Move | None]:
    """The literal reconchess answer: what every request revises into, plus the pass."""
    return {revise_move(board, move) for move in move_actions(board)} | {None}


def test_taken_moves_match_reconchess_on_10k_real_boards(game_boards: list[chess.Board]) -> None:
    assert len(game_boards) >= 10_000
    assert len({b.board_fen() for b in game_boards}) > 5_000  # real variety, not the start position
    for board in game_boards:
        assert set(opponent_moves(board)) == reconchess_taken_moves(board), board.fen()


def test_expansion_matches_python_chess_push(game_boards: list[chess.Board]) -> None:
    """Children by capture square == pushing every RBC move with python-chess, grouped the same way."""
    for board in game_boards[::3]:
        expected: dict[int | None, set[bytes]] = {}
        for move in opponent_moves(board):
            child = board.copy(stack=False)
            child.push(move if move is not None else chess.Move.null())
            expected.setdefault(capture_square_of_move(board, move), set()).add(encode(child).tobytes())
        row = encode(board)[None, :]
        for capture_square, children in expected.items():
            got = expand(row, board.turn, capture_square)
            assert {r.tobytes() for r in got} == children, (board.fen(), capture_square)
            assert len(got) == len(children)  # duplicates merged


def test_no_children_for_an_impossible_capture_square(game_boards: list[chess.Board]) -> None:
    board = game_boards[500]
    empty = next(sq for sq in chess.SQUARES if board.piece_at(sq) is None)
    assert len(expand(encode(board)[None, :], board.turn, empty)) == 0


def test_own_move_filter_matches_revise(game_boards: list[chess.Board]) -> None:
    rng = random.Random(3)
    for board in game_boards[1::4]:
        us = board.turn
        request = rng.choice(move_actions(board))
        taken, capture = revise(board, request)
        row = encode(board)[None, :]
        after = board.copy(stack=False)
        after.push(taken if taken is not None else chess.Move.null())
        kept = filter_own_move(row, us, request, taken, capture)
        assert len(kept) == 1 and kept[0].tobytes() == encode(after).tobytes(), (board.fen(), request)
        # Any other outcome contradicts this board.
        wrong_capture = None if capture is not None else (taken.to_square if taken else None)
        if wrong_capture is not None:
            assert len(filter_own_move(row, us, request, taken, wrong_capture)) == 0


def _local_game_move(board: chess.Board, request: chess.Move | None) -> tuple[object, ...]:
    """What reconchess's arbiter does with ``request`` on ``board``: LocalGame.move's answer and the
    position after it."""
    game = LocalGame(seconds_per_player=None)
    game.board = board.copy(stack=False)
    game.turn = board.turn
    game.start()
    _, taken, capture_square = game.move(request)
    return taken, capture_square, game.board.fen()


def test_revise_does_what_the_local_game_does(game_boards: list[chess.Board]) -> None:
    """On real-game boards, every request (pawn moves to the last rank also without a promotion piece,
    which the arbiter makes a queen promotion, and the pass) is taken, and captures, as LocalGame.move
    takes it; pushing our answer gives the arbiter's position."""
    rng = random.Random(5)
    checked = {"revised": 0, "promoted": 0, "captures": 0}
    for board in game_boards[:6000:3]:
        requests: list[chess.Move | None] = [None, *rng.sample(move_actions(board), 6)]
        requests += [chess.Move(m.from_square, m.to_square) for m in move_actions(board) if m.promotion]
        for request in requests:
            taken, capture_square = revise(board, request)
            after = board.copy(stack=False)
            after.push(taken if taken is not None else chess.Move.null())
            assert (taken, capture_square, after.fen()) == _local_game_move(board, request), (
                board.fen(),
                request,
            )
            checked["revised"] += request is not None and taken != request
            checked["promoted"] += request is not None and taken is not None and taken.promotion is not None
            checked["captures"] += capture_square is not None
    assert min(checked.values()) > 20, checked  # the positions exercise every branch


def test_decode_round_trip(game_boards: list[chess.Board]) -> None:
    boards = game_boards[::7]
    rows = np.stack([encode(b) for b in boards])
    for original, rebuilt in zip(boards, decode(rows, chess.WHITE), strict=True):
        assert rebuilt.piece_map() == original.piece_map()
        assert rebuilt.clean_castling_rights() == original.clean_castling_rights()
        assert rebuilt.ep_square == original.ep_square


@given(st.integers(0, 63))
def test_sense_window_is_the_clipped_3x3(square: int) -> None:
    window = sense_window(square)
    assert square in window
    assert len(window) in (4, 6, 9)
    assert all(chess.square_distance(square, s) <= 1 for s in window)
    assert len(window) == len(set(window))


@given(st.integers(0, 63))
def test_inward_keeps_a_full_window_covering_the_square(square: int) -> None:
    centre = inward(square)
    assert len(sense_window(centre)) == 9
    assert square in sense_window(centre)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 60))
def test_random_playouts_keep_rules_and_reconchess_equal(seed: int, plies: int) -> None:
    """Random RBC playouts (king captures and moves into check allowed) from the start."""
    rng = random.Random(seed)
    board = chess.Board()
    for _ in range(plies):
        if not (
            board.kings & board.occupied_co[chess.WHITE] and board.kings & board.occupied_co[chess.BLACK]
        ):
            break
        assert set(opponent_moves(board)) == reconchess_taken_moves(board)
        move = rng.choice(opponent_moves(board))
        board.push(move if move is not None else chess.Move.null())
