"""Our bets on the enemy king, judged on the true board: king-capture raids and quiet checks.

Usage: python benchmarks/raids.py RUN_DIR [RUN_DIR ...] [--early 12]
(the --out folders of `run_bot.py match` or `gauntlet`; games need their replay and our turn log)

Why: two rules of the move selector bet that the opponent has not seen our threat to its king. A king
capture is taken at once when it works on ``move.king_capture_share`` of the believed boards (each
board weighed by ``move.blunder_board_weight``), and a check without capture earns
``move.quiet_check_bonus`` on every board where it checks. Whether a bet is sound depends on the
opponent: TroutBot never looks for our pieces, StrangeFish does. This counts how the bets paid in the
games: the raids (a king capture taken at once on more than one believed board) that hit the king on
the true board and those that missed, early (before turn ``--early``) and late, with the material the
opponent's reply then won on the raid's square, and by the rule that chose the sense before the raid
(``sense.raid_share`` senses to settle the raid; the danger rule settles other things); and the quiet
checks (on the true board) after which the opponent's reply left its king capturable, and how often
we took it at once, overall and by where we stood by our own mean before the check (behind: at most
-``STANDING_CP``, ahead: at least +``STANDING_CP``): the odds a check wins at once are what
``move.quiet_check_odds`` assumes, and they may not be the same when we are losing.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import chess
from openings import recorded_games, require_match_folders
from reconchess import GameHistory

from rbc_bot.board_sample import PIECE_VALUES
from rbc_bot.replay.load import load_game


@dataclass
class Tally:
    games: int = 0
    without_log: int = 0  # games with a replay but without our turn log
    certain: int = 0  # king captures on a single believed board
    raids: Counter[tuple[str, str]] = field(default_factory=Counter)  # (early/late, hit/miss) -> raids
    queen_raids: Counter[tuple[str, str]] = field(default_factory=Counter)  # ... of them by our queen
    raids_by_sense: Counter[tuple[str, str]] = field(default_factory=Counter)  # (sense rule, hit/miss)
    raid_losses: Counter[str] = field(default_factory=Counter)  # early/late -> pawns won by the replies
    quiet_checks: Counter[str] = field(default_factory=Counter)  # by standing (see ``standing``)
    left_capturable: Counter[str] = field(default_factory=Counter)  # ... after which the reply left the
    # opponent's king capturable
    taken_at_once: Counter[str] = field(default_factory=Counter)  # ... and we took it on our next move


STANDING_CP = 300.0
STANDINGS = ("behind", "level", "ahead")


def standing(row: dict) -> str:
    """Where we stood by our own mean over the believed boards for the move we chose (turn log)."""
    chosen = [c for c in row.get("candidates") or [] if c["move"] == row.get("chosen_move")]
    if not chosen:
        return "unknown"
    mean = chosen[0]["mean"]
    return "behind" if mean <= -STANDING_CP else "ahead" if mean >= STANDING_CP else "level"


def tally_game(
    history: GameHistory, us: chess.Color, rows: dict[int, dict], early: int, tally: Tally
) -> None:
    """Add one game's raids and quiet checks to ``tally`` (``rows``: our turn log by 0-based turn)."""
    tally.games += 1
    for turn in history.turns(us):
        move = history.taken_move(turn) if history.has_move(turn) else None
        if move is None:
            continue
        board = history.truth_board_before_move(turn)
        row = rows.get(turn.turn_number, {})
        reply = turn.next
        replied = history.has_move(reply)
        if row.get("move_reason") == "king-capture":
            if row["belief"]["after_sense"][0] <= 1:
                tally.certain += 1
            else:
                phase = "early" if turn.turn_number < early else "late"
                hit = move.to_square == board.king(not us)
                tally.raids[phase, "hit" if hit else "miss"] += 1
                tally.raids_by_sense[row.get("sense_rule") or "none", "hit" if hit else "miss"] += 1
                if board.piece_type_at(move.from_square) == chess.QUEEN:
                    tally.queen_raids[phase, "hit" if hit else "miss"] += 1
                answer = history.taken_move(reply) if replied and not hit else None
                if answer is not None and answer.to_square == move.to_square:
                    tally.raid_losses[phase] += PIECE_VALUES[
                        board.piece_type_at(move.from_square) or chess.PAWN
                    ]
        if board.is_capture(move) or not board.gives_check(move):
            continue
        stood = standing(row)
        tally.quiet_checks[stood] += 1
        ours_next = reply.next
        if not (replied and history.has_move(ours_next)):
            continue
        after = history.truth_board_before_move(ours_next)
        king = after.king(not us)
        if king is not None and after.is_attacked_by(us, king):
            tally.left_capturable[stood] += 1
            taken = history.taken_move(ours_next)
            tally.taken_at_once[stood] += taken is not None and taken.to_square == king


