# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501
"""Ad hoc: on danger turns of large beliefs with a rare threat, how much more the danger centre leaves
than the window sense, and whether it tells the truth's threat apart."""

import sys

import numpy as np

sys.path.insert(0, "/work/dev-33/benchmarks")
from danger_senses import danger_turns
from turn_screen import load_suite

from rbc_bot.belief_rows import encode
from rbc_bot.sense import danger_square, expected_survivors, survivors_at, window_keys

for suite in sys.argv[1:]:
    turns = danger_turns(load_suite(suite), 1001, 0, (0.0, 0.1))
    print(suite, len(turns), "turns")
    rows_out = []
    for pos, attacked in turns:
        rows = pos.rows
        surv = expected_survivors(rows)
        wmin = float(surv.min())
        for tol in (0.0, 0.01):
            sq = danger_square(rows, attacked, 0.0, tol)
            ratio = survivors_at(rows, sq) / wmin
            seen = window_keys(rows, sq) == window_keys(encode(pos.truth)[None, :], sq)[0]
            g = attacked[seen]
            mixed = bool(g.any() and not g.all())
            truth_att = bool(attacked[seen].all()) if seen.any() else False
            rows_out.append((tol, ratio, mixed, truth_att, float(attacked.mean())))
    a = np.array(rows_out)
    for tol in (0.0, 0.01):
        r = a[a[:, 0] == tol]
        for cap in (1.25, 1.5, 2, 3, 1e9):
            fire = r[:, 1] <= cap
            print(
                f" tol {tol} cap {cap:g}: fires {fire.sum()}/{len(r)}; truth attacked among fired {int(r[fire, 3].sum())} (all: {int(r[:, 3].sum())}); mixed among fired {int(r[fire, 2].sum())}"
            )
