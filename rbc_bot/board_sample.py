"""Which believed boards the move selector scores, and how many boards each one stands for.

A belief of thousands of boards is scored on a sample of a few hundred. Under the worst-board
ranking a move is only as good as the worst board scored, so the boards that could punish a move
must be in the sample even when they are rare: the boards where our king is attacked come first; then
(with ``move.queen_share``) a share of the rest is kept for the boards where our queen is attacked,
the boards an unseen quiet move wins it on, and (with ``move.threat_share``) a share for the boards
where the opponent could check our king at once, the boards a mate in one hides in. The others are a
uniform sample. Each sampled board then stands for its tier's boards, so expected scores still weigh
the belief.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import chess
import numpy as np


def our_king_attacked(board: chess.Board, by_king: bool = True) -> bool:
    """Whether the opponent attacks our king on this board (we are to move); with ``by_king`` false,
    their king's own attack does not count: on our turn our king takes theirs, a won board."""
    king = board.king(board.turn)
    if king is None:
        return False
    attackers = board.attackers_mask(not board.turn, king)
    return bool(attackers if by_king else attackers & ~board.kings)


def our_queen_attacked(board: chess.Board) -> bool:
    """Whether the opponent attacks one of our queens on this board (we are to move): whatever attacks
    it is worth less, or the queen for the queen, so an attack unanswered usually costs the queen."""
    them = not board.turn
    return any(board.is_attacked_by(them, square) for square in board.pieces(chess.QUEEN, board.turn))


PIECE_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}


def our_piece_hangs(board: chess.Board) -> bool:
    """Whether a piece of ours worth at least a minor hangs on this board (we are to move): the
    opponent attacks it with a lesser piece, or attacks it and we do not defend it. Their king counts
    as the most valuable attacker: it may take only what nothing defends."""
    us, them = board.turn, not board.turn
    for square in chess.scan_forward(board.occupied_co[us] & ~board.pawns & ~board.kings):
        attackers = board.attackers(them, square)
        if not attackers:
            continue
        value = PIECE_VALUES[board.piece_type_at(square) or chess.PAWN]
        least = min(PIECE_VALUES[board.piece_type_at(a) or chess.PAWN] or 100 for a in attackers)
        if least < value or not board.is_attacked_by(us, square):
            return True
    return False


def check_threat(board: chess.Board, us: chess.Color | None = None, quiet: bool = False) -> bool:
    """Whether the opponent of ``us`` (the side to move if None), were it to move now, could check our
    king with one move: a piece (its king too) moving to a square from which it attacks the king
    (through the pieces standing now: meant for boards where the king is not attacked yet; discovered
    checks, castling, en passant and promotions aside); with ``quiet``, only onto an empty square: a
    capture tells us where it happened, a quiet check tells us nothing. Bitboards only: a few
    microseconds a board (benchmarks/board_sample.py), where generating its moves would take a hundred
    times more."""
    us = board.turn if us is None else us
    them = not us
    king = board.king(us)
    if king is None:
        return False
    occupied = board.occupied
    reachable = chess.BB_ALL & ~(occupied if quiet else board.occupied_co[them])
    diagonal = chess.BB_DIAG_ATTACKS[king][chess.BB_DIAG_MASKS[king] & occupied]
    straight = (
        chess.BB_RANK_ATTACKS[king][chess.BB_RANK_MASKS[king] & occupied]
        | chess.BB_FILE_ATTACKS[king][chess.BB_FILE_MASKS[king] & occupied]
    )
    for square in chess.scan_forward(board.knights & board.occupied_co[them]):
        if chess.BB_KNIGHT_ATTACKS[square] & chess.BB_KNIGHT_ATTACKS[king] & reachable:
            return True
    their_king = board.king(them)  # in RBC a king that steps next to ours may take it
    if their_king is not None and chess.BB_KING_ATTACKS[their_king] & chess.BB_KING_ATTACKS[king] & reachable:
        return True
    theirs = board.occupied_co[them]
    for sliders, lines in ((board.bishops | board.queens, diagonal), (board.rooks | board.queens, straight)):
        for square in chess.scan_forward(sliders & theirs):
            if board.attacks_mask(square) & lines & reachable:
                return True
    return pawn_check_threat(board, king, them, quiet)


