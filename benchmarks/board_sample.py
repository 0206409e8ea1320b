"""What the threat tier costs: splitting the believed boards with and without ``check_threat``.

Why: ``move.threat_share`` tests every board where our king is not attacked for a check the opponent
could give at once, on top of the attack test every board already gets (``Tiers.of``). The move
selector does this on the whole belief each turn, up to the belief cap, so its cost per board is paid
on thousands of boards. The figure is the split's time with the threat test as a ratio of its time
without, on the same boards in the same run (median of ``--repeats`` passes, taken in turn).

    python benchmarks/board_sample.py            # ~10 s
    python benchmarks/board_sample.py --boards 2000 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import chess

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine import make_boards  # benchmarks/engine.py: boards of seeded random games

from rbc_bot.board_sample import Tiers


def seconds_per_board(boards: list[chess.Board], split_threats: bool) -> float:
    started = time.perf_counter()
    Tiers.of(boards, split_threats)
    return (time.perf_counter() - started) / len(boards)


def main() -> None:
    parser = argparse.ArgumentParser(description="The threat tier's cost per believed board.")
    parser.add_argument("--boards", type=int, default=5000, help="boards split per pass")
    parser.add_argument("--repeats", type=int, default=7, help="passes of each split (median)")
    args = parser.parse_args()
    if args.boards < 1 or args.repeats < 1:
        sys.exit("board_sample.py: error: --boards and --repeats must be at least 1")
    boards = make_boards(args.boards, seed=1)
    Tiers.of(boards, split_threats=True)  # warm up: python-chess builds its attack tables lazily
    plain: list[float] = []
    threats: list[float] = []
    for _ in range(args.repeats):
        plain.append(seconds_per_board(boards, split_threats=False))
        threats.append(seconds_per_board(boards, split_threats=True))
    base, with_threats = statistics.median(plain), statistics.median(threats)
    tiers = Tiers.of(boards, split_threats=True)
    print(
        f"{len(boards)} boards: attacked {len(tiers.attacked)}, threatened {len(tiers.threatened)}, "
        f"calm {len(tiers.calm)}"
    )
    print(f"split without threats: {base * 1e6:.1f} us a board (baseline)")
    print(
        f"split with threats:    {with_threats * 1e6:.1f} us a board: {with_threats / base:.2f}x the baseline"
    )


if __name__ == "__main__":
    main()
