# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501
"""Turns where the chosen move is not the candidate with the best worst board (what the old `min`
ranking would pick, up to its tie rules), by row: how often, by how much the worst drops, and how often
the opponent's reply then took a piece worth >= 3 (true board). Also lists, for the loss games, every
such turn with worst drop >= 300 cp. Engine-free; index < 36."""

import sys
from collections import defaultdict

sys.path.insert(0, "scripts")
from losses import VAL, games, played

agg = defaultdict(lambda: defaultdict(int))
detail = []
for k, r in sorted(games().items()):
    color, h, log = played(r)
    for t in h.turns(color):
        lg = log.get(t.turn_number + 1)
        if not lg or len(lg.get("candidates", [])) < 2 or lg.get("move_reason") != "best-worst":
            continue
        cands = [c for c in lg["candidates"] if c["worst"] is not None]
        ch = next((c for c in cands if c["move"] == lg["chosen_move"]), None)
        if ch is None:
            continue
        best = max(cands, key=lambda c: (c["worst"], c["mean"]))
        nxt = t.next
        lost = 0
        if h.has_move(nxt) and h.capture_square(nxt) is not None:
            p = h.truth_board_before_move(nxt).piece_at(h.capture_square(nxt))
            lost = VAL[p.piece_type] if p else 0
        drop = best["worst"] - ch["worst"]
        g = agg[(k[0], r["res"])]
        g["turns"] += 1
        g["loss3"] += lost >= 3
        if lg["belief"]["after_sense"][0] > 1:
            g["multi"] += 1
            g["multi_loss3"] += lost >= 3
        if drop >= 300:
            g["div300"] += 1
            g["div300_loss3"] += lost >= 3
            if r["res"] == "L":
                detail.append(
                    f"{k[0]}-{k[1]}{k[2]} t{t.turn_number + 1} bel {lg['belief']['after_sense'][0]} chose {ch['move']} w {ch['worst']} m {ch['mean']} | best-worst {best['move']} w {best['worst']} m {best['mean']} | reply took {lost}"
                )
        elif drop > 0:
            g["div1_299"] += 1
            g["div1_299_loss3"] += lost >= 3
for key in sorted(agg):
    g = agg[key]
    print(key, dict(g))
print()
print("\n".join(detail))
