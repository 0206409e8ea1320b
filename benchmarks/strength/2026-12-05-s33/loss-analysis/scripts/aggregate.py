# Ad hoc record script of session 33's loss analysis, kept as it ran.
# ruff: noqa: E501, SIM102
"""Engine-free figures over every game (index < 36) of both rows: per game and summed by row x result x colour.
risky: our chosen move had worst <= -400 cp on the scored boards while its mean was >= 0 (only a mixed
ranking or an all-bad worst picks these); loss3: the opponent's reply captured a piece worth >= 3 of ours;
blocked: requested move not played as asked (pass or shortened); kwalk: our non-castling king moves
while both queens were on; promo: opponent promotions; maxbel: largest belief after the sense."""

import sys
from collections import defaultdict

import chess

sys.path.insert(0, "scripts")
from losses import VAL, games, played


def game_stats(r):
    color, h, log = played(r)
    s = defaultdict(int)
    for t in h.turns(color):
        n = t.turn_number + 1
        lg = log.get(n, {})
        nb = lg.get("belief", {}).get("after_sense", [0])[0] or 0
        s["maxbel"] = max(s["maxbel"], nb)
        s["turns"] += 1
        ch = next((c for c in lg.get("candidates", []) if c["move"] == lg.get("chosen_move")), None)
        nxt = t.next
        lost = 0
        if h.has_move(nxt) and h.capture_square(nxt) is not None:
            p = h.truth_board_before_move(nxt).piece_at(h.capture_square(nxt))
            lost = VAL[p.piece_type] if p else 0
        if lost >= 3:
            s["loss3"] += 1
        if lost >= 9:
            s["lossQ"] += 1
        if ch and ch["worst"] is not None and ch["worst"] <= -400 and ch["mean"] >= 0:
            s["risky"] += 1
            if lost >= 3:
                s["risky_loss3"] += 1
        if ch and ch["worst"] is not None and ch["worst"] <= -400:
            s["worst400"] += 1
        if h.has_move(t):
            req, tak = h.requested_move(t), h.taken_move(t)
            if req is not None and req != tak:
                s["blocked"] += 1
            b = h.truth_board_before_move(t)
            if tak is not None and b.piece_type_at(tak.from_square) == chess.KING and not b.is_castling(tak):
                if b.pieces(chess.QUEEN, True) and b.pieces(chess.QUEEN, False):
                    s["kwalk"] += 1
        if h.has_move(nxt) and h.taken_move(nxt) is not None and h.taken_move(nxt).promotion:
            s["promo"] += 1
        if nb >= 1000:
            s["turns_bel1000"] += 1
    return s


if __name__ == "__main__":
    g = games()
    keys = [
        "turns",
        "maxbel",
        "turns_bel1000",
        "worst400",
        "risky",
        "risky_loss3",
        "loss3",
        "lossQ",
        "blocked",
        "kwalk",
        "promo",
    ]
    tot = defaultdict(lambda: defaultdict(int))
    cnt = defaultdict(int)
    print("game res plies " + " ".join(keys))
    for k, r in sorted(g.items()):
        s = game_stats(r)
        print(f"{k[0]}-{k[1]}{k[2]} {r['res']} {r['plies']:>3} " + " ".join(str(s[x]) for x in keys))
        grp = (k[0], k[2], r["res"])
        cnt[grp] += 1
        for x in keys:
            tot[grp][x] += s[x] if x != "maxbel" else (1 if s[x] >= 1000 else 0)
    print("\nby row, colour, result (sums; maxbel column = games whose belief passed 1000 after a sense)")
    for grp in sorted(tot):
        print(grp, cnt[grp], " ".join(f"{x}={tot[grp][x]}" for x in keys))
