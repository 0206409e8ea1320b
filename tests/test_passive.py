"""The passing-opponent watch (rbc_bot.passive), alone and in a real game against a bot that passes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import chess
import numpy as np
from bots.pass_bot import PassBot
from reconchess import LocalGame
from reconchess.play import play_turn

from rbc_bot.belief import encode
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.passive import PassiveWatch
from rbc_bot.rules import sense_window


def rows_of(*boards: chess.Board) -> np.ndarray:
    return np.stack([encode(board) for board in boards])


def seen(board: chess.Board, square: int) -> list[tuple[int, chess.Piece | None]]:
    return [(sq, board.piece_at(sq)) for sq in sense_window(square)]


def after(*moves: str) -> chess.Board:
    board = chess.Board()
    for move in moves:
        board.push_uci(move)
    return board


def test_boards_that_pass_every_sense_hold_after_enough_senses() -> None:
    watch = PassiveWatch(chess.WHITE)
    truth = after("e2e4")  # we played e4; the opponent only passes from here
    for turn in range(3):
        assert watch.holds(3, 20) is None, f"held after {turn} senses"
        watch.on_opponent_move(None, rows_of(truth, after("e2e4", "e7e5")))
        watch.on_sense(chess.E7, seen(truth, chess.E7))
    held = watch.holds(3, 20)
    assert held is not None and len(held) == 1, "the sense found the e-pawn on e7"
    assert (held[0][:64] == encode(truth)[:64]).all()
    assert watch.holds(3, 0) is None and watch.holds(4, 20) is None and watch.holds(0, 20) is None


def test_our_moves_are_applied_and_their_results_filter() -> None:
    watch = PassiveWatch(chess.WHITE)
    watch.on_opponent_move(None, rows_of(after("e2e4"), after("e2e4", "d7d5")))
    capture = chess.Move.from_uci("e4d5")
    watch.on_own_move(capture, capture, chess.D5)
    assert watch.rows is not None and len(watch.rows) == 1, "the capture took a pawn: d5 was not empty"
    assert watch.rows[0][chess.D5] == chess.PAWN and watch.rows[0][chess.E4] == 0


def test_a_moved_piece_seen_or_a_capture_ends_the_watch_and_it_starts_again() -> None:
    watch = PassiveWatch(chess.BLACK)
    start = after("e2e4")
    watch.on_opponent_move(None, rows_of(start))
    watch.on_sense(chess.E4, seen(start, chess.E4))
    assert watch.senses_survived == 1
    moved = after("e2e4", "e7e5", "d2d4")  # the opponent moved after all
    watch.on_sense(chess.D3, seen(moved, chess.D3))
    assert watch.rows is None and watch.senses_survived == 0
    watch.on_opponent_move(None, rows_of(moved))
    assert watch.rows is not None, "a new watch starts from the belief at the next opponent turn"
    watch.on_opponent_move(chess.E5, rows_of(moved))
    assert watch.rows is None, "a capture is no pass"


def test_no_watch_starts_from_a_large_belief() -> None:
    watch = PassiveWatch(chess.WHITE, start_boards=1)
    watch.on_opponent_move(None, rows_of(after("e2e4"), after("d2d4")))
    assert watch.rows is None
    watch.on_opponent_move(None, rows_of(after("e2e4")))
    assert watch.rows is not None


class TruthCheckedBot(RbcBot):
    """Our bot, noting on each move whether the watched boards are exactly the game's true board."""

    game: LocalGame
    watched_truth: list[bool]

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        watched = self.passive.holds(self.config.move.passive_senses, self.config.move.passive_boards)
        if watched is not None:
            truth = encode(self.game.board)[:64]
            self.watched_truth.append(len(watched) == 1 and bool((watched[0][:64] == truth).all()))
        return super().choose_move(move_actions, seconds_left)


def against_a_passing_bot(bot: RbcBot, color: chess.Color, plies: int, log: Path) -> list[dict[str, Any]]:
    """``plies`` plies of a real LocalGame between ``bot`` (as ``color``) and PassBot; its turn log. A
    45 s clock without increment: the bot's turns take about a second each, far from its panic."""
    game = LocalGame(seconds_per_player=45, seconds_increment=0)
    if isinstance(bot, TruthCheckedBot):
        bot.game = game
    players = {color: bot, not color: PassBot()}
    game.store_players("white", "black")
    for side, player in players.items():
        player.handle_game_start(side, game.board.copy(), "opponent")
    game.start()
    try:
        for _ in range(plies):
            if game.is_over():
                break
            play_turn(game, players[game.turn], end_turn_last=False)
    finally:
        bot.close()
    return [json.loads(line) for line in log.read_text().splitlines()]


def test_against_a_passing_bot_the_move_is_chosen_on_the_true_board(tmp_path: Path) -> None:
    """A real game against a bot that never moves: once three senses found its pieces unmoved, each move
    is chosen on the one watched board, and that board is the game's."""
    config = load_config(None, ["engine.workers=1", "engine.deterministic=true", "move.passive_senses=3"])
    bot = TruthCheckedBot(config, turn_log_path=tmp_path / "turns.jsonl")
    bot.watched_truth = []
    records = against_a_passing_bot(bot, chess.WHITE, 12, tmp_path / "turns.jsonl")
    watched = [r for r in records if "passive_boards" in r]
    assert len(watched) >= 3 and all(r["turn"] >= 4 for r in watched), "not before its third pass"
    assert all(r["passive_boards"] == 1 and r["boards_scored"] <= 1 for r in watched), watched
    assert bot.watched_truth == [True] * len(watched)
    assert not bot.errors


def test_the_watch_is_not_used_when_switched_off(tmp_path: Path) -> None:
    config = load_config(None, ["engine.workers=1", "engine.deterministic=true", "move.passive_senses=0"])
    bot = RbcBot(config, turn_log_path=tmp_path / "turns.jsonl")
    records = against_a_passing_bot(bot, chess.BLACK, 8, tmp_path / "turns.jsonl")
    assert len(records) == 4 and not any("passive_boards" in r for r in records)
    assert bot.passive.senses_survived >= 3, "the watch runs (and would hold) all the same"
