"""Ad hoc: how often the min aggregate is saturated (the chosen and the runner-up both at worst <= -4000 cp),
so that the choice falls to king-loss counts and the raw mean."""

import glob
import json
import sys
from pathlib import Path

n = sat = satk = 0
by_size = {}
for run in sys.argv[1:]:
    for path in glob.glob(f"{run}/*.turns.jsonl"):
        for line in Path(path).read_text().splitlines():
            t = json.loads(line)
            c = t.get("candidates") or []
            if len(c) < 2 or t.get("move_reason") != "best-worst":
                continue
            n += 1
            size = t["belief"]["after_sense"][0]
            band = "1" if size == 1 else "2-150" if size <= 150 else "151-1000" if size <= 1000 else ">1000"
            s = c[0]["worst"] <= -4000 and c[1]["worst"] <= -4000
            k = c[0]["worst"] <= -15000
            by_size.setdefault(band, [0, 0, 0])
            by_size[band][0] += 1
            by_size[band][1] += s
            by_size[band][2] += k
            sat += s
print(n, "turns; saturated min on", sat, f"({sat / n:.1%})")
for band, (a, b, k) in sorted(by_size.items()):
    print(
        f"{band:>9}: {a:5d} turns, saturated {b:5d} ({b / a:.1%}),"
        f" chosen loses king on some board {k} ({k / a:.1%})"
    )
