"""The decisive moment of a game: the turn where it was lost (or won), told in plain words.

Why: a lost game has many bad moves; the one a user should study is the point of no return. For the
losing side that is its first mistake after which it never again stood better than -``BLUNDER_CP``
on the true board (else its costliest mistake). When only the winner was analysed, it is the turn from
which the winner stood at +``BLUNDER_CP`` or better to the end: turned by the opponent's move before
it (``opponent_error``) or by the winner's own move (``winning_move``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import chess

from rbc_bot.engine import MATE_SCORE
from rbc_bot.replay.judge import BLUNDER_CP, LOSS_CLIP
from rbc_bot.replay.mistakes import MoveScore

KIND_WORDS = {
    "blunder": "a blunder: bad on most of the boards it believed possible",
    "gamble": "a gamble that failed: good on most of the boards it believed, bad on the true one",
    "unseen_threat": "an unseen threat: the true board was a rare one in its belief",
    "no_good_move": "no good move: bad on most of the boards it believed, as was every other move tried",
    None: "a mistake (no belief to judge it against)",
}


def decisive(
    scores: list[MoveScore],
    winner: chess.Color | None,
    sides: list[chess.Color],
    sizes: Mapping[tuple[str, int], int] | None = None,
    reason: str | None = None,
) -> dict[str, Any] | None:
    """``{turn, color, kind, text}`` for a decided game whose loser or winner was judged, else None.
    ``sizes``: believed boards per (colour name, turn), for the text; ``reason``: how the game ended."""
    if winner is None:
        return None
    sizes = sizes or {}
    loser = not winner
    mine = [s for s in scores if s.color == chess.COLOR_NAMES[loser]]
    if loser in sides:
        pick = turning_mistake(mine)
        if pick is not None:
            return {
                "turn": pick.turn,
                "color": pick.color,
                "kind": pick.kind,
                "text": loss_text(pick, sizes.get((pick.color, pick.turn))),
            }
    found = (
        winning_turn([s for s in scores if s.color == chess.COLOR_NAMES[winner]]) if winner in sides else None
    )
    if found is None and loser in sides and mine:
        how = f" ({reason.lower().replace('_', ' ')})" if reason else ""
        text = f"{mine[-1].color.capitalize()} lost{how} with no move judged a mistake on the true board."
        found = {"turn": mine[-1].turn, "color": mine[-1].color, "kind": None, "text": text}
    return found


def turning_mistake(mine: list[MoveScore]) -> MoveScore | None:
    """The first mistake after which the mover never stood better than -BLUNDER_CP again, else the
    costliest mistake, else None."""
    mistakes = [i for i, s in enumerate(mine) if s.is_mistake]
    for i in mistakes:
        later = [s.eval_before for s in mine[i + 1 :]]
        if mine[i].eval_after <= -BLUNDER_CP and all(e <= -BLUNDER_CP for e in later):
            return mine[i]
    if not mistakes:
        return None
    return max((mine[i] for i in mistakes), key=lambda s: min(s.cp_loss, LOSS_CLIP))


def _move_words(s: MoveScore) -> str:
    asked = "a pass" if s.requested == "pass" else s.requested
    if s.played != s.requested:
        return f"asked for {asked}, which was played as {'a pass' if s.played == 'pass' else s.played}"
    return f"played {asked}"


def _truth_words(s: MoveScore) -> str:
    best = f" (best: {s.best})" if s.best and s.best != s.played else ""
    if "king left capturable" in s.tags:
        return f"it left the king capturable{best}"
    if "king capture missed" in s.tags:
        share = s.belief.king_capturable_share if s.belief else None
        where = f", a capture possible on {share:.0%} of the boards it believed" if share else ""
        return f"it missed a capture of the enemy king{best}{where}"
    if s.eval_after <= -MATE_SCORE / 2 < s.eval_before:
        return f"it allowed a forced mate{best}"
    return f"it lost {min(s.cp_loss, LOSS_CLIP * 100):,.0f} cp{best}"


def loss_text(s: MoveScore, size: int | None) -> str:
    head = (
        f"{s.color.capitalize()} lost the game at turn {s.turn}: it {_move_words(s)}, {KIND_WORDS[s.kind]}."
    )
    b = s.belief
    if b is None:
        return f"{head} On the true board {_truth_words(s)}."
    judged = f"all {b.boards} believed boards" if size == b.boards else f"{b.boards} believed boards judged"
    of = f" of {size:,}" if size and size != b.boards else ""
    weighed = ", each weighed by how likely the opponent's play made it" if b.weights == "likely" else ""
    believed = (
        f"On {judged}{of}{weighed}, the move lost {b.expected_loss:,.0f} cp on average against the best move "
        f"there, and {BLUNDER_CP} cp or more (or the king) on {b.hang_share:.0%} of them"
    )
    if b.alternative is not None and b.alternative_loss is not None:
        believed += (
            f" (asked for instead, {b.alternative} lost {b.alternative_loss:,.0f} cp on average there)"
        )
    return f"{head} {believed}; on the true board {_truth_words(s)}."


def winning_turn(mine: list[MoveScore]) -> dict[str, Any] | None:
    """The winner's turn from which it stood at +BLUNDER_CP or better to the end of the game."""
    if not mine:
        return None
    start = len(mine) - 1
    if mine[start].eval_before >= BLUNDER_CP:
        while start > 0 and mine[start - 1].eval_before >= BLUNDER_CP:
            start -= 1
        if start == 0 or mine[start - 1].eval_after < BLUNDER_CP:
            s = mine[start]
            # White moves first in a turn: Black's move before White's turn t is its turn t - 1.
            other, other_turn = ("black", s.turn - 1) if s.color == "white" else ("white", s.turn)
            if other_turn < 0:  # White's first turn: the game began from a position (``play --fen``)
                how = f"the game began at {_cp(s.eval_before)} for white"
            else:
                how = (
                    f"{other}'s move at turn {other_turn} turned the true board to "
                    f"{_cp(s.eval_before)} for {s.color}"
                )
            text = (
                f"{s.color.capitalize()} won the game at turn {s.turn}: {how}, "
                f"and {s.color} {_move_words(s)}."
            )
            return {"turn": s.turn, "color": s.color, "kind": "opponent_error", "text": text}
        start -= 1
    s = mine[start]
    text = (
        f"{s.color.capitalize()} won the game at turn {s.turn}: it {_move_words(s)}, after which it stood "
        f"at {_cp(s.eval_after)}."
    )
    return {"turn": s.turn, "color": s.color, "kind": "winning_move", "text": text}


def _cp(value: float) -> str:
    if value >= LOSS_CLIP * 20:
        return "a won king capture"
    return f"{value:+,.0f} cp"
