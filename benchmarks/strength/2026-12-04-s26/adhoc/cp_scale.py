"""Ad hoc: how our logged mean centipawns at a turn convert into the game's result against StrangeFish.
Fits P(win) = 1/(1+10^(-(cp - c)/s)) per turn band; prints the fit and a table by cp band."""

import json
import sys
from pathlib import Path

import numpy as np

rows = []
for run in sys.argv[1:]:
    for line in Path(f"{run}/results.jsonl").read_text().splitlines():
        r = json.loads(line)
        if "strangefish" not in (r["white"] + r["black"]) or not r.get("turn_logs"):
            continue
        ours = "white" if "rbc_bot" in r["white"] else "black"
        score = 1.0 if r["winner"] == ours else (0.5 if r["winner"] is None else 0.0)
        path = r["turn_logs"].get(ours)
        if not path:
            continue
        try:
            lines = Path(path).read_text().splitlines()
        except OSError:
            continue
        for text in lines:
            t = json.loads(text)
            c = t.get("candidates") or []
            chosen = t.get("chosen_move")
            m = next((x for x in c if x["move"] == chosen), None)
            if m is None or t["turn"] < 4:
                continue
            single = t["belief"]["after_sense"][0] == 1
            rows.append((r["replay"], t["turn"], max(-3000, min(3000, m["mean"])), score, single))
print(len(rows), "turns", len({r[0] for r in rows}), "games")
cp = np.array([r[2] for r in rows])
y = np.array([r[3] for r in rows])
single = np.array([r[4] for r in rows])
for lo, hi in (
    (-3000, -800),
    (-800, -400),
    (-400, -200),
    (-200, -100),
    (-100, 0),
    (0, 100),
    (100, 200),
    (200, 400),
    (400, 800),
    (800, 3001),
):
    sel = (cp >= lo) & (cp < hi)
    s1 = sel & single
    print(
        f"{lo:6d}..{hi:5d}: n={sel.sum():5d} score {y[sel].mean() if sel.any() else float('nan'):.3f}"
        f"  (one board: n={s1.sum():4d} {y[s1].mean() if s1.any() else float('nan'):.3f})"
    )


def loglik(cp, y, scale, even):
    """Log-likelihood of the results ``y`` under P(win) = 1 / (1 + 10^(-(cp - even) / scale))."""
    p = np.clip(1 / (1 + 10 ** (-(cp - even) / scale)), 1e-6, 1 - 1e-6)
    return float(np.sum(y * np.log(p) + (1 - y) * np.log(1 - p)))


def best_fit(cp, y):
    """The (log-likelihood, scale, even) of the best fit on a grid."""
    grid = ((loglik(cp, y, s, c), s, c) for s in range(100, 3001, 50) for c in range(-600, 601, 25))
    return max(grid)


best = best_fit(cp, y)
print("best fit: scale", best[1], "offset", best[2], "(P = 0.5 at cp = offset)")
cs, ys = cp[single], y[single]
best = best_fit(cs, ys)
print("one-board turns:", len(cs), "best fit: scale", best[1], "offset", best[2])
for s in (400, 800, 1200):
    print(s, "loglik", round(loglik(cs, ys, s, best[2]), 1))
