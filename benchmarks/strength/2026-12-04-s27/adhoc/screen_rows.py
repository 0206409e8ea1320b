"""A turn screen's rows (turn_screen.py run --out) summed up on both curves, with the positions whose
sense or move differs. Usage: PYTHONPATH=benchmarks python screen_rows.py ROWS.jsonl ..."""

import json
import sys
from pathlib import Path

import screening

for path in sys.argv[1:]:
    rows = [json.loads(line) for line in Path(path).read_text().splitlines()]
    for curve in ("", "_measured"):
        losses = [(row[f"base_loss{curve}"], row[f"candidate_loss{curve}"]) for row in rows]
        print(path, curve or "_logistic", *screening.summary(losses), sep="\n  ")
    differ = [
        row for row in rows if (row["base"], row["base_sense"]) != (row["candidate"], row["candidate_sense"])
    ]
    print(f"  {len(differ)} of {len(rows)} differ")
    for row in differ:
        where = (row["game"][-30:], row["turn"], row["believed"], row["base_rule"], row["base_after_sense"])
        losses = (round(row["base_loss_measured"], 3), round(row["candidate_loss_measured"], 3))
        print("  ", *where, row["base"], row["candidate"], *losses)
