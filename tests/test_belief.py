"""The belief tracker never loses the true board: checked after every observation of real games."""

from __future__ import annotations

import hashlib
import random
import time
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

from rbc_bot import belief
from rbc_bot.belief import BeliefTracker
from rbc_bot.belief_observations import OpponentMove
from rbc_bot.belief_ops import filter_sense, partition_counts
from rbc_bot.belief_rows import decode, encode, piece_code
from rbc_bot.belief_stash import MERGE_SECONDS_PER_ROW, StashStore
from rbc_bot.config import BeliefConfig
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


def test_truth_held_over_a_sample_of_the_long_games() -> None:
    """The long test's invariant on the part of its games that fits the default suite (78 s on this
    repository's 2-core machine with a match running beside it): its cap-64 games of 16 turns against
    RandomBot and AttackerBot, both colours, seeds 100-107 (32 games; TroutBot games are in the test
    above). Every observation is checked, as there."""
    observers = run_games(64, range(100, 108), ["random", "attacker"], turns=16)
    assert len(observers) == 32
    stats = [o.tracker.stats for o in observers]
    assert sum(s.samplings for s in stats) >= 100 and sum(s.recoveries for s in stats) >= 100


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


def _first_black_replies(seed: int, cap: int | None = 5) -> BeliefTracker:
    """White's tracker after 1. e4 and an unseen Black reply: 20 moves + the pass = 21 children."""
    tracker = BeliefTracker(chess.WHITE, cap=cap, seed=seed)
    tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
    tracker.on_opponent_move(None)
    return tracker


CHI2_20_DOF_P001 = 45.315  # the chi-square distribution's 0.999 quantile at 20 degrees of freedom


def _chi_square(counts: np.ndarray) -> float:
    expected = counts.sum() / len(counts)
    return float(((counts - expected) ** 2 / expected).sum())


def test_sampling_is_uniform_over_many_draws() -> None:
    """3,000 seeded samples of 5 of the 21 children: each child is kept about 3000 x 5/21 times (a
    chi-square test over the 21 counts, at the 0.1 % level), while a sampler that favours the first rows
    is rejected by the same test."""
    children = {r.tobytes(): i for i, r in enumerate(_first_black_replies(0, cap=None).rows)}
    assert len(children) == 21
    counts = np.zeros(21)
    first_rows = np.zeros(21)
    for seed in range(3000):
        tracker = _first_black_replies(seed)
        assert tracker.live_size == 5 and tracker.stashed_size == 16
        for row in tracker.rows:
            counts[children[row.tobytes()]] += 1
        everything = np.concatenate([tracker.rows, tracker.stashes[0].rows])
        biased = sorted(everything.tolist())[:5]  # the same five children every time
        for row in biased:
            first_rows[children[np.asarray(row, dtype=np.int8).tobytes()]] += 1
    assert counts.sum() == 15_000
    assert _chi_square(counts) < CHI2_20_DOF_P001, counts
    assert _chi_square(first_rows) > CHI2_20_DOF_P001


def test_sampling_is_reproducible() -> None:
    picks = [{r.tobytes() for r in _first_black_replies(seed).rows} for seed in (1, 1, 2)]
    assert picks[0] == picks[1] and picks[0] != picks[2]


