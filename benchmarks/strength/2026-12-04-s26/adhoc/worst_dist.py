"""Ad hoc: on multi-board turns, how bad the chosen move's worst board is, and the median mean there."""

import glob
import json
import sys
from pathlib import Path

import numpy as np

rows = []
for run in sys.argv[1:]:
    for path in glob.glob(f"{run}/*.turns.jsonl"):
        for line in Path(path).read_text().splitlines():
            t = json.loads(line)
            c = t.get("candidates") or []
            if len(c) < 2 or t.get("move_reason") != "best-worst" or t["belief"]["after_sense"][0] < 2:
                continue
            rows.append((c[0]["worst"], c[0]["mean"], t["belief"]["after_sense"][0]))
w = np.array([r[0] for r in rows])
m = np.array([r[1] for r in rows])
print(len(rows), "multi-board turns")
for lo, hi in ((-1e9, -15000), (-15000, -600), (-600, -300), (-300, 0), (0, 1e9)):
    sel = (w >= lo) & (w < hi)
    print(
        f"worst in [{lo:.0f}, {hi:.0f}): {sel.sum()} ({sel.mean():.1%}),"
        f" median mean {np.median(m[sel]) if sel.any() else 0:.0f}"
    )
