"""Which way of picking the sense serves the move best on the whole belief: the decision sense on a
sample, in sample or held out, or the window sense?

Usage: python held_out_senses.py SUITE.jsonl.gz [--min-boards 97] [--max-boards 400] [--positions 30]
       [--draws 10] [--nodes 1000] [--seed 50]

Why (session 50): the decision sense scores the candidates on a sample of the belief (48 boards) and
picks the centre whose groups of sampled boards would best serve the move; in beliefs over 150 boards
the window sense picks the centre leaving the fewest boards instead. When the sample is smaller than
the belief, a group of one or two sampled boards picks the move best on exactly them, so fine splits
look worth the most; ``sense.decision_held_out`` judges each sampled board by the move the rest of its
group would choose. The session's trial plays the decision sense on 96 boards up to 400.

For each position of a turn suite (``benchmarks/turn_screen.py extract``) whose kept boards are the
whole belief, between ``--min-boards`` and ``--max-boards`` of them: the candidates are proposed and
scored on every board (``rbc_bot.move.candidate_values``, single-threaded node-limited searches) and
weighed as the decision rule weighs them (the likely weights); each centre's worth on the whole belief
(``decision_values`` over all of it: the groups the move selector would then face) is the reference.
Each picker is charged its pick's shortfall from the best centre's reference worth, in points of
expected score per 100 decisions: the decision sense on ``--draws`` samples of 48 and of 96 boards, in
sample and held out (the likely weights from the sample's values, as the rule computes them), and the
window sense on the whole belief with the truth drawn by the same likely weights (the likely-window
sense draws them from depth-1 scores of 300 boards). Prints each picker's mean and its paired
difference from the default's pickers (positions as the unit) with a 95 % CI.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from reconchess.utilities import move_actions

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from turn_screen import TurnPosition, load_suite

from rbc_bot.belief_rows import decode
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.likely import best_candidate_weights
from rbc_bot.move import candidate_values
from rbc_bot.sense import INTERIOR, decision_square, decision_values, window_square
from rbc_bot.stats import paired_difference

BUDGET_SECONDS = 1e6  # node-limited searches: the budget only plans the depth, which nodes then replace
Picker = Callable[[np.ndarray, np.ndarray, np.random.Generator], int]  # rows, values, rng -> centre


def decision_picker(sample: int, held_out: bool) -> Picker:
    """The decision sense on ``sample`` boards drawn uniformly, in sample or held out."""

    def pick(rows: np.ndarray, values: np.ndarray, rng: np.random.Generator) -> int:
        drawn = rng.choice(len(rows), size=min(sample, len(rows)), replace=False)
        weights = best_candidate_weights(values[:, drawn])
        return decision_square(rows[drawn], values[:, drawn], weights=weights, held_out=held_out)

    return pick


def likely_window(rows: np.ndarray, values: np.ndarray, rng: np.random.Generator) -> int:
    """The window sense on every board, the truth drawn by the likely weights."""
    return window_square(rows, best_candidate_weights(values))


PICKERS: dict[str, tuple[Picker, bool]] = {  # name: (picker, whether it draws a sample: then picked often)
    "in sample 48": (decision_picker(48, False), True),
    "held out 48": (decision_picker(48, True), True),
    "in sample 96": (decision_picker(96, False), True),
    "held out 96": (decision_picker(96, True), True),
    "window": (likely_window, False),
}
BASES = ("in sample 48", "window")  # the default's pickers: up to 150 boards, and past them


def shortfalls(position: TurnPosition, bot: RbcBot, draws: int, rng: np.random.Generator) -> dict[str, float]:
    """Each picker's mean shortfall on one position (``draws`` picks each, or one if it draws no sample)."""
    rows = position.rows
    legal = set(move_actions(position.truth))
    boards = decode(rows, position.truth.turn)
    values = candidate_values(boards, legal, bot.scorer, bot.config.move, BUDGET_SECONDS, rng)
    reference = decision_values(rows, values, "mean", best_candidate_weights(values))
    lost = {}
    for name, (picker, drawing) in PICKERS.items():
        picks = [picker(rows, values, rng) for _ in range(draws if drawing else 1)]
        lost[name] = statistics.fmean(reference.max() - reference[INTERIOR.index(c)] for c in picks)
    return lost


def main() -> None:
    parser = argparse.ArgumentParser(description="Decision senses in sample, held out, and the window sense.")
    parser.add_argument("suite", type=Path, help="a turn suite (benchmarks/turn_screen.py extract)")
    parser.add_argument("--min-boards", type=int, default=97, help="positions from this many boards")
    parser.add_argument("--max-boards", type=int, default=400, help="positions up to this many boards")
    parser.add_argument("--positions", type=int, default=30, help="positions taken at most")
    parser.add_argument("--draws", type=int, default=10, help="samples drawn per position and picker")
    parser.add_argument("--nodes", type=int, default=1000, help="nodes a search")
    parser.add_argument("--seed", type=int, default=50)
    args = parser.parse_args()
    suite = [
        p
        for p in load_suite(args.suite)
        if p.believed == len(p.rows) and args.min_boards <= p.believed <= args.max_boards
    ][: args.positions]
    if not suite:
        sys.exit(f"held_out_senses.py: error: no position of {args.suite} holds its whole belief in range")
    fixed = ["engine.workers=1", "engine.deterministic=true", f"engine.nodes={args.nodes}"]
    bot = RbcBot(load_config(None, fixed))
    rng = np.random.default_rng(args.seed)
    rows = []
    try:
        bot.handle_game_start(suite[0].truth.turn, suite[0].truth.copy(), "nobody")  # its engines, once
        for position in suite:
            rows.append(shortfalls(position, bot, args.draws, rng))
            figures = ", ".join(f"{name} {100 * lost:.2f}" for name, lost in rows[-1].items())
            print(f"{position.game} turn {position.turn}: {position.believed} boards; {figures}", flush=True)
    finally:
        bot.close()
    print(f"{len(rows)} positions, shortfall per 100 decisions:")
    for name in PICKERS:
        against = []
        for base in (b for b in BASES if b != name):
            diff = paired_difference([100 * (row[name] - row[base]) for row in rows])
            against.append(f"minus {base} {diff.mean:+.2f} (95 % CI {diff.low:+.2f} .. {diff.high:+.2f})")
        print(f"  {name}: {statistics.fmean(100 * row[name] for row in rows):.2f}; {'; '.join(against)}")


if __name__ == "__main__":
    main()
