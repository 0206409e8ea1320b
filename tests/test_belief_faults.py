"""Contradictions and failures: a rebuild keeps the board consistent with what we know, and an
observation that raises leaves the tracker as it was or forced into step."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from belief_helpers import first_black_replies

from rbc_bot import belief
from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_rows import piece_code


def test_rebuild_after_an_opponent_capture_does_not_bring_back_the_captured_piece() -> None:
    """After 1. e4 no Black piece can reach e4, so a capture there contradicts every board: the rebuild
    puts an enemy queen on e4 (the capturer is unknown) and must not restore our captured pawn."""
    tracker = BeliefTracker(chess.WHITE, cap=None)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(chess.E4)
    assert tracker.stats.rebuilds == 1
    assert tracker.ours[chess.E4] == 0
    assert (tracker.rows[:, chess.E4] == piece_code(chess.Piece(chess.QUEEN, chess.BLACK))).all()
    assert all(len(b.pieces(chess.PAWN, chess.WHITE)) == 7 for b in tracker.boards())


def test_rebuild_after_our_move_leaves_no_copy_of_the_moved_piece() -> None:
    """Qd1xg4 reported as a capture on g4, where no Black piece can be after one reply: every board is
    contradicted; the rebuilt boards have our queen on g4 only, not on d1 as well."""
    tracker = BeliefTracker(chess.WHITE, cap=None)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    queen_move = chess.Move.from_uci("d1g4")
    tracker.on_own_move(queen_move, queen_move, chess.G4)
    assert tracker.stats.rebuilds == 1
    white_queen = piece_code(chess.Piece(chess.QUEEN, chess.WHITE))
    assert (tracker.rows[:, chess.D1] == 0).all() and (tracker.rows[:, chess.G4] == white_queen).all()
    assert tracker.ours[chess.D1] == 0 and tracker.ours[chess.G4] == white_queen


def _state(tracker: BeliefTracker) -> tuple[object, ...]:
    return (
        len(tracker.observations), tracker.to_move, tracker.fullmove, tracker.ours.tobytes(),
        tracker.rows.tobytes(), [(s.index, s.rows.tobytes()) for s in tracker.stashes],
        tracker.stats.samplings, len(tracker.stats.history), tracker.rng.bit_generator.state["state"],
    )  # fmt: skip


def test_an_observation_that_raises_leaves_the_tracker_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    """When both the exact update and the forced one raise (here: out of memory, simulated), nothing of
    the observation remains: observation count, side to move, our pieces, rows, stash, draws."""
    tracker = first_black_replies(seed=4)
    move = chess.Move.from_uci("d1h5")
    before = _state(tracker)

    def out_of_memory(*args: object) -> np.ndarray:
        raise MemoryError("simulated")

    monkeypatch.setattr(belief, "apply_observation", out_of_memory)
    monkeypatch.setattr(belief, "force_observation", out_of_memory)
    with pytest.raises(MemoryError):
        tracker.on_own_move(move, move, None)
    assert _state(tracker) == before
    monkeypatch.undo()
    tracker.on_own_move(move, move, None)  # the same observation, now working, applies normally
    assert len(tracker.observations) == 3 and tracker.to_move == chess.BLACK
    assert tracker.stats.rebuilds == 0 and tracker.stats.failed_observations == 0


def test_a_failing_exact_update_is_forced_and_keeps_the_tracker_in_step() -> None:
    """A request from a square holding none of our pieces makes reconchess's revise_move raise inside
    the update. The tracker rolls it back and forces the observation instead: one observation more, Black
    to move, our pieces moved as reported; the next turn's observations then apply normally."""
    tracker = first_black_replies(seed=4)
    bogus = chess.Move.from_uci("e3e4")  # e3 is empty: revise_move raises AttributeError
    taken = chess.Move.from_uci("g1f3")
    tracker.on_own_move(bogus, taken, None)
    assert tracker.stats.failed_observations == 1 and tracker.stats.rebuilds == 1
    assert len(tracker.observations) == 3 and tracker.to_move == chess.BLACK
    assert tracker.ours[chess.G1] == 0 and tracker.ours[chess.F3] == piece_code(
        chess.Piece(chess.KNIGHT, True)
    )
    assert (tracker.rows[:, chess.F3] == tracker.ours[chess.F3]).all()
    tracker.on_opponent_move(None)
    assert len(tracker.observations) == 4 and tracker.to_move == chess.WHITE and tracker.live_size > 1
