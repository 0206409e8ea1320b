# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501
"""Every turn our move was taken for its king capture (move_reason king-capture), both rows, index < 36:
hit (the game ended), or miss, and then whether the reply took the piece that moved, and its value."""

import sys
from collections import defaultdict

sys.path.insert(0, "scripts")
from losses import VAL, games, played

tot = defaultdict(lambda: defaultdict(int))
for k, r in sorted(games().items()):
    color, h, log = played(r)
    for t in h.turns(color):
        lg = log.get(t.turn_number + 1)
        if not lg or lg.get("move_reason") != "king-capture" or not h.has_move(t):
            continue
        after = h.truth_board_after_move(t)
        g = tot[k[0]]
        g["raids"] += 1
        if after.king(not color) is None:
            g["hit"] += 1
            continue
        mv = h.taken_move(t)
        nxt = t.next
        lost = 0
        if mv is not None and h.has_move(nxt) and h.capture_square(nxt) == mv.to_square:
            lost = VAL[after.piece_type_at(mv.to_square)]
        g["miss"] += 1
        if lost:
            g["miss_lost"] += 1
            g["miss_lost_value"] += lost
        print(
            f"{k[0]}-{k[1]}{k[2]} {r['res']} t{t.turn_number + 1} bel {lg['belief']['after_sense'][0]} miss {mv} lost {lost}"
        )
for k, g in tot.items():
    print(k, dict(g))
