"""Shared by the belief tests: games against the reconchess bots that check the tracker against the
true board after every observation, and a small tracker a few plies into a game."""

from __future__ import annotations

import random
from collections.abc import Sequence

import chess
import chess.engine
import numpy as np
from reconchess import LocalGame, Player, WinReason
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot
from reconchess.bots.trout_bot import TroutBot
from reconchess.history import GameHistory
from reconchess.play import play_turn

from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_observations import OpponentMove
from rbc_bot.belief_rows import decode
from rbc_bot.players import export_stockfish_for_trout
from rbc_bot.rules import inward


class Observer(Player):
    """Moves at random, senses by partition count, and checks the tracker against the LocalGame's truth."""

    def __init__(self, game: LocalGame, cap: int | None, seed: int, slack: int = 1) -> None:
        self.game, self.cap, self.seed, self.slack = game, cap, seed, slack
        self.rng = random.Random(seed)
        self.checks = 0
        self.truth_live = 0  # checks at which the truth was a live board
        self.sense_square: int | None = None

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self.tracker = BeliefTracker(color, board, cap=self.cap, seed=self.seed, expansion_slack=self.slack)
        self.truth_at = {0: self.game.board.copy()}

    def check(self) -> None:
        truth = self.game.board
        index = len(self.tracker.observations)
        self.truth_at[index] = truth.copy()
        if self.cap is None:
            assert self.tracker.contains(truth), f"truth not live after observation {index}"
            assert not self.tracker.stashes
        else:
            assert self.tracker.contains(truth) or any(
                self.tracker.stash_contains(s.index, self.truth_at[s.index]) for s in self.tracker.stashes
            ), f"truth neither live nor stashed after observation {index}"
            last = self.tracker.observations[-1] if self.tracker.observations else None
            after_expansion = isinstance(last, OpponentMove)
            assert self.tracker.live_size <= self.cap * (self.slack if after_expansion else 1)
        assert self.tracker.stats.rebuilds == 0
        self.checks += 1
        self.truth_live += self.tracker.contains(truth)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: int | None) -> None:
        self.tracker.on_opponent_move(capture_square)
        self.check()

    def choose_sense(
        self, sense_actions: Sequence[int], move_actions: Sequence[chess.Move], seconds_left: float
    ) -> int:
        self.sense_square = inward(int(np.argmin(self.tracker.partition_counts().max(axis=1))))
        return self.sense_square

    def handle_sense_result(self, sense_result: Sequence[tuple[int, chess.Piece | None]]) -> None:
        self.tracker.on_sense(self.sense_square, sense_result)
        self.check()

    def choose_move(self, move_actions: Sequence[chess.Move], seconds_left: float) -> chess.Move | None:
        return self.rng.choice([*move_actions, None])

    def handle_move_result(
        self,
        requested: chess.Move | None,
        taken: chess.Move | None,
        captured: bool,
        capture_square: int | None,
    ) -> None:
        self.tracker.on_own_move(requested, taken, capture_square)
        self.check()

    def handle_game_end(
        self, winner: chess.Color | None, reason: WinReason | None, history: GameHistory
    ) -> None:
        pass


class OwnAttacker(AttackerBot):
    """AttackerBot with its own copy of its attack: reconchess's pops the moves off the module's lists
    (tests/conftest.py restores them before each test), so in a test of several games every AttackerBot
    after the first few found its list empty and only passed."""

    def __init__(self) -> None:
        super().__init__()
        self.move_sequence = list(self.move_sequence)


class QuickTrout(TroutBot):
    """TroutBot searching to a fixed depth where reconchess gives it 0.5 s a move: the belief tests need
    its kind of moves (Stockfish's, captures and checks among them), not its strength, and at a fixed
    depth its games are the same on every run. Its half-seconds were most of these tests' time."""

    DEPTH = 8

    def __init__(self) -> None:
        super().__init__()
        self._play = self.engine.play
        self.engine.play = self._play_to_depth  # type: ignore[method-assign]

    def _play_to_depth(self, board: chess.Board, limit: chess.engine.Limit) -> chess.engine.PlayResult:
        return self._play(board, chess.engine.Limit(depth=self.DEPTH))


def observe_game(
    opponent: type[Player], color: chess.Color, cap: int | None, seed: int, turns: int, slack: int = 1
) -> Observer:
    random.seed(seed)
    game = LocalGame(seconds_per_player=None, full_turn_limit=turns)
    observer = Observer(game, cap, seed, slack)
    players = {color: observer, not color: opponent()}
    game.store_players("white", "black")
    for side, player in players.items():
        player.handle_game_start(side, game.board.copy(), "opponent")
    game.start()
    while not game.is_over():
        play_turn(game, players[game.turn], end_turn_last=False)
    game.end()
    if issubclass(opponent, TroutBot):
        players[not color].engine.quit()
    assert observer.checks > 0
    return observer


OPPONENTS = {"random": RandomBot, "attacker": OwnAttacker, "trout": QuickTrout}


def run_games(
    cap: int | None, seeds: Sequence[int], names: Sequence[str], turns: int, slack: int = 1
) -> list[Observer]:
    if "trout" in names:
        export_stockfish_for_trout()
    return [
        observe_game(OPPONENTS[name], color, cap, seed, turns, slack)
        for name in names
        for color in (chess.WHITE, chess.BLACK)
        for seed in seeds
    ]


def first_black_replies(seed: int, cap: int | None = 5) -> BeliefTracker:
    """White's tracker after 1. e4 and an unseen Black reply: 20 moves + the pass = 21 children."""
    tracker = BeliefTracker(chess.WHITE, cap=cap, seed=seed)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    return tracker


def board_of(row: np.ndarray) -> chess.Board:
    """The White tracker's row as a board."""
    return decode(row[None, :], chess.WHITE)[0]
