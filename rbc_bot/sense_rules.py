"""Which rule picks this turn's sense, in order: tell apart the boards where a king capture we would
try works (raid), tell apart the boards where our king is attacked (danger), then those where our
queen is (queen, when asked; before the danger rule when asked and its threat is the larger; so too,
in small beliefs, the boards where a piece of ours hangs: piece), locate
their king when we stand well (king hunt), else the configured selector (by default the centre that
best serves the move choice, in beliefs of up to 150 boards, and the one leaving the fewest boards in
larger ones, both with ``sense.likely_weights`` weighing the boards by how likely the opponent's play
made them; the cheapest one in panic).

The rules read the belief and the last move's centipawns, and the decision rule scores candidate
moves with the engine; RbcBot hands them what they read and records what they chose.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import chess
import numpy as np

from rbc_bot.belief import decode, piece_code
from rbc_bot.board_sample import our_king_attacked, our_piece_hangs, our_queen_attacked
from rbc_bot.config import BotConfig
from rbc_bot.engine import king_capture_moves
from rbc_bot.likely import WEIGHT_TABLES, best_candidate_weights, board_weights
from rbc_bot.move import candidate_values
from rbc_bot.raid import likeliest_raid, unparried
from rbc_bot.scorer import Scorer
from rbc_bot.sense import (
    attacked_first,
    choose_sense_square,
    danger_square,
    decision_square,
    expected_survivors,
    king_square,
    sample_rows,
    window_square,
)

DANGER_SAMPLE = 2_000  # boards checked for an attacked king when choosing the sense


@dataclass
class SenseInputs:
    """What the rules read: the belief, our colour, the last move's centipawns, this turn's requests
    and the sense's share of the turn's budget."""

    rows: np.ndarray
    color: chess.Color
    last_mean: float
    last_worst: float
    move_actions: Sequence[chess.Move]
    seconds: float
    panic: bool
    turn: int = 0  # ours, counted from 1 (0: unknown)
    prior: Callable[[np.ndarray], np.ndarray] | None = None  # rows' weights from the belief (None: alike)


class SenseRules:
    """The rules, with the engine's scorer and the bot's random source; ``danger_share`` is the share
    of sampled boards where our king is attacked, once a rule has looked."""

    def __init__(self, config: BotConfig, scorer: Scorer, rng: np.random.Generator) -> None:
        self.config = config
        self.scorer = scorer
        self.rng = rng
        self.danger_share: float | None = None

    def choose(self, seen: SenseInputs) -> tuple[int | None, str]:
        """The sense square and the rule that chose it."""
        sense = self.config.sense
        method = "partition" if seen.panic else sense.method
        square = None
        rule: str = method
        if sense.raid_share > 0 and not seen.panic:
            square, rule = self.raid(seen), "raid"
        if square is None and sense.queen_over_danger > 0 and sense.queen_share > 0 and not seen.panic:
            square, rule = self.queen_first(seen), "queen"
        if square is None and sense.piece_over_danger > 0 and not seen.panic:
            square, rule = self.piece_first(seen), "piece"
        if square is None and sense.danger_first and not seen.panic:
            square, rule = self.danger(seen), "danger"
        if square is None and sense.queen_share > 0 and not seen.panic:
            square, rule = self.queen(seen), "queen"
        if square is None and not seen.panic and seen.last_mean >= sense.king_hunt_cp:
            square, rule = self.king_hunt(seen), "king-hunt"
        if square is None and method == "decision" and self.decides(seen):
            square, rule = self.decision(seen), "decision"
        if square is None and method == "decision" and sense.likely_weights and not seen.panic:
            square, rule = self.likely_window(seen), "likely-window"
        if square is None:
            rule = "window" if method == "decision" else method
            square = choose_sense_square(seen.rows, rule, self.rng, sense.window_sample)
        return square, rule

    def decides(self, seen: SenseInputs) -> bool:
        """Whether the decision rule picks the centre: with ``sense.decision_max_boards`` set, only in
        beliefs up to that size. In larger ones the centre leaving the fewest boards serves the next
        turns better than the one serving this move: the decision sense's one-turn gain is on small
        beliefs, and a belief left large stays hard to track."""
        limit = self.config.sense.decision_max_boards
        return limit == 0 or len(seen.rows) <= limit

    def raid(self, seen: SenseInputs) -> int | None:
        """When the king capture possible on the most boards works on at least ``sense.raid_share`` of
        them (weighed as the move selector weighs them) but not on all, the centre that best tells the
        boards it works on from the others. Taken on a guess, such a raid mostly misses against an
        opponent that saw our check, and the piece lands on the blocker; sensed first, it is taken
        when it works and not when it doesn't, whatever else the sense might have told apart."""
        rows = sample_rows(seen.rows, DANGER_SAMPLE, self.rng)
        boards = decode(rows, seen.color)
        raid = likeliest_raid(boards, set(seen.move_actions), self.config.move.blunder_board_weight)
        if raid is None or raid[1] < self.config.sense.raid_share:
            return None
        capture = raid[0]
        works = np.array([capture in king_capture_moves(board) for board in boards], dtype=bool)
        return danger_square(rows, works)

    def danger(self, seen: SenseInputs) -> int | None:
        """A sense that tells boards where our king is attacked from the others (None if all agree, or
        if the threat is rare in a large belief: there cutting the belief is worth more). When we stand
        well on every board, any threat counts: the move selector must parry a threat on any scored
        board, so an unsensed rare one would cost a move every turn. In the first
        ``sense.danger_opening_turns`` turns too: a knight rushed to a checking square in three unseen
        moves sits on a few boards of a thousand, and the opening has little else a sense must find.
        With ``sense.danger_unparried``, also when no request keeps our king safe on every sampled
        board: then the move selector loses the game on some board whatever it plays."""
        sense = self.config.sense
        rows, attacked = self.attacked_sample(seen)
        any_threat = (
            len(seen.rows) <= sense.danger_always_below
            or seen.last_worst >= sense.danger_ahead_cp
            or 0 < seen.turn <= sense.danger_opening_turns
            or (sense.danger_unparried and self.unparried(seen, rows, attacked))
        )
        min_share = 0.0 if any_threat else sense.danger_min_share
        return danger_square(rows, attacked, min_share, sense.danger_tolerance)

    def unparried(self, seen: SenseInputs, rows: np.ndarray, attacked: np.ndarray) -> bool:
        """Whether our king is attacked on some of the sampled boards, on fewer than
        ``sense.danger_min_share`` of them (a larger share is sensed anyway), and no request keeps it
        safe on every sampled board (``rbc_bot.raid.unparried``)."""
        n_attacked = int(attacked.sum())
        if n_attacked == 0 or n_attacked >= self.config.sense.danger_min_share * len(rows):
            return False
        boards = decode(rows, seen.color)
        return unparried(
            [b for b, hit in zip(boards, attacked, strict=True) if hit], boards, seen.move_actions
        )

    def queen(self, seen: SenseInputs) -> int | None:
        """When our queen is attacked on at least ``sense.queen_share`` of the boards but not all, the
        centre that best tells those boards apart. A quiet move that attacks the queen is not told to
        us; on a few boards in a hundred it escapes the move selector's sample or its worst-board
        ranking, and against a strong opponent those boards are the true one more often than counted."""
        rows = sample_rows(seen.rows, DANGER_SAMPLE, self.rng)
        attacked = np.array([our_queen_attacked(b) for b in decode(rows, seen.color)], dtype=bool)
        return danger_square(rows, attacked, self.config.sense.queen_share)

    def queen_first(self, seen: SenseInputs) -> int | None:
        """The queen rule's sense, taken before the danger rule when our king is attacked on fewer than
        ``sense.queen_over_danger`` times the share of boards where our queen is (None otherwise). In
        a belief of up to ``sense.danger_always_below`` boards the danger rule senses any threat, so a
        check on one board in 500 took the sense while our queen was attacked on one in thirteen, and
        the queen was lost."""
        sense = self.config.sense
        return self.before_danger(seen, our_queen_attacked, sense.queen_over_danger, sense.queen_share)

    def piece_first(self, seen: SenseInputs) -> int | None:
        """In a belief of up to ``sense.danger_always_below`` boards, where the danger rule senses any
        check, a sense that tells apart the boards where a piece of ours worth a minor or more hangs,
        when it hangs on at least ``sense.piece_share`` of them and our king is attacked on fewer than
        ``sense.piece_over_danger`` times that share (None otherwise): a check on 2-6 % of the boards
        took the sense while the rook or knight then taken hung on 10-31 % (session 33's losses)."""
        sense = self.config.sense
        if len(seen.rows) > sense.danger_always_below:
            return None
        return self.before_danger(seen, our_piece_hangs, sense.piece_over_danger, sense.piece_share)

    def before_danger(
        self, seen: SenseInputs, threatened: Callable[[chess.Board], bool], over_king: float, least: float
    ) -> int | None:
        """The centre that best tells apart the boards where ``threatened`` holds, if it holds on at
        least ``least`` of them (not all) and our king is attacked on fewer than ``over_king`` times
        that share (None otherwise)."""
        rows = sample_rows(seen.rows, DANGER_SAMPLE, self.rng)
        boards = decode(rows, seen.color)
        marked = np.array([threatened(board) for board in boards], dtype=bool)
        king = float(np.mean([our_king_attacked(board) for board in boards]))
        if king >= over_king * float(marked.mean()):
            return None
        return danger_square(rows, marked, least)

    def attacked_sample(self, seen: SenseInputs) -> tuple[np.ndarray, np.ndarray]:
        """A sample of the believed boards and, for each, whether our king is attacked there."""
        rows = sample_rows(seen.rows, DANGER_SAMPLE, self.rng)
        by_king = self.config.sense.danger_king_contact
        attacked = np.array([our_king_attacked(b, by_king) for b in decode(rows, seen.color)], dtype=bool)
        self.danger_share = round(float(attacked.mean()), 3) if len(attacked) else 0.0
        return rows, attacked

    def decision(self, seen: SenseInputs) -> int | None:
        """The centre whose result best serves the move choice, from the candidates' scores on a sample
        of boards (None when the belief holds a single board: nothing to tell apart). With
        ``sense.decision_attacked_share``, boards where our king is attacked come first in the sample;
        with ``sense.decision_boards_per_point``, each board a centre leaves counts against it."""
        sense = self.config.sense
        weights = None
        if sense.decision_attacked_share > 0:
            pool, attacked = self.attacked_sample(seen)
            share = sense.decision_attacked_share
            rows, weights = attacked_first(pool, attacked, sense.decision_boards, share, self.rng)
        else:
            rows = sample_rows(seen.rows, sense.decision_boards, self.rng)
        if len(rows) < 2:
            return None
        boards = decode(rows, seen.color)
        legal = set(seen.move_actions)
        values = candidate_values(boards, legal, self.scorer, self.config.move, 0.8 * seen.seconds, self.rng)
        if sense.likely_weights:
            likely = best_candidate_weights(values, WEIGHT_TABLES[sense.likely_table])
            weights = likely if weights is None else weights * likely
        if seen.prior is not None:
            weights = seen.prior(rows) * (1.0 if weights is None else weights)
        how = "min" if self.config.move.aggregate == "min" else "mean"
        per_point = sense.decision_boards_per_point
        left = self.boards_left(seen.rows) if per_point > 0 else None
        return decision_square(rows, values, how, weights=weights, survivors=left, boards_per_point=per_point)

    def likely_window(self, seen: SenseInputs) -> int | None:
        """The window sense on a sample of ``sense.likely_boards`` boards, the truth drawn by how likely
        the opponent's play made each (rbc_bot.likely): the sense cuts the belief most where its
        move hurt us, the likeliest boards, rather than evenly (None: one board)."""
        rows = sample_rows(seen.rows, self.config.sense.likely_boards, self.rng)
        if len(rows) < 2:
            return None
        table = WEIGHT_TABLES[self.config.sense.likely_table]
        weights = board_weights(decode(rows, seen.color), self.scorer, 0.8 * seen.seconds, table)
        if seen.prior is not None:
            weights = weights * seen.prior(rows)
        return window_square(rows, weights)

    def boards_left(self, rows: np.ndarray) -> np.ndarray:
        """Each centre's expected boards left in the whole belief, from a window sample of it."""
        pool = sample_rows(rows, self.config.sense.window_sample, self.rng)
        return expected_survivors(pool) * (len(rows) / len(pool))

    def king_hunt(self, seen: SenseInputs) -> int | None:
        """When we stand well, the sense that best locates the enemy king (None if no board doubts it)."""
        rows = sample_rows(seen.rows, self.config.sense.window_sample, self.rng)
        return king_square(rows, piece_code(chess.Piece(chess.KING, not seen.color)))