def tally_runs(runs: list[Path], early: int) -> tuple[Tally, int]:
    """The tally over every game with its replay and our turn log, and how many games had no replay."""
    tally = Tally()
    games, missing = recorded_games(runs)
    for _, record, replay in games:
        game = load_game(replay)  # attaches the turn log beside the replay, aligned to 0-based turns
        us = chess.WHITE if record["a_color"] == "white" else chess.BLACK
        rows = {turn: row for (color, turn), row in game.turn_log.items() if color == us}
        if not rows:
            tally.without_log += 1
            continue
        tally_game(game.history, us, rows, early, tally)
    return tally, missing


def share(part: int, whole: int) -> str:
    return f" ({part / whole:.0%})" if whole else ""


def report(tally: Tally, early: int) -> list[str]:
    lines = [
        f"{tally.games} games with replay and turn log; king captures on one believed board: {tally.certain}"
    ]
    for phase, span in (("early", f"turns < {early}"), ("late", f"turns >= {early}")):
        hits, misses = tally.raids[phase, "hit"], tally.raids[phase, "miss"]
        queen, queen_misses = tally.queen_raids[phase, "hit"], tally.queen_raids[phase, "miss"]
        lines.append(
            f"raids on more than one believed board, {span}: {hits} hit of {hits + misses}"
            f"{share(hits, hits + misses)}, by our queen {queen} of {queen + queen_misses}"
            f"{share(queen, queen + queen_misses)}; the replies won {tally.raid_losses[phase]} pawns "
            "on the raid squares"
        )
    by_sense = []
    for rule in sorted({rule for rule, _ in tally.raids_by_sense}):
        hits, misses = tally.raids_by_sense[rule, "hit"], tally.raids_by_sense[rule, "miss"]
        by_sense.append(f"{rule} {hits} of {hits + misses}{share(hits, hits + misses)}")
    lines.append(
        "raids that hit, by the rule that chose that turn's sense: " + ("; ".join(by_sense) or "none")
    )
    checks, left, taken = (
        sum(c.values()) for c in (tally.quiet_checks, tally.left_capturable, tally.taken_at_once)
    )
    lines.append(
        f"quiet checks: {checks}; the reply left the king capturable after {left}{share(left, checks)}, "
        f"taken at once {taken}"
    )
    by_standing = [
        f"{stood} {tally.quiet_checks[stood]}: left {tally.left_capturable[stood]}, taken "
        f"{tally.taken_at_once[stood]}{share(tally.taken_at_once[stood], tally.quiet_checks[stood])}"
        for stood in (*STANDINGS, "unknown")
        if tally.quiet_checks[stood] or stood != "unknown"
    ]
    lines.append(f"quiet checks by our mean before them (+-{STANDING_CP:.0f} cp): " + "; ".join(by_standing))
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Our king-capture raids and quiet checks, on the true board."
    )
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    parser.add_argument("--early", type=int, default=12, help="raids before this turn (0-based) are early")
    args = parser.parse_args()
    require_match_folders("raids.py", args.runs)
    tally, no_replay = tally_runs(args.runs, args.early)
    if not tally.games:
        sys.exit(f"raids.py: error: no game with its replay and our turn log in {args.runs[0]}")
    for line in report(tally, args.early):
        print(line)
    left_out = no_replay + tally.without_log
    if left_out:
        print(f"left out: {left_out} games without their replay or our turn log (kept records: biased)")


if __name__ == "__main__":
    main()
