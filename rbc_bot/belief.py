"""The belief tracker: every board the opponent could have, as rows of a numpy array.

One row per board: 64 piece codes (0 empty, 1..6 white PNBRQK, 7..12 black pnbrqk), then the
castling rights as 4 bits (1 = white h1, 2 = white a1, 4 = black h8, 8 = black a8), then the
en-passant square (-1 for none; python-chess's raw ``ep_square``, set after every double push).
Filtering, deduplication and partition counts stay in numpy; ``chess.Board`` objects are built only
to generate the opponent's moves and for the engine.

When the set grows past ``cap`` it is uniformly sampled down and the rest is stashed, tagged with the
number of observations it has seen. When an observation contradicts every live board, the EARLIEST
stash is re-simulated through all later observations (the seed's choice: it amortises recovery).
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import chess
import numpy as np

from rbc_bot.rules import revise, sense_window, taken_moves

log = logging.getLogger(__name__)

ROW = 66
CASTLE_COL = 64
EP_COL = 65
NO_EP = -1
N_CODES = 13
CASTLE_BITS = {chess.H1: 1, chess.A1: 2, chess.H8: 4, chess.A8: 8}
COLOR_CASTLE_BITS = {chess.WHITE: 1 | 2, chess.BLACK: 4 | 8}

# Bits a move from or to a square clears (rook corners), as python-chess's push does.
_CLEAR_ON_SQUARE = np.zeros(64, dtype=np.int8)
for _sq, _bit in CASTLE_BITS.items():
    _CLEAR_ON_SQUARE[_sq] = _bit
# A king captured at home loses its side's rights too (python-chess's clean_castling_rights).
_CLEAR_ON_SQUARE[chess.E1] = 1 | 2
_CLEAR_ON_SQUARE[chess.E8] = 4 | 8
_BIT_VALUES = [1 << sq for sq in range(64)]


def piece_code(piece: chess.Piece | None) -> int:
    """0 for an empty square, 1..6 for white P N B R Q K, 7..12 for black."""
    if piece is None:
        return 0
    return piece.piece_type + (0 if piece.color == chess.WHITE else 6)


def code_piece(code: int) -> chess.Piece | None:
    if code == 0:
        return None
    return chess.Piece((code - 1) % 6 + 1, chess.WHITE if code <= 6 else chess.BLACK)


def encode(board: chess.Board) -> np.ndarray:
    """One board as a row (piece codes, castling bits, raw en-passant square)."""
    row = np.zeros(ROW, dtype=np.int8)
    for square, piece in board.piece_map().items():
        row[square] = piece_code(piece)
    rights = board.clean_castling_rights()
    row[CASTLE_COL] = sum(bit for sq, bit in CASTLE_BITS.items() if rights & chess.BB_SQUARES[sq])
    row[EP_COL] = NO_EP if board.ep_square is None else board.ep_square
    return row


def _bitboards(rows: np.ndarray) -> list[list[int]]:
    """Per row, the 12 piece bitboards (white P..K, black p..k) as Python ints."""
    out: list[list[int]] = []
    for start in range(0, len(rows), 20_000):
        pieces = rows[start : start + 20_000, :64]
        onehot = pieces[:, :, None] == np.arange(1, N_CODES, dtype=np.int8)  # (n, 64, 12)
        packed = np.packbits(onehot, axis=1, bitorder="little")  # (n, 8, 12)
        words = np.ascontiguousarray(packed.transpose(0, 2, 1)).view("<u8")[:, :, 0]
        out.extend(words.tolist())
    return out


def _castling_bb(bits: int) -> int:
    return sum(chess.BB_SQUARES[sq] for sq, bit in CASTLE_BITS.items() if bits & bit)


def _load(board: chess.Board, bbs: list[int], castling: int, ep: int, turn: chess.Color) -> None:
    """Overwrite ``board`` in place with a row's contents (no allocation: the expansion's hot loop)."""
    wp, wn, wb, wr, wq, wk, bp, bn, bb, br, bq, bk = bbs
    board.pawns, board.knights, board.bishops = wp | bp, wn | bn, wb | bb
    board.rooks, board.queens, board.kings = wr | br, wq | bq, wk | bk
    white, black = wp | wn | wb | wr | wq | wk, bp | bn | bb | br | bq | bk
    board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK] = white, black
    board.occupied = white | black
    board.promoted = 0
    board.turn = turn
    board.castling_rights = _castling_bb(castling)
    board.ep_square = None if ep < 0 else ep


def decode(rows: np.ndarray, turn: chess.Color, fullmove: int = 1) -> list[chess.Board]:
    """Rows as independent ``chess.Board`` objects with ``turn`` to move and no move stack."""
    boards = []
    for bbs, castling, ep in zip(
        _bitboards(rows), rows[:, CASTLE_COL].tolist(), rows[:, EP_COL].tolist(), strict=True
    ):
        board = chess.Board(None)
        _load(board, bbs, castling, ep, turn)
        board.fullmove_number = fullmove
        boards.append(board)
    return boards


def apply_moves(
    parents: np.ndarray, from_sq: np.ndarray, to_sq: np.ndarray, promotion: np.ndarray, mover: chess.Color
) -> np.ndarray:
    """Children of ``parents`` (row i gets move i; ``from_sq < 0`` is the pass), as python-chess pushes.

    Handles captures, en passant, promotion, the castling rook, castling rights and the new ep square.
    """
    child = parents.copy()
    child[:, EP_COL] = NO_EP
    idx = np.flatnonzero(from_sq >= 0)
    if len(idx) == 0:
        return child
    f, t, promo = from_sq[idx], to_sq[idx], promotion[idx]
    offset = 0 if mover == chess.WHITE else 6
    piece = child[idx, f]
    is_pawn = piece == chess.PAWN + offset
    is_king = piece == chess.KING + offset
    # En passant: a pawn moving diagonally onto an empty square removes the pawn behind it.
    ep = is_pawn & ((f % 8) != (t % 8)) & (child[idx, t] == 0)
    if ep.any():
        victim = t[ep] + (-8 if mover == chess.WHITE else 8)
        child[idx[ep], victim] = 0
    child[idx, f] = 0
    child[idx, t] = np.where(promo > 0, promo + offset, piece)
    castle = is_king & (np.abs(t - f) == 2)
    if castle.any():
        kingside = t[castle] > f[castle]
        rook_from = np.where(kingside, f[castle] + 3, f[castle] - 4)
        rook_to = np.where(kingside, f[castle] + 1, f[castle] - 1)
        child[idx[castle], rook_from] = 0
        child[idx[castle], rook_to] = chess.ROOK + offset
    clear = _CLEAR_ON_SQUARE[f] | _CLEAR_ON_SQUARE[t] | np.where(is_king, COLOR_CASTLE_BITS[mover], 0)
    child[idx, CASTLE_COL] &= ~clear.astype(np.int8)
    double = is_pawn & (np.abs(t - f) == 16)
    child[idx[double], EP_COL] = (f[double] + t[double]) // 2
    return child


def unique_rows(rows: np.ndarray) -> np.ndarray:
    """Rows with duplicates removed (first occurrence kept, order preserved)."""
    if len(rows) < 2:
        return rows
    view = np.ascontiguousarray(rows).view(np.dtype((np.void, rows.shape[1])))[:, 0]
    _, first = np.unique(view, return_index=True)
    return rows[np.sort(first)]


def expand(rows: np.ndarray, mover: chess.Color, capture_square: int | None) -> np.ndarray:
    """Every child of every row after one move of ``mover`` that fits the reported capture square.

    ``capture_square`` None keeps quiet moves and the pass; a square keeps the moves capturing there
    (a normal capture of the piece on it, or en passant of the pawn on it).
    """
    if len(rows) == 0:
        return rows
    down = -8 if mover == chess.WHITE else 8
    parents: list[int] = []
    froms: list[int] = []
    tos: list[int] = []
    promos: list[int] = []
    board = chess.Board(None)
    gc_was_enabled = gc.isenabled()
    gc.disable()  # the loop makes no cycles; the collector would only slow it down (perf-notes 1b)
    try:
        for i, (bbs, castling, ep) in enumerate(
            zip(_bitboards(rows), rows[:, CASTLE_COL].tolist(), rows[:, EP_COL].tolist(), strict=False)
        ):
            _load(board, bbs, castling, ep, mover)
            victims = board.occupied_co[not mover]
            if capture_square is None:
                to_mask = ~victims & chess.BB_ALL
                for move in taken_moves(board, chess.BB_ALL, to_mask):
                    is_pawn = board.pawns & chess.BB_SQUARES[move.from_square]
                    if move.to_square == ep and is_pawn and (move.to_square - move.from_square) % 8:
                        continue  # an en-passant capture would have been reported
                    parents.append(i)
                    froms.append(move.from_square)
                    tos.append(move.to_square)
                    promos.append(move.promotion or 0)
                parents.append(i)
                froms.append(-1)
                tos.append(-1)
                promos.append(0)
            else:
                to_mask = chess.BB_SQUARES[capture_square] & victims
                ep_hit = ep >= 0 and ep + down == capture_square
                if ep_hit:
                    to_mask |= chess.BB_SQUARES[ep]
                for move in taken_moves(board, chess.BB_ALL, to_mask):
                    if move.to_square != capture_square and not (
                        board.pawns & chess.BB_SQUARES[move.from_square]
                        and (move.to_square - move.from_square) % 8
                    ):
                        continue  # a push onto the ep square captures nothing
                    parents.append(i)
                    froms.append(move.from_square)
                    tos.append(move.to_square)
                    promos.append(move.promotion or 0)
    finally:
        if gc_was_enabled:
            gc.enable()
    if not parents:
        return rows[:0]
    children = apply_moves(
        rows[np.asarray(parents, dtype=np.intp)],
        np.asarray(froms, dtype=np.int64),
        np.asarray(tos, dtype=np.int64),
        np.asarray(promos, dtype=np.int8),
        mover,
    )
    return unique_rows(children)


def filter_sense(rows: np.ndarray, squares: Sequence[int], codes: Sequence[int]) -> np.ndarray:
    """Rows that show exactly ``codes`` on ``squares``."""
    if not squares or len(rows) == 0:
        return rows
    keep = (rows[:, list(squares)] == np.asarray(codes, dtype=np.int8)).all(axis=1)
    return rows[keep]


def filter_own_move(
    rows: np.ndarray,
    us: chess.Color,
    requested: chess.Move | None,
    taken: chess.Move | None,
    capture_square: int | None,
) -> np.ndarray:
    """Rows on which ``requested`` revises into ``taken`` with ``capture_square``, with the move applied.

    The outcome of a request depends only on the squares it passes and the ep/castling columns, so
    rows are grouped by those and reconchess's own ``revise_move`` decides once per group.
    """
    if len(rows) == 0:
        return rows
    if requested is not None:
        squares = {requested.from_square, requested.to_square}
        squares |= set(chess.SquareSet(chess.between(requested.from_square, requested.to_square)))
        if (
            requested.from_square in (chess.E1, chess.E8)
            and abs(requested.to_square - requested.from_square) == 2
        ):
            rook = requested.from_square + (3 if requested.to_square > requested.from_square else -4)
            squares |= {rook, *chess.SquareSet(chess.between(requested.from_square, rook))}
        columns = [*sorted(squares), CASTLE_COL, EP_COL]
        _groups, first, inverse = np.unique(rows[:, columns], axis=0, return_index=True, return_inverse=True)
        sample_boards = decode(rows[first], us)
        ok = np.array(
            [revise(board, requested) == (taken, capture_square) for board in sample_boards], dtype=bool
        )
        rows = rows[ok[inverse.reshape(-1)]]
    elif taken is not None or capture_square is not None:
        raise ValueError(f"a pass cannot be taken as {taken} with capture square {capture_square}")
    if taken is None:
        return apply_moves(
            rows, np.full(len(rows), -1), np.full(len(rows), -1), np.zeros(len(rows), np.int8), us
        )
    n = len(rows)
    return apply_moves(
        rows,
        np.full(n, taken.from_square),
        np.full(n, taken.to_square),
        np.full(n, taken.promotion or 0, dtype=np.int8),
        us,
    )


def partition_counts(rows: np.ndarray) -> np.ndarray:
    """(64, 13) counts: how many rows show each piece code on each square."""
    pieces = rows[:, :64]  # one small bincount per column: no N x 64 intp copy (2x faster at 100k)
    return np.stack([np.bincount(pieces[:, square], minlength=N_CODES) for square in range(64)])


# --- observations ------------------------------------------------------------------------------


@dataclass(frozen=True)
class OpponentMove:
    capture_square: int | None


@dataclass(frozen=True)
class Sense:
    square: int | None
    squares: tuple[int, ...]
    codes: tuple[int, ...]


@dataclass(frozen=True)
class OwnMove:
    requested: chess.Move | None
    taken: chess.Move | None
    capture_square: int | None


Observation = OpponentMove | Sense | OwnMove


@dataclass
class Stash:
    """Boards set aside by sampling; they have seen the first ``index`` observations."""

    index: int
    rows: np.ndarray


@dataclass
class TrackerStats:
    samplings: int = 0
    recoveries: int = 0
    stashes_exhausted: int = 0
    rebuilds: int = 0
    boards_stashed: int = 0
    boards_dropped: int = 0
    recoveries_timed_out: int = 0
    history: list[tuple[str, int, int]] = field(default_factory=list)  # (observation, live, stashed)


class BeliefTracker:
    """The boards one player believes possible, updated by that player's observations.

    ``cap`` None never samples. ``seed`` makes sampling reproducible.
    """

    def __init__(
        self,
        color: chess.Color,
        board: chess.Board | None = None,
        cap: int | None = None,
        seed: int = 0,
        max_stashed: int | None = None,
        expansion_slack: int = 1,
    ) -> None:
        if cap is not None and cap < 1:
            raise ValueError(f"belief cap must be >= 1 or None, not {cap}")
        if expansion_slack < 1:
            raise ValueError(f"expansion slack must be >= 1, not {expansion_slack}")
        start = chess.Board() if board is None else board
        self.color = color
        self.cap = cap
        self.max_stashed = max_stashed  # memory bound: beyond it the oldest stashes are dropped
        # The opponent's move may leave up to cap x slack boards: sensing them is cheap, expanding them is
        # not, so the sample is drawn after the sense has cut the set (less of the truth is sampled away).
        self.expansion_slack = expansion_slack
        self.recovery_seconds: float | None = None  # time bound per observation (the clock sets it)
        self.rng = np.random.default_rng(seed)
        self.rows = encode(start)[None, :]
        self._stash: dict[int, list[np.ndarray]] = {}  # observation index -> stashed row blocks
        self._shuffled: set[int] = set()  # stashes that are one deduplicated, shuffled block
        self.observations: list[Observation] = []
        self.to_move: chess.Color = start.turn
        self.fullmove = start.fullmove_number
        self.stats = TrackerStats()
        ours = self.rows[0, :64].copy()
        mine = (ours >= 1) & (ours <= 6) if color == chess.WHITE else ours >= 7
        ours[~mine] = 0
        self._ours = ours  # our own pieces, known exactly

    # --- sizes and views -------------------------------------------------------------------------
    @property
    def live_size(self) -> int:
        return len(self.rows)

    @property
    def stashed_size(self) -> int:
        return sum(len(block) for blocks in self._stash.values() for block in blocks)

    @property
    def stashes(self) -> list[Stash]:
        """The stashes, earliest first (one per observation index)."""
        return [Stash(index, np.concatenate(self._stash[index])) for index in sorted(self._stash)]

    @property
    def recoveries(self) -> int:
        return self.stats.recoveries

    @property
    def pieces(self) -> np.ndarray:
        """Live boards' piece codes, N x 64 (a view: do not modify)."""
        return self.rows[:, :64]

    def partition_counts(self) -> np.ndarray:
        return partition_counts(self.rows)

    def boards(self) -> list[chess.Board]:
        return decode(self.rows, self.to_move, self.fullmove)

    def __iter__(self) -> Iterator[chess.Board]:
        return iter(self.boards())

    def __len__(self) -> int:
        return self.live_size

    def sample(self, k: int, rng: np.random.Generator | None = None) -> list[chess.Board]:
        """A uniform sample of ``k`` live boards (all of them when there are fewer)."""
        if k >= len(self.rows):
            return self.boards()
        pick = (rng or self.rng).choice(len(self.rows), size=k, replace=False)
        return decode(self.rows[np.sort(pick)], self.to_move, self.fullmove)

    def contains(self, board: chess.Board) -> bool:
        return _row_in(encode(board), self.rows)

    def stash_contains(self, index: int, board: chess.Board) -> bool:
        """Whether a stash tagged ``index`` holds ``board`` (the truth after ``index`` observations)."""
        row = encode(board)
        return any(_row_in(row, block) for block in self._stash.get(index, []))

    # --- observations ----------------------------------------------------------------------------
    def on_opponent_move(self, capture_square: int | None) -> None:
        """The opponent moved and captured on ``capture_square`` (None: no capture).

        A no-op when the opponent has not moved yet (White's first turn).
        """
        if self.to_move == self.color:
            if capture_square is not None:
                raise ValueError("a capture was reported although the opponent has not moved yet")
            return
        if capture_square is not None:
            if not 0 <= capture_square < 64:
                raise ValueError(f"capture square {capture_square} is not on the board")
            if self._ours[capture_square] == 0:
                raise ValueError(
                    f"capture square {chess.square_name(capture_square)} holds none of our pieces"
                )
        self._observe(OpponentMove(capture_square))
        if capture_square is not None:
            self._ours[capture_square] = 0

    def on_sense(self, square: int | None, result: Sequence[tuple[int, chess.Piece | None]]) -> None:
        """We sensed at ``square`` and saw ``result`` ((square, piece or None) for each square)."""
        if square is None:
            if result:
                raise ValueError("a sense result was given for no sense")
            return
        window = sense_window(square)
        seen = [int(sq) for sq, _ in result]
        if sorted(seen) != sorted(window):
            raise ValueError(
                f"sense at {chess.square_name(square)} shows squares "
                f"{[chess.square_name(s) for s in seen if 0 <= s < 64]}, not its window "
                f"{[chess.square_name(s) for s in window]}"
            )
        self._observe(Sense(square, tuple(seen), tuple(piece_code(p) for _, p in result)))

    def on_own_move(
        self, requested: chess.Move | None, taken: chess.Move | None, capture_square: int | None
    ) -> None:
        """Our ``requested`` move was played as ``taken`` and captured on ``capture_square``."""
        if capture_square is not None and not 0 <= capture_square < 64:
            raise ValueError(f"capture square {capture_square} is not on the board")
        if capture_square is not None and taken is None:
            raise ValueError("a capture was reported for a move that was not taken")
        self._observe(OwnMove(requested, taken, capture_square))
        if taken is not None:
            self._move_ours(taken)

    def _move_ours(self, move: chess.Move) -> None:
        """Move our piece in the own-pieces row. Not via apply_moves: a capture lands on a square that is
        empty in this row, which apply_moves would take for en passant and erase the pawn behind it."""
        ours, f, t = self._ours, move.from_square, move.to_square
        piece = int(ours[f])
        ours[f] = 0
        offset = 0 if self.color == chess.WHITE else 6
        ours[t] = move.promotion + offset if move.promotion else piece
        if piece == chess.KING + offset and abs(t - f) == 2:
            rook_from, rook_to = (f + 3, f + 1) if t > f else (f - 4, f - 1)
            ours[rook_from] = 0
            ours[rook_to] = chess.ROOK + offset

    # --- internals -------------------------------------------------------------------------------
    def _mover(self, observation: Observation) -> chess.Color:
        return (not self.color) if isinstance(observation, OpponentMove) else self.color

    def _apply(self, rows: np.ndarray, observation: Observation) -> np.ndarray:
        if isinstance(observation, OpponentMove):
            return expand(rows, not self.color, observation.capture_square)
        if isinstance(observation, Sense):
            return filter_sense(rows, observation.squares, observation.codes)
        return filter_own_move(
            rows, self.color, observation.requested, observation.taken, observation.capture_square
        )

    def _capped(self, rows: np.ndarray, index: int) -> np.ndarray:
        """Sample ``rows`` down to the cap (times the slack after an opponent move), stashing the rest
        tagged with ``index``."""
        if self.cap is None:
            return rows
        limit = self.cap
        if isinstance(self.observations[index - 1], OpponentMove):
            limit *= self.expansion_slack
        if len(rows) <= limit:
            return rows
        order = self.rng.permutation(len(rows))
        keep, rest = np.sort(order[:limit]), order[limit:]
        self._stash.setdefault(index, []).append(rows[rest])
        self._shuffled.discard(index)
        self._bound_stash()
        self.stats.samplings += 1
        self.stats.boards_stashed += len(rest)
        return rows[keep]

    def _observe(self, observation: Observation) -> None:
        previous = self.rows
        self.observations.append(observation)
        now = len(self.observations)
        rows = self._capped(self._apply(self.rows, observation), now)
        deadline = None if self.recovery_seconds is None else time.perf_counter() + self.recovery_seconds
        while len(rows) == 0 and self._stash:
            if deadline is not None and time.perf_counter() > deadline:
                self.stats.recoveries_timed_out += 1
                log.warning(
                    "belief: recovery out of time (%.1f s); rebuilding instead", self.recovery_seconds
                )
                break
            rows = self._recover(now, deadline)
        if len(rows) == 0:
            self.stats.stashes_exhausted += 1
            rows = self._rebuild(previous, observation)
        self.rows = rows
        if isinstance(observation, OpponentMove | OwnMove):
            if self._mover(observation) == chess.BLACK:
                self.fullmove += 1
            self.to_move = not self._mover(observation)
        self.stats.history.append((type(observation).__name__, self.live_size, self.stashed_size))

    def _bound_stash(self) -> None:
        """Drop the oldest stashes while more than ``max_stashed`` boards are stashed (logged, counted).

        This gives up the guarantee that the truth is kept, for bounded memory; the rebuild path still
        keeps the game going if it is ever needed.
        """
        if self.max_stashed is None:
            return
        total = self.stashed_size
        while total > self.max_stashed and len(self._stash) > 1:
            oldest = min(self._stash)
            dropped = sum(len(block) for block in self._stash.pop(oldest))
            self._shuffled.discard(oldest)
            total -= dropped
            self.stats.boards_dropped += dropped
            log.warning("belief: stash over %d boards; dropped %d boards of observation %d",
                        self.max_stashed, dropped, oldest)  # fmt: skip

    def _take_from_stash(self, index: int) -> np.ndarray:
        """Up to ``cap`` boards of the stash at ``index``, uniformly drawn without replacement.

        The stash is merged, deduplicated and shuffled once; later draws take the next slice, so a run
        of recoveries from one big stash costs no more than one pass over it.
        """
        blocks = self._stash.pop(index)
        if len(blocks) > 1 or index not in self._shuffled:
            merged = unique_rows(np.concatenate(blocks))
            blocks = [merged[self.rng.permutation(len(merged))]]
        pool = blocks[0]
        size = len(pool) if self.cap is None else self.cap
        if len(pool) > size:
            self._stash[index] = [pool[size:]]
            self._shuffled.add(index)
        else:
            self._shuffled.discard(index)
        return pool[:size]

    def _recover(self, now: int, deadline: float | None = None) -> np.ndarray:
        """Re-simulate the earliest stash through every later observation.

        Past ``deadline`` the boards in flight are stashed where they are (nothing is lost) and no
        live board is returned.
        """
        start = min(self._stash)
        rows = self._take_from_stash(start)
        self.stats.recoveries += 1
        log.info("belief: all live boards contradicted; recovering %d boards stashed at observation %d of %d",
                 len(rows), start, now)  # fmt: skip
        for index in range(start, now):
            if deadline is not None and time.perf_counter() > deadline:
                self._stash.setdefault(index, []).append(rows)
                self._shuffled.discard(index)
                return rows[:0]
            rows = self._capped(self._apply(rows, self.observations[index]), index + 1)
            if len(rows) == 0:
                break
        return rows

    def _rebuild(self, previous: np.ndarray, observation: Observation) -> np.ndarray:
        """Every board and stash contradicted (a bug): force the latest observation onto the last set."""
        self.stats.rebuilds += 1
        log.error("belief: every board and stash contradicted by %s; rebuilding from %d boards",
                  observation, len(previous))  # fmt: skip
        rows = previous.copy()
        if isinstance(observation, Sense):
            rows[:, list(observation.squares)] = np.asarray(observation.codes, dtype=np.int8)
        elif isinstance(observation, OwnMove):
            if observation.taken is not None:
                move = observation.taken
                n = len(rows)
                rows = apply_moves(rows, np.full(n, move.from_square), np.full(n, move.to_square),
                                   np.full(n, move.promotion or 0, dtype=np.int8), self.color)  # fmt: skip
        else:
            rows = expand(rows, not self.color, None)
            if observation.capture_square is not None:
                queen = chess.QUEEN + (6 if self.color == chess.WHITE else 0)
                rows[:, observation.capture_square] = queen  # the capturer is unknown: assume the worst
        # Our own pieces are known exactly: restore them on every board.
        mine = self._ours != 0
        rows[:, :64][:, mine] = self._ours[mine]
        return unique_rows(rows)


def _row_in(row: np.ndarray, rows: np.ndarray) -> bool:
    return bool(len(rows)) and bool((rows == row).all(axis=1).any())
