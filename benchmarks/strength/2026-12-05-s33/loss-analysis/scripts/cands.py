# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501
"""Print a turn's logged candidates. usage: cands.py NAME TURN [TURN...]"""

import sys

from losses import games, played

name = sys.argv[1]
tag, seed, col = name[:3], int(name[4:8]), name[8]
r = games()[(tag, seed, col)]
_, _, log = played(r)
for t in map(int, sys.argv[2:]):
    lg = log[t]
    print(
        f"{name} t{t} bel {lg['belief']} rule {lg['sense_rule']} sense {lg['sense_square']} ds {lg.get('danger_share')} scored {lg['boards_scored']} depth {lg['depth']} threatened {lg.get('threatened')} chosen {lg['chosen_move']} reason {lg['move_reason']}"
    )
    for c in lg["candidates"][:8]:
        print("    ", c)
