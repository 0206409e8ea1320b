"""Ad hoc: the danger sense on floor turns (belief > 1000, attacked share in (0, 10 %)) with a tolerance
relative to the attacked share: boards left, and on turns where the truth's king is attacked whether
the truth's group still mixes attacked and safe boards (the check not told apart)."""

import sys
from pathlib import Path

import numpy as np
from danger_senses import danger_turns
from turn_screen import load_suite

from rbc_bot.belief_rows import encode
from rbc_bot.board_sample import our_king_attacked
from rbc_bot.sense import danger_square, window_keys, window_square

suite = load_suite(Path(sys.argv[1]))
turns = danger_turns(suite, 1001, 0, (0.0, 0.1))
print(len(turns), "floor turns")
for r in (0.0, 0.1, 0.25, 0.5, "window"):
    left, shown, checks = [], 0, 0
    for position, attacked in turns:
        if r == "window":
            square = window_square(position.rows)
        else:
            square = danger_square(position.rows, attacked, 0.0, r * float(attacked.mean()))
        seen = window_keys(position.rows, square) == window_keys(encode(position.truth)[None, :], square)[0]
        left.append(float(seen.mean()))
        if our_king_attacked(position.truth):
            checks += 1
            group = attacked[seen]
            shown += not (group.any() and not group.all())
    print(
        f"relative tolerance {r}: boards left median {np.median(left):.3f}"
        f" mean {np.mean(left):.3f}; truth in check on {checks}, told apart on {shown}"
    )