def pawn_check_threat(board: chess.Board, king: chess.Square, them: chess.Color, quiet: bool = False) -> bool:
    """Whether a pawn of ``them`` could check ``king`` with one move: a push (one square) or, unless
    ``quiet``, a capture onto a square from which a pawn of ``them`` attacks the king."""
    checking = chess.BB_PAWN_ATTACKS[not them][king]  # squares from which their pawn attacks the king
    pawns = board.pawns & board.occupied_co[them]
    pushed = (pawns << 8 if them == chess.WHITE else pawns >> 8) & chess.BB_ALL & ~board.occupied
    if pushed & checking:
        return True
    if quiet:
        return False
    ours = board.occupied_co[not them]
    return any(chess.BB_PAWN_ATTACKS[them][square] & checking & ours for square in chess.scan_forward(pawns))


def tier_weights(tiers: Sequence[tuple[int, int]]) -> np.ndarray:
    """How many boards each sampled board stands for, when from each tier of (size, taken) boards
    ``taken`` were sampled, tier after tier."""
    return np.concatenate([np.full(taken, size / max(taken, 1)) for size, taken in tiers])


def uniform(boards: Sequence[chess.Board], k: int, rng: np.random.Generator) -> list[chess.Board]:
    """``k`` of ``boards`` (all if fewer), uniformly without replacement, in their order."""
    if k <= 0 or not boards:
        return []
    pick = rng.choice(len(boards), size=min(k, len(boards)), replace=False)
    return [boards[i] for i in sorted(pick)]


def by_odds(
    boards: Sequence[chess.Board], odds: np.ndarray, k: int, rng: np.random.Generator
) -> list[chess.Board]:
    """``k`` of ``boards`` without replacement, each board's chance to come next its share of the
    ``odds`` (positive) among those left (Gumbel top-k), in their order."""
    keys = np.log(np.asarray(odds, dtype=np.float64)) + rng.gumbel(size=len(boards))
    return [boards[i] for i in sorted(np.argsort(-keys)[:k].tolist())]


Draw = Callable[[Sequence[chess.Board], int, np.random.Generator], list[chess.Board]]
"""How ``k`` boards are drawn from a tier: :func:`uniform`, by how likely each is (rbc_bot.likely), or
by the belief's carried weights (:class:`PriorDraw`)."""


class PriorDraw:
    """Draws ``k`` of a tier's boards by ``prior`` (each board's weight, rbc_bot.belief_weights) rather
    than uniformly. Why: weights this uneven, multiplied into the mean of a uniform sample, leave it
    resting on a few dozen boards; drawn by them, the sample holds the likely boards and each scored
    board counts alike. Each board's weight is asked once (the belief encodes it to find it), however
    many tiers and draws it meets."""

    def __init__(self, prior: Callable[[Sequence[chess.Board]], np.ndarray]) -> None:
        self.prior = prior
        self.known: dict[int, float] = {}  # by id: the move's boards live through its whole choice

    def __call__(self, boards: Sequence[chess.Board], k: int, rng: np.random.Generator) -> list[chess.Board]:
        if k >= len(boards):
            return uniform(boards, k, rng)
        new = [board for board in boards if id(board) not in self.known]
        if new:
            self.known.update(zip(map(id, new), self.prior(new).tolist(), strict=True))
        odds = np.array([self.known[id(board)] for board in boards])
        return by_odds(boards, np.maximum(odds, 1e-300), k, rng)


def tier_sizes(room: int, first: Sequence[tuple[int, float]], rest: int) -> tuple[list[int], int]:
    """How many boards to draw from each of the ``first`` tiers (size, share), each at most its share
    of ``room``, and from the ``rest`` (size) after them; when the rest runs short, the first tiers
    fill the room left, in order."""
    taken = [min(size, int(share * room)) for size, share in first]
    from_rest = min(rest, room - sum(taken))
    left = room - sum(taken) - from_rest
    for i, (size, _) in enumerate(first):
        extra = min(size - taken[i], left)
        taken[i] += extra
        left -= extra
    return taken, from_rest


