"""Expansion slack: how often the belief tracker keeps the truth live, with and without slack.

Why: above its cap the tracker samples uniformly. Sampling right after the opponent's move (slack 1)
throws boards away before the sense has had a chance to rule most of them out; letting that one set
grow to cap x slack and sampling after the sense keeps more of the truth for the same number of boards
carried into the next turn. This replays the same games through both and prints the share of turns on
which the truth is still a live board after the sense (the board the move selector sees), and the
earliest-stash recoveries needed.

Games: reconchess's RandomBot (White) against AttackerBot, seeded, ``--turns`` full turns each; the
belief is re-simulated for RandomBot's side (its senses are random, so sets grow large) with
``rbc_bot.replay.resim.resimulate``, the same code ``analyze`` uses.

    python benchmarks/belief_slack.py                 # about 15 seconds
    python benchmarks/belief_slack.py --json          # the last line is one JSON object
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import chess
from reconchess import GameHistory, LocalGame, play_local_game
from reconchess.bots.attacker_bot import AttackerBot
from reconchess.bots.random_bot import RandomBot

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rbc_bot.replay.resim import resimulate


def measure(histories: list[GameHistory], cap: int, slack: int) -> dict[str, float]:
    live = turns = recoveries = 0
    for history in histories:
        side = resimulate(history, chess.WHITE, cap=cap, seed=0, expansion_slack=slack)
        live += sum(t.truth_after_sense for t in side.turns)
        turns += len(side.turns)
        recoveries += sum(t.recoveries for t in side.turns)
    return {"truth_live_after_sense": live / max(1, turns), "recoveries": recoveries, "turns": turns}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=40, help="games to replay (default: 40)")
    parser.add_argument("--turns", type=int, default=12, help="full turns per game (default: 12)")
    parser.add_argument("--cap", type=int, default=100, help="belief cap (default: 100)")
    parser.add_argument("--slack", type=int, default=20, help="slack to compare with 1 (default: 20)")
    parser.add_argument("--json", action="store_true", help="end with one JSON line")
    args = parser.parse_args()
    histories = []
    for seed in range(args.games):
        random.seed(seed)
        game = LocalGame(seconds_per_player=None, full_turn_limit=args.turns)
        _, _, history = play_local_game(RandomBot(), AttackerBot(), game=game)
        histories.append(history)
    baseline = measure(histories, args.cap, 1)
    slack = measure(histories, args.cap, args.slack)
    print(f"{args.games} games, {baseline['turns']} turns re-simulated at cap {args.cap}")
    for name, result in (("slack 1", baseline), (f"slack {args.slack}", slack)):
        print(
            f"  {name:>9}: truth live after the sense on {result['truth_live_after_sense']:6.1%} of turns, "
            f"{result['recoveries']} recoveries"
        )
    if args.json:
        print(json.dumps({"cap": args.cap, "slack": args.slack, "baseline": baseline, "with_slack": slack}))


if __name__ == "__main__":
    main()
