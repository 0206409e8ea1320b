"""How much would ``move.probe_cp`` pay the moves the bot weighed, on recorded games?

Usage: python probe_sizes.py GAME.json ... [--boards 200] [--probe-cp 33]

Why (session 47): ``move.probe_cp`` pays a candidate for the share of the believed boards its answer
is expected to rule out. Before a match, this says on which turns the payment is large enough to matter
and how it compares between the move chosen and the other candidates of the turn log. Each game is
re-simulated from our side's observations (``rbc_bot.replay.resim``); after each sense, the turn log's
candidates are revised on a uniform sample of the believed boards and priced as the move would price
them (at most 3,000 boards believed). No engine. Printed, by belief size: the chosen move's payment,
the largest among the candidates, and how often the largest beats the chosen one's by 20 cp or more.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import chess
import numpy as np
from reconchess import Turn

from rbc_bot.belief import BeliefTracker
from rbc_bot.bot import CHOICE_SAMPLE  # the move sees this many believed boards at most
from rbc_bot.probing import outcome_code, probe_bonuses
from rbc_bot.replay.load import load_game
from rbc_bot.replay.resim import resimulate
from rbc_bot.rules import revise


def turn_candidates(log_path: Path) -> dict[int, list[chess.Move | None]]:
    """Each turn's candidates in the turn log, and the move chosen first among them."""
    out = {}
    for line in log_path.read_text().splitlines():
        record = json.loads(line)
        moves = [c["move"] for c in record.get("candidates", [])]
        chosen = record.get("chosen_move")
        ordered = [chosen] + [m for m in moves if m != chosen]
        out[record["turn"]] = [chess.Move.from_uci(m) if m else None for m in ordered]
    return out


def price(tracker: BeliefTracker, moves: list[chess.Move | None], k: int, probe_cp: float) -> list[float]:
    boards = tracker.sample(k, np.random.default_rng(0))
    outcomes = np.array([[outcome_code(*revise(b, m)) for b in boards] for m in moves], dtype=np.int64)
    believed = min(tracker.live_size, CHOICE_SAMPLE)
    bonuses = probe_bonuses(moves, outcomes, np.ones(len(boards)), believed, probe_cp)
    return [bonuses[m] for m in moves]


def game_prices(path: Path, k: int, probe_cp: float) -> list[tuple[int, list[float]]]:
    """(believed boards, each candidate's payment, the chosen first) per move decision of ours."""
    game = load_game(path)
    log_path = Path(f"{path}.turns.jsonl")
    if game.our_color is None or not log_path.exists():
        return []
    candidates = turn_candidates(log_path)
    found: list[tuple[int, list[float]]] = []

    def observe(turn: Turn, stage: str, tracker: BeliefTracker) -> None:
        moves = candidates.get(turn.turn_number + 1, [])  # the bot counts its turns from 1
        if stage == "sense" and len(moves) > 1 and tracker.live_size > 1:
            found.append((tracker.live_size, price(tracker, moves, k, probe_cp)))

    resimulate(game.history, game.our_color, observe=observe)
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("games", type=Path, nargs="+")
    parser.add_argument("--boards", type=int, default=200)
    parser.add_argument("--probe-cp", type=float, default=33.0)
    args = parser.parse_args()
    groups: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for path in args.games:
        for size, prices in game_prices(path, args.boards, args.probe_cp):
            group = "2-100" if size <= 100 else "101-1000" if size <= 1000 else ">1000"
            for g in (group, "all"):
                groups[g].append((prices[0], max(prices)))
    for group in ("2-100", "101-1000", ">1000", "all"):
        if not groups[group]:
            continue
        chosen, best = np.array(groups[group]).T
        print(
            f"{group:>9}: {len(chosen):5d} turns; chosen move paid median {np.median(chosen):5.1f} cp "
            f"(p90 {np.percentile(chosen, 90):5.1f}), the most paid median {np.median(best):5.1f} "
            f"(p90 {np.percentile(best, 90):5.1f}); the most paid beats the chosen by >= 20 cp on "
            f"{np.mean(best - chosen >= 20):.0%}"
        )


if __name__ == "__main__":
    main()
