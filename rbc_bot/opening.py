"""Opening plans: a solid first few moves for each colour, preferred while the opening lasts.

Why: under uncertainty the engine's favourite opening moves are often sorties (an early queen move,
a pawn grab) that are fine on the boards we believe but leave the king exposed to attacks we will not
see coming. A plan of sound developing moves that guard the king's weak square (f2 / f7), played only
when they are among the safe candidates, avoids that. The preference is a bonus in centipawns on
every board, so a move that loses material or the king still loses: the plan never overrides safety.
"""

from __future__ import annotations

import chess

PLANS: dict[chess.Color, tuple[str, ...]] = {
    # e6 shuts the a2-g8 diagonal to f7, Nf6 guards h5 (the two quick mating patterns), d5 takes the
    # centre, Be7 and O-O bring the king to safety.
    chess.BLACK: ("e7e6", "d7d5", "g8f6", "f8e7", "e8g8", "c7c5", "b8d7", "b7b6", "c8b7"),
    chess.WHITE: ("e2e4", "d2d4", "g1f3", "b1c3", "f1d3", "e1g1", "c1e3", "f1e1"),
}


def opening_bonuses(
    color: chess.Color, turn: int, opening_turns: int, bonus: float, queen_penalty: float,
    legal: set[chess.Move], queen_squares: set[int],
) -> dict[chess.Move | None, float]:  # fmt: skip
    """Centipawns to add to each candidate on every board during the first ``opening_turns`` turns:
    ``bonus`` for a legal move of the plan, minus ``queen_penalty`` for a queen move."""
    if turn > opening_turns:
        return {}
    bonuses: dict[chess.Move | None, float] = {}
    for text in PLANS[color]:
        move = chess.Move.from_uci(text)
        if move in legal:
            bonuses[move] = bonus
    if queen_penalty:
        for move in legal:
            if move.from_square in queen_squares:
                bonuses[move] = bonuses.get(move, 0.0) - queen_penalty
    return bonuses
