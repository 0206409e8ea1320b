"""The belief tracker never loses the true board: checked after every observation of real games."""

from __future__ import annotations

import random
from collections.abc import Sequence

import chess
import numpy as np
import pytest
from reconchess import LocalGame, Player, WinReason
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot
from reconchess.bots.trout_bot import TroutBot
from reconchess.history import GameHistory
from reconchess.play import play_turn

from rbc_bot.belief import BeliefTracker, OpponentMove, encode, filter_sense, partition_counts
from rbc_bot.players import export_stockfish_for_trout
from rbc_bot.rules import inward, sense_window


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
    if opponent is TroutBot:
        players[not color].engine.quit()
    assert observer.checks > 0
    return observer


OPPONENTS = {"random": RandomBot, "attacker": AttackerBot, "trout": TroutBot}


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


@pytest.mark.parametrize("cap", [None, 64, 8])
def test_truth_always_held_against_reconchess_bots(cap: int | None) -> None:
    """20 games per cap, 60 in all: random/attacker x 2 colours x 4 seeds, trout x 2 colours x 2 seeds."""
    observers = run_games(cap, range(4), ["random", "attacker"], turns=12)
    observers += run_games(cap, range(2), ["trout"], turns=10)
    assert len(observers) == 20
    stats = [o.tracker.stats for o in observers]
    if cap is None:
        assert all(s.samplings == 0 and s.recoveries == 0 for s in stats)
        assert max(max(h[1] for h in s.history) for s in stats) > 1_000  # the belief really grew
    else:
        assert sum(s.samplings for s in stats) >= 20
        assert sum(s.recoveries for s in stats) >= 10
        assert sum(1 for s in stats if s.recoveries) >= 3


def test_truth_held_with_expansion_slack() -> None:
    """The sample drawn after the sense rather than after the opponent's move: the truth is still live
    or stashed at its index, the live set may exceed the cap only right after an opponent move, and on
    the same games (the true game does not depend on the tracker) the truth is live more often."""
    tight = run_games(16, range(3), ["random", "attacker"], turns=10)
    slack = run_games(16, range(3), ["random", "attacker"], turns=10, slack=8)
    live_rate = [sum(o.truth_live for o in run) / sum(o.checks for o in run) for run in (tight, slack)]
    assert sum(o.tracker.stats.samplings for o in slack) >= 10
    assert any(
        size > 16 for o in slack for kind, size, _ in o.tracker.stats.history if kind == "OpponentMove"
    )
    assert live_rate[1] > live_rate[0], live_rate


@pytest.mark.long
@pytest.mark.parametrize("cap", [None, 64, 8])
def test_truth_always_held_long(cap: int | None) -> None:
    """>= 200 games over the three caps: run with `pytest -m long`."""
    observers = run_games(cap, range(100, 116), ["random", "attacker"], turns=16)
    observers += run_games(cap, range(100, 102), ["trout"], turns=12)
    assert len(observers) == 68


def test_observation_shape_errors() -> None:
    tracker = BeliefTracker(chess.BLACK)
    with pytest.raises(ValueError, match="not on the board"):
        tracker.on_opponent_move(64)
    with pytest.raises(ValueError, match="none of our pieces"):
        tracker.on_opponent_move(chess.E4)
    tracker.on_opponent_move(None)
    with pytest.raises(ValueError, match="not its window"):
        tracker.on_sense(chess.E4, [(chess.A1, None)])
    with pytest.raises(ValueError, match="not on the board"):
        tracker.on_sense(99, [])
    with pytest.raises(ValueError, match="not taken"):
        tracker.on_own_move(chess.Move.from_uci("e7e5"), None, chess.E5)
    with pytest.raises(ValueError):
        BeliefTracker(chess.WHITE, cap=0)


def test_white_first_turn_is_not_an_opponent_move() -> None:
    tracker = BeliefTracker(chess.WHITE)
    tracker.on_opponent_move(None)
    assert tracker.live_size == 1 and not tracker.observations


def test_sampling_is_uniform_and_reproducible() -> None:
    """After Black's first move 20 boards exist; a cap of 5 keeps a seeded uniform sample, stashes 15."""
    picks = []
    for seed in (1, 1, 2):
        tracker = BeliefTracker(chess.WHITE, cap=5, seed=seed)
        tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
        tracker.on_opponent_move(None)
        assert tracker.live_size == 5 and tracker.stashed_size == 16  # 20 moves + pass = 21 children
        picks.append({r.tobytes() for r in tracker.rows})
    assert picks[0] == picks[1] and picks[0] != picks[2]


def test_earliest_stash_recovers_a_contradicted_sample() -> None:
    """A sense that contradicts every live board pulls the truth back from the stash."""
    tracker = BeliefTracker(chess.WHITE, cap=1, seed=0)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    truth = chess.Board()
    truth.push_uci("e2e4")
    truth.push_uci("g8f6")
    tracker.on_opponent_move(None)
    tracker.on_sense(chess.G7, [(sq, truth.piece_at(sq)) for sq in sense_window(chess.G7)])
    if not tracker.contains(truth):
        pytest.fail("truth lost")
    assert tracker.live_size == 1
    assert tracker.recoveries >= 1 or tracker.rows[0].tobytes() == encode(truth).tobytes()


def test_partition_counts_and_sense_filter() -> None:
    tracker = BeliefTracker(chess.WHITE)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    counts = partition_counts(tracker.rows)
    assert counts.shape == (64, 13) and (counts.sum(axis=1) == tracker.live_size).all()
    # On e7 the pawn stays in all but the e7 pawn moves (e6, e5).
    assert counts[chess.E7, 7] == tracker.live_size - 2
    kept = filter_sense(tracker.rows, [chess.E5], [7])
    assert len(kept) == 1


def test_stash_memory_bound_drops_oldest_first() -> None:
    tracker = BeliefTracker(chess.WHITE, cap=3, seed=0, max_stashed=40)
    for uci in ["e2e4", "d2d4", "g1f3"]:
        move = chess.Move.from_uci(uci)
        tracker.on_own_move(move, move, None)
        tracker.on_opponent_move(None)
    assert tracker.stats.boards_dropped > 0
    assert [s.index for s in tracker.stashes] == [6]  # only the newest stash is left
    assert tracker.live_size == 3


def test_recovery_out_of_time_keeps_the_stash_and_rebuilds() -> None:
    """With no time for recovery the tracker rebuilds at once, and keeps the stashed boards."""
    tracker = BeliefTracker(chess.WHITE, cap=1, seed=0)
    tracker.recovery_seconds = 0.0
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    stashed = tracker.stashed_size
    live = tracker.rows[0].copy()
    truth = chess.Board()
    truth.push_uci("e2e4")
    truth.push_uci("g8f6")
    seen = [(sq, truth.piece_at(sq)) for sq in sense_window(chess.G7)]
    if (tracker.rows[:, [sq for sq, _ in seen]] == [encode(truth)[sq] for sq, _ in seen]).all():
        pytest.skip("the sampled board already fits the sense")
    tracker.on_sense(chess.G7, seen)
    assert tracker.stats.recoveries_timed_out == 1 and tracker.stats.rebuilds == 1
    assert tracker.stashed_size == stashed  # nothing thrown away
    assert tracker.live_size == 1 and tracker.rows[0].tobytes() != live.tobytes()