def test_the_earliest_of_several_stashes_is_resimulated(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three stashes (after each of Black's three replies, cap 1); the truth's first reply is one of
    the boards sampled away. A sense that contradicts the live board re-simulates the EARLIEST stash
    first, through every later observation (so the later stashes receive its sampled-away children),
    and the truth is then live or stashed at its index."""
    tracker = BeliefTracker(chess.WHITE, cap=1, seed=3)
    truth = chess.Board()
    truth_at = {0: truth.copy()}
    taken: list[int] = []
    original_take = StashStore.take

    def spy(self: StashStore, index: int, *args: object, **kwargs: object) -> np.ndarray | None:
        taken.append(index)
        return original_take(self, index, *args, **kwargs)  # type: ignore[arg-type]

    for ours, theirs in (("e2e4", None), ("d2d4", None), ("g1f3", None)):
        move = chess.Move.from_uci(ours)
        tracker.on_own_move(move, move, None)
        truth.push(move)
        truth_at[len(tracker.observations)] = truth.copy()
        tracker.on_opponent_move(None)
        if len(tracker.observations) == 2:  # the truth's first reply is one of the boards sampled away
            theirs = "g8f6"
            child = truth.copy()
            child.push_uci(theirs)
            assert not tracker.contains(child) and tracker.stash_contains(2, child)
        truth.push(chess.Move.from_uci(theirs) if theirs else chess.Move.null())
        truth_at[len(tracker.observations)] = truth.copy()
    assert [s.index for s in tracker.stashes] == [2, 4, 6]
    sizes = {s.index: len(s.rows) for s in tracker.stashes}
    window = [(sq, truth.piece_at(sq)) for sq in sense_window(chess.F7)]
    assert not tracker.contains(truth)
    monkeypatch.setattr(StashStore, "take", spy)
    tracker.on_sense(chess.F7, window)
    assert taken and taken[0] == 2, taken
    later = {s.index: len(s.rows) for s in tracker.stashes}
    assert later.get(4, 0) > sizes[4] and later.get(6, 0) > sizes[6], (sizes, later)
    assert tracker.stats.rebuilds == 0
    truth_at[7] = truth
    assert tracker.contains(truth) or any(
        tracker.stash_contains(s.index, truth_at[s.index]) for s in tracker.stashes
    )


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


def _board_of(row: np.ndarray) -> chess.Board:
    return decode(row[None, :], chess.WHITE)[0]


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
    tracker = _first_black_replies(seed=4)
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
    tracker = _first_black_replies(seed=4)
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


def test_recovery_does_not_start_a_merge_past_its_deadline() -> None:
    """A stash of three million boards in two blocks takes seconds to merge (deduplicate, shuffle). With
    0.3 s for recovery the merge is not started: the tracker rebuilds at once and keeps the stash."""
    tracker = _first_black_replies(seed=0, cap=1)
    rng = np.random.default_rng(0)
    for _ in range(2):
        tracker._stash.add(2, rng.integers(0, 13, size=(1_500_000, 66), dtype=np.int8))
    stashed = tracker.stashed_size
    assert stashed * MERGE_SECONDS_PER_ROW > 1.0
    tracker.recovery_seconds = 0.3
    live = _board_of(tracker.rows[0])
    square = chess.E6
    # Every square of the window shown the other way round from the live board: it contradicts it.
    seen = [
        (sq, None if live.piece_at(sq) else chess.Piece(chess.PAWN, chess.BLACK))
        for sq in sense_window(square)
    ]
    started = time.perf_counter()
    tracker.on_sense(square, seen)
    elapsed = time.perf_counter() - started
    assert tracker.stats.recoveries_timed_out == 1 and tracker.stats.rebuilds == 1
    assert tracker.recoveries == 0  # no recovery was started
    assert tracker.stashed_size == stashed
    assert elapsed < 1.0


def _digest(observer: Observer) -> str:
    """A fingerprint of a tracker's whole course: sizes after every observation, final rows, stashes."""
    digest = hashlib.sha256()
    for entry in observer.tracker.stats.history:
        digest.update(repr(entry).encode())
    digest.update(observer.tracker.rows.tobytes())
    for stash in observer.tracker.stashes:
        digest.update(str(stash.index).encode())
        digest.update(stash.rows.tobytes())
    return digest.hexdigest()[:16]


@pytest.mark.parametrize(
    ("name", "color", "cap", "seed", "slack", "expected"),
    [
        ("random", chess.WHITE, 8, 1, 4, "8afdda59055d5c44"),  # 59 recoveries, 28 samplings
        ("attacker", chess.BLACK, 16, 2, 1, "4de38bf0dc75099c"),
        ("random", chess.BLACK, 32, 3, 20, "934f9033ad22fed4"),
    ],
)
def test_same_boards_and_draws_as_before_the_split(
    name: str, color: chess.Color, cap: int, seed: int, slack: int, expected: str
) -> None:
    """Seeded games give the tracker the same rows, stashes and sizes after every observation as the
    single-module tracker did (fingerprints taken from it, commit 4d1d408): the split changed no draw."""
    assert _digest(observe_game(OPPONENTS[name], color, cap, seed, 12, slack)) == expected


def test_settings_by_keyword_or_config() -> None:
    config = BeliefConfig(max_cap=5, seed=1, max_stashed=1000, expansion_slack=2)
    by_config = BeliefTracker(chess.WHITE, config=config)
    by_keyword = BeliefTracker(chess.WHITE, cap=5, seed=1, max_stashed=1000, expansion_slack=2)
    with pytest.raises(TypeError):
        BeliefTracker(chess.WHITE, None, 5, 1, 1000, 2)  # type: ignore[misc]
    for tracker in (by_config, by_keyword):
        assert (tracker.cap, tracker.max_stashed, tracker.expansion_slack) == (5, 1000, 2)
        tracker.on_own_move(chess.Move.from_uci("e2e4"), chess.Move.from_uci("e2e4"), None)
        tracker.on_opponent_move(None)
    assert by_config.rows.tobytes() == by_keyword.rows.tobytes()
    with pytest.raises(TypeError, match="not both"):
        BeliefTracker(chess.WHITE, config=config, cap=5)
