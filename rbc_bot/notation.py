"""How squares and moves are written in our logs, records and reports (one home for it)."""

from __future__ import annotations

import chess


def square_name(square: int | None) -> str | None:
    """``"e4"``, or None for no square (no capture, no sense)."""
    return None if square is None else chess.square_name(square)


def uci(move: chess.Move | None) -> str | None:
    """``"e2e4"``, or None for the pass."""
    return None if move is None else move.uci()
