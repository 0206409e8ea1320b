"""How well the bot judges it stands after a move (``move.clipped_standing``): on a belief where every
move lets our king be captured on some board, the plain mean of the chosen move's centipawns is set by
those boards (-30,000 each) and turns the progress bonus off while we are a queen up on the rest; the
AttackerBot draw of session 24 (seed 205) shuffled its king for 50 moves that way."""

from __future__ import annotations

import chess
import numpy as np
import pytest
from reconchess.utilities import move_actions

from rbc_bot.belief import BeliefTracker, encode
from rbc_bot.bot import RbcBot
from rbc_bot.config import MoveConfig, load_config
from rbc_bot.engine import KING_CAPTURE_SCORE
from rbc_bot.ranking import CP_CLIP, rank

# White to move, a queen up; every board the same but for Black's last piece. On CHECK_KNIGHT a knight
# on f2 checks our king on h1 (only Kg1 escapes); on CHECK_ROOK a rook on e1 does (only Kg1 fails).
CALM = "k7/pp6/2n5/8/Q7/8/6PP/7K w - - 0 60"
CHECK_KNIGHT = "k7/pp6/8/8/Q7/8/5nPP/7K w - - 0 60"
CHECK_ROOK = "k7/pp6/8/8/Q7/8/6PP/4r2K w - - 0 60"


def test_the_clipped_mean_counts_a_lost_king_as_a_lost_game_not_as_thirty_thousand() -> None:
    scores = np.array([[-KING_CAPTURE_SCORE] + [900.0] * 9, [-200.0] * 10])
    safe, risky = rank([chess.Move.from_uci("h1g1"), None], scores, MoveConfig())  # safety first
    assert risky.mean < 0 < risky.standing == pytest.approx((-CP_CLIP + 9 * 900) / 10)
    assert safe.move is None and safe.standing == safe.mean == -200


@pytest.mark.parametrize("clipped", [False, True])
def test_the_progress_bonus_stays_on_a_queen_up_when_asked_to_clip(clipped: bool) -> None:
    """Eight calm boards and one check of each kind: every move loses our king on one board in ten.
    With the plain mean the bonus for a pawn move or a capture goes off; clipped, it stays on."""
    boards = [chess.Board(CALM)] * 8 + [chess.Board(CHECK_KNIGHT), chess.Board(CHECK_ROOK)]
    settings = ["engine.workers=1", "engine.deterministic=true", "engine.nodes=2000"]
    bot = RbcBot(load_config(None, [*settings, f"move.clipped_standing={str(clipped).lower()}"]))
    try:
        bot.handle_game_start(chess.WHITE, chess.Board(), "nobody")
        tracker = BeliefTracker(chess.WHITE, boards[0], config=bot.config.belief)
        tracker.rows = np.stack([encode(board) for board in boards])
        bot.resume(tracker, 60, 5.0, last_mean=500.0)
        bot.plies_without_progress = 60
        assert bot.progress_bonus() > 0
        bot.choose_move(move_actions(boards[0]), 100.0)
        best = bot.turn_record["candidates"][0]
        assert best["mean"] < 0 < best["standing"], best
        assert (bot.progress_bonus() > 0) == clipped
    finally:
        bot.close()
