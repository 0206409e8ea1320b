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

The held-out setting (``sense.decision_held_out``) was removed in session 51, measured worse here; the
script's code, and the code its figures (``held_out_senses.log``) are reproduced with, are at bot code
a863236 (``git worktree add DIR a863236``). ``benchmarks/sense_pickers.py`` measures the in-sample decision
sense on samples of any size against the window sense at the current code.
"""

from __future__ import annotations

import sys


def main() -> None:
    sys.exit(
        "held_out_senses.py: error: sense.decision_held_out was removed in session 51; this script is at "
        "bot code a863236 (git worktree add DIR a863236); benchmarks/sense_pickers.py has the other pickers"
    )


if __name__ == "__main__":
    main()
