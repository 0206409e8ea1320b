"""Which sense picker serves the move best on the whole belief: the decision sense on samples of
several sizes, or the window sense?

Usage: python benchmarks/sense_pickers.py SUITE.jsonl.gz [--samples 48 96 192] [--min-boards 151]
       [--max-boards 400] [--positions 20] [--draws 10] [--nodes 500] [--total-nodes 0] [--seed 51]

Why: in beliefs of up to ``sense.decision_max_boards`` the decision sense scores the move's candidates
on a sample of ``sense.decision_boards`` boards and picks the centre whose groups of sampled boards
would best serve the move; past that size the likely-window sense picks the centre leaving the fewest
boards (each weighed by how likely it is) and asks nothing of the engine. How far up the decision
sense should reach, and on how large a sample, is what this measures, with no clock in the way.

For each of ``--positions`` positions drawn (by ``--seed``) from a turn suite (``benchmarks/turn_screen.py
extract``) whose kept boards are the whole belief, between ``--min-boards`` and ``--max-boards`` of
them: the candidates are proposed and scored on every board (``rbc_bot.move.candidate_values``,
single-threaded searches of ``--nodes`` nodes) and weighed as the decision rule weighs them (the likely
weights); each centre's worth on the whole belief (``decision_values`` over all of it: the groups the
move selector would then face) is the reference. Each picker is charged its pick's shortfall from the
best centre's reference worth, in points of expected score per 100 decisions: the decision sense on
``--draws`` uniform samples of each ``--samples`` size (its likely weights from the sample's values, as
the rule computes them), and the window sense on the whole belief (its likely weights from the whole
belief's values; the bot draws them from depth-1 scores of 300 boards). With ``--total-nodes``, each
sample size N instead proposes and scores its own candidates on its sample at TOTAL // N nodes a
search, as the bot's fixed sense budget makes a larger sample search shallower; the reference stays
at ``--nodes`` on the whole belief. Prints each picker's mean and its paired difference from the
window sense and from the smallest sample (positions as the unit) with a 95 % CI. Node-limited: the
figures do not depend on the machine's load.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import chess
import numpy as np
from reconchess.utilities import move_actions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from turn_screen import TurnPosition, load_suite

from rbc_bot.belief_rows import decode
from rbc_bot.bot import RbcBot
from rbc_bot.config import load_config
from rbc_bot.likely import best_candidate_weights
from rbc_bot.move import candidate_values
from rbc_bot.sense import INTERIOR, decision_square, decision_values, window_square
from rbc_bot.stats import paired_difference

BUDGET_SECONDS = 1e6  # node-limited searches: the budget only plans the depth, which nodes then replace
WINDOW = "window"


@dataclass
class Belief:
    """One position's whole belief: its rows, their boards, our requests, and the candidates' expected
    scores on every board at the reference node limit (candidates x boards)."""

    rows: np.ndarray
    boards: list[chess.Board]
    legal: set[chess.Move]
    values: np.ndarray


Picker = Callable[[Belief, np.random.Generator], int]  # the belief, the rng -> centre


def node_bot(nodes: int) -> RbcBot:
    """A bot whose searches are single-threaded and stop at ``nodes`` nodes (its engine started)."""
    fixed = ["engine.workers=1", "engine.deterministic=true", f"engine.nodes={nodes}"]
    bot = RbcBot(load_config(None, fixed))
    bot.handle_game_start(chess.WHITE, chess.Board(), "nobody")
    return bot


def decision_picker(sample: int, bot: RbcBot | None = None) -> Picker:
    """The decision sense on ``sample`` boards drawn uniformly, on the reference values, or with ``bot``
    on values of its own: its candidates proposed and scored on the sample at its node limit."""

    def pick(belief: Belief, rng: np.random.Generator) -> int:
        drawn = rng.choice(len(belief.rows), size=min(sample, len(belief.rows)), replace=False)
        if bot is None:
            values = belief.values[:, drawn]
        else:
            boards = [belief.boards[i] for i in drawn]
            values = candidate_values(boards, belief.legal, bot.scorer, bot.config.move, BUDGET_SECONDS, rng)
        return decision_square(belief.rows[drawn], values, weights=best_candidate_weights(values))

    return pick


def likely_window(belief: Belief, rng: np.random.Generator) -> int:
    """The window sense on every board, each weighed by the likely weights."""
    return window_square(belief.rows, best_candidate_weights(belief.values))


def shortfalls(
    position: TurnPosition,
    bot: RbcBot,
    chosen: dict[str, tuple[Picker, bool]],
    draws: int,
    rng: np.random.Generator,
) -> dict[str, float]:
    """Each picker's mean shortfall on one position (``draws`` picks each, or one if it draws no
    sample)."""
    rows = position.rows
    legal = set(move_actions(position.truth))
    boards = decode(rows, position.truth.turn)
    values = candidate_values(boards, legal, bot.scorer, bot.config.move, BUDGET_SECONDS, rng)
    belief = Belief(rows, boards, legal, values)
    reference = decision_values(rows, values, "mean", best_candidate_weights(values))
    lost = {}
    for name, (picker, drawing) in chosen.items():
        picks = [picker(belief, rng) for _ in range(draws if drawing else 1)]
        lost[name] = statistics.fmean(reference.max() - reference[INTERIOR.index(c)] for c in picks)
    return lost


def summary(rows: list[dict[str, float]], bases: tuple[str, ...]) -> list[str]:
    """Each picker's mean shortfall per 100 decisions and its paired difference from each base."""
    lines = [f"{len(rows)} positions, shortfall per 100 decisions:"]
    for name in rows[0]:
        against = []
        for base in (b for b in bases if b != name):
            diff = paired_difference([100 * (row[name] - row[base]) for row in rows])
            against.append(f"minus {base} {diff.mean:+.2f} (95 % CI {diff.low:+.2f} .. {diff.high:+.2f})")
        lines.append(
            f"  {name}: {statistics.fmean(100 * row[name] for row in rows):.2f}; {'; '.join(against)}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(
        description="Decision senses on samples of several sizes against the window sense."
    )
    parser.add_argument("suite", type=Path, help="a turn suite (benchmarks/turn_screen.py extract)")
    parser.add_argument("--samples", type=int, nargs="+", default=[48, 96, 192], help="decision sample sizes")
    parser.add_argument("--min-boards", type=int, default=151, help="positions from this many boards")
    parser.add_argument("--max-boards", type=int, default=400, help="positions up to this many boards")
    parser.add_argument("--positions", type=int, default=20, help="positions drawn at most")
    parser.add_argument("--draws", type=int, default=10, help="samples drawn per position and picker")
    parser.add_argument("--nodes", type=int, default=500, help="nodes a search (the reference values)")
    parser.add_argument(
        "--total-nodes",
        type=int,
        default=0,
        help="each sample size N scores its own sample at TOTAL // N nodes a search (the same time for "
        "every size); 0: every picker reads the reference values",
    )
    parser.add_argument("--seed", type=int, default=51)
    args = parser.parse_args()
    if not args.suite.is_file():
        sys.exit(f"sense_pickers.py: error: no suite at {args.suite}")
    if min(args.samples) < 1 or min(args.positions, args.draws, args.nodes) < 1 or args.total_nodes < 0:
        sys.exit(
            "sense_pickers.py: error: --samples, --positions, --draws and --nodes must be positive, "
            "--total-nodes not negative"
        )
    rng = np.random.default_rng(args.seed)
    held = [
        p
        for p in load_suite(args.suite)
        if p.believed == len(p.rows) and args.min_boards <= p.believed <= args.max_boards
    ]
    if not held:
        sys.exit(f"sense_pickers.py: error: no position of {args.suite} holds its whole belief in range")
    suite = [
        held[i] for i in sorted(rng.choice(len(held), size=min(args.positions, len(held)), replace=False))
    ]
    samples = sorted(set(args.samples))
    bots: list[RbcBot] = []
    rows = []
    try:
        bots.append(node_bot(args.nodes))
        own = {n: node_bot(max(1, args.total_nodes // n)) for n in samples} if args.total_nodes else {}
        bots += own.values()
        chosen: dict[str, tuple[Picker, bool]] = {
            f"decision {n}": (decision_picker(n, own.get(n)), True) for n in samples
        }
        chosen[WINDOW] = (likely_window, False)
        for position in suite:
            rows.append(shortfalls(position, bots[0], chosen, args.draws, rng))
            figures = ", ".join(f"{name} {100 * lost:.2f}" for name, lost in rows[-1].items())
            print(f"{position.game} turn {position.turn}: {position.believed} boards; {figures}", flush=True)
    finally:
        for bot in bots:
            bot.close()
    print("\n".join(summary(rows, (WINDOW, f"decision {min(args.samples)}"))))


if __name__ == "__main__":
    main()
