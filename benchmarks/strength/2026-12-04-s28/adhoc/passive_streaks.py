"""How long the passing-opponent watch survives in recorded games, and whether it holds the truth.

Usage: python passive_streaks.py RUN_DIR... [--max-boards N] [--min-senses K]
Per game: the longest run of senses the watch survived, the turns on which it held (>= K senses, on
at most 20 boards) and on how many of those the true board was among its boards and the opponent had
in fact passed since the watch began.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import chess

from rbc_bot.belief import BeliefTracker, encode
from rbc_bot.passive import PassiveWatch
from rbc_bot.replay.load import load_game, turns_of

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from screening import game_files


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--max-boards", type=int, default=1000)
    parser.add_argument("--min-senses", type=int, default=6)
    parser.add_argument("--hold-boards", type=int, default=20)
    args = parser.parse_args()
    for path in game_files(args.runs):
        game = load_game(path)
        color = game.our_color
        history = game.history
        tracker = BeliefTracker(color, cap=20_000, seed=0)
        watch = PassiveWatch(color, args.max_boards)
        longest = held = true_held = 0
        first = None
        try:
            for turn in turns_of(history, color):
                first_turn = history.is_first_turn(turn)
                capture = None if first_turn else history.capture_square(turn.previous)
                if tracker.to_move != color:
                    watch.on_opponent_move(capture, tracker.rows)
                tracker.on_opponent_move(capture)
                square = history.sense(turn)
                result = history.sense_result(turn)
                tracker.on_sense(square, result)
                watch.on_sense(square, result)
                longest = max(longest, watch.senses_survived)
                if watch.holds(args.min_senses, args.hold_boards) is not None:
                    held += 1
                    first = first or turn.turn_number
                    truth = encode(chess.Board(history.truth_fen_before_move(turn)))
                    if history.has_move(turn) and (watch.rows == truth).all(axis=1).any():
                        true_held += 1
                if not history.has_move(turn):
                    break
                requested, taken, cap = history.move_result(turn)
                tracker.on_own_move(requested, taken, cap)
                watch.on_own_move(requested, taken, cap)
        except Exception as exc:  # a record the tracker cannot follow: say so, go on
            print(f"{path.name}: stopped: {exc}", file=sys.stderr)
        print(
            f"{path.name[:70]:70} {game.winner_text if hasattr(game, 'winner_text') else ''} "
            f"longest {longest:3d} held {held:3d} truth {true_held:3d} first {first}"
        )


if __name__ == "__main__":
    main()
