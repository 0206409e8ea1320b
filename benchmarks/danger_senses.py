"""What the danger sense leaves behind at several tolerances, on a turn suite's danger turns: no engine.

Usage:
  python benchmarks/danger_senses.py SUITE.jsonl.gz [--tolerance 0 0.01 0.05] [--min-believed 101]
      [--max-believed 1000] [--share-below 0.1 | --share-from 0.1]

Why: the danger rule (``rbc_bot.sense.danger_square``) picks the centre that best tells the boards where
our king is attacked from the others, ties broken by boards left. On a rare threat that can keep most
of the belief alive. ``sense.danger_tolerance`` trades a little of the threat left mixed for fewer
boards. This script shows the trade on recorded positions before any game is spent on it: per
tolerance, the share of the sampled boards that agree with the true board's window (boards left after
the sense), and on how many turns the true board's group still mixes attacked and safe boards (the
threat not told apart). The rule runs as in the bot, on the suite's sample (at most 2,000 boards, as
the bot's own sample for this rule).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from turn_screen import TurnPosition, load_suite

from rbc_bot.belief_rows import decode, encode
from rbc_bot.board_sample import our_king_attacked
from rbc_bot.sense import danger_square, window_keys


def after_sense(position: TurnPosition, attacked: np.ndarray, tolerance: float) -> tuple[int, float, bool]:
    """The danger sense's centre at ``tolerance``, the share of the sampled boards it leaves, and
    whether the true board's group mixes attacked and safe boards."""
    square = danger_square(position.rows, attacked, 0.0, tolerance)
    if square is None:
        raise ValueError("the danger rule needs attacked and safe boards")
    seen = window_keys(position.rows, square) == window_keys(encode(position.truth)[None, :], square)[0]
    group = attacked[seen]
    return square, float(seen.mean()), bool(group.any() and not group.all())


def danger_turns(
    suite: list[TurnPosition], min_believed: int, max_believed: int, share: tuple[float, float]
) -> list[tuple[TurnPosition, np.ndarray]]:
    """The positions of the belief size asked for whose attacked share lies in [share[0], share[1]),
    each with which of its boards attack our king (all attacked or none: not a danger turn)."""
    turns = []
    for position in suite:
        if not min_believed <= position.believed <= (max_believed or position.believed):
            continue
        attacked = np.array([our_king_attacked(b) for b in decode(position.rows, position.truth.turn)])
        if attacked.any() and not attacked.all() and share[0] <= attacked.mean() < share[1]:
            turns.append((position, attacked))
    return turns


def report(turns: list[tuple[TurnPosition, np.ndarray]], tolerances: list[float]) -> list[str]:
    """One line per tolerance: boards left (median and mean share), turns where the truth's group is
    mixed, turns whose centre differs from the first tolerance's."""
    lines = [f"{len(turns)} danger turns"]
    first: list[int] = []
    for tolerance in tolerances:
        outcomes = [after_sense(position, attacked, tolerance) for position, attacked in turns]
        centres = [square for square, _, _ in outcomes]
        first = first or centres
        left = np.array([share for _, share, _ in outcomes]) if outcomes else np.zeros(1)
        mixed = sum(mixed for _, _, mixed in outcomes)
        moved = sum(a != b for a, b in zip(centres, first, strict=True))
        lines.append(
            f"tolerance {tolerance:g}: boards left median {np.median(left):.1%}, mean {left.mean():.1%};"
            f" truth's group mixed on {mixed}; centre changed on {moved}"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("suite", type=Path)
    parser.add_argument("--tolerance", type=float, nargs="+", default=[0.0, 0.01, 0.02, 0.05, 0.1])
    parser.add_argument("--min-believed", type=int, default=1)
    parser.add_argument("--max-believed", type=int, default=0, help="0: any")
    share = parser.add_mutually_exclusive_group()
    share.add_argument("--share-below", type=float, help="only turns with fewer attacked boards")
    share.add_argument("--share-from", type=float, help="only turns with at least this share attacked")
    args = parser.parse_args()
    try:
        if any(not 0.0 <= t <= 1.0 for t in args.tolerance):
            raise ValueError("--tolerance values must be in [0, 1]")
        bounds = (args.share_from or 0.0, args.share_below if args.share_below is not None else 1.01)
        turns = danger_turns(load_suite(args.suite), args.min_believed, args.max_believed, bounds)
    except (OSError, ValueError) as exc:
        print(f"danger_senses.py: error: {exc}", file=sys.stderr)
        raise SystemExit(1) from None
    print("\n".join(report(turns, args.tolerance)))


if __name__ == "__main__":
    main()
