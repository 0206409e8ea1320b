# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501
"""(--not-behind: only turns not behind in material on the true board) King-risk saturation by game (index < 36, both rows): turns whose logged candidates (>= 2) all have
worst <= -19000 (every move can lose our king on some scored board: 'sat'), or all but one ('forced':
one move, often a king step, is the only one that never loses it); what followed on the true board:
the reply captured our king (kc) or a piece >= 3 (p3)."""

import sys
from collections import defaultdict

sys.path.insert(0, "scripts")
from losses import VAL, games, played

NOT_BEHIND = "--not-behind" in sys.argv
tot = defaultdict(lambda: defaultdict(int))
ng = defaultdict(int)
for k, r in sorted(games().items()):
    color, h, log = played(r)
    grp = (k[0], k[2], r["res"])
    ng[grp] += 1
    g = tot[grp]
    s = defaultdict(int)
    for t in h.turns(color):
        lg = log.get(t.turn_number + 1)
        if not lg:
            continue
        c = [x for x in lg.get("candidates", []) if x["worst"] is not None]
        if len(c) < 2:
            continue
        g["turns"] += 1
        bad = sum(x["worst"] <= -19000 for x in c)
        kind = "sat" if bad == len(c) else ("forced" if bad == len(c) - 1 else None)
        if not kind:
            continue
        if NOT_BEHIND:
            tb = h.truth_board_before_move(t) if h.has_move(t) else None
            if tb is None:
                continue
            bal = sum(VAL[p.piece_type] * (1 if p.color == color else -1) for p in tb.piece_map().values())
            if bal < 0:
                continue
        nxt = t.next
        lost = 0
        kc = False
        if h.has_move(nxt) and h.capture_square(nxt) is not None:
            p = h.truth_board_before_move(nxt).piece_at(h.capture_square(nxt))
            lost = VAL[p.piece_type] if p else 0
            kc = p is not None and p.piece_type == 6
        g[kind] += 1
        s[kind] += 1
        g[kind + "_kc"] += kc
        g[kind + "_p3"] += lost >= 3
    print(f"{k[0]}-{k[1]}{k[2]} {r['res']} sat {s['sat']} forced {s['forced']}")
print()
for grp in sorted(tot):
    g = tot[grp]
    print(
        grp,
        "games",
        ng[grp],
        " ".join(
            f"{x}={g[x]}" for x in ("turns", "sat", "sat_kc", "sat_p3", "forced", "forced_kc", "forced_p3")
        ),
        f"sat+forced per 100 turns {100 * (g['sat'] + g['forced']) / max(g['turns'], 1):.1f}",
    )