@dataclass
class Tiers:
    """The believed boards (our side to move) by what they threaten: our king attacked; else, when
    split out, our queen attacked (``queen``); else, when split out, the opponent could check our king
    at once (``threatened``); the rest (``calm``)."""

    attacked: list[chess.Board]
    threatened: list[chess.Board]
    calm: list[chess.Board]
    queen: list[chess.Board] = field(default_factory=list)

    @classmethod
    def of(cls, boards: Sequence[chess.Board], split_threats: bool, split_queen: bool = False) -> Tiers:
        """Each board tested once for an attack on our king and, if asked, the others for an attack on
        our queen and then for a check threat."""
        tiers = cls([], [], [], [])
        for board in boards:
            if our_king_attacked(board):
                tiers.attacked.append(board)
            elif split_queen and our_queen_attacked(board):
                tiers.queen.append(board)
            else:
                (tiers.threatened if split_threats and check_threat(board) else tiers.calm).append(board)
        return tiers

    @property
    def quiet(self) -> int:
        """The boards where our king is not attacked."""
        return len(self.queen) + len(self.threatened) + len(self.calm)

    def sample(
        self,
        k: int,
        threat_share: float,
        rng: np.random.Generator,
        most_attacked: int | None = None,
        queen_share: float = 0.0,
        draw_calm: Draw = uniform,
    ) -> tuple[list[chess.Board], np.ndarray]:
        """Up to ``k`` boards and how many believed boards each stands for: the attacked boards first
        (at most ``most_attacked`` of them); then, when not every board fits, up to ``queen_share`` of
        the room left for boards where our queen is attacked and up to ``threat_share`` for threatened
        boards, each drawn uniformly; the rest drawn from the calm ones by ``draw_calm`` (the others
        too if those run short)."""
        first = self.attacked[: min(k, len(self.attacked) if most_attacked is None else most_attacked)]
        room = k - len(first)
        shares = [(len(self.queen), queen_share), (len(self.threatened), threat_share)]
        (from_queen, from_threatened), from_calm = tier_sizes(room, shares, len(self.calm))
        chosen = (
            first
            + uniform(self.queen, from_queen, rng)
            + uniform(self.threatened, from_threatened, rng)
            + draw_calm(self.calm, from_calm, rng)
        )
        tiers = [
            (len(self.attacked), len(first)),
            (len(self.queen), from_queen),
            (len(self.threatened), from_threatened),
            (len(self.calm), from_calm),
        ]
        return chosen, tier_weights(tiers)

    def widen(
        self,
        chosen: Sequence[chess.Board],
        k: int,
        threat_share: float,
        rng: np.random.Generator,
        queen_share: float = 0.0,
        draw_calm: Draw = uniform,
    ) -> list[chess.Board]:
        """Up to ``k`` more boards, drawn as :meth:`sample` draws from the boards ``chosen`` left out
        (told apart by identity: the belief decodes each board anew); :meth:`stands_for` then weighs
        the union."""
        taken = {id(board) for board in chosen}
        rest = Tiers(*([b for b in tier if id(b) not in taken] for tier in self.groups))
        return rest.sample(k, threat_share, rng, queen_share=queen_share, draw_calm=draw_calm)[0]

    @property
    def groups(self) -> tuple[list[chess.Board], ...]:
        """The tiers in the order of the constructor's arguments."""
        return self.attacked, self.threatened, self.calm, self.queen

    def stands_for(self, sample: Sequence[chess.Board]) -> np.ndarray:
        """How many believed boards each board of ``sample`` (drawn from these tiers) stands for: its
        tier's size over the boards of ``sample`` in that tier."""
        tier_of = {id(board): i for i, tier in enumerate(self.groups) for board in tier}
        labels = [tier_of[id(board)] for board in sample]
        counts = Counter(labels)
        return np.array([len(self.groups[i]) / counts[i] for i in labels], dtype=np.float64)
