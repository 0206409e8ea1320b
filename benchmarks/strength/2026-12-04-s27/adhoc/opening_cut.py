"""The screen suites' positions where `sense.danger_opening_turns=6` can act: our turns 1-6 with more
than 1,000 believed boards (turn_screen.py run --where danger then keeps those with a check on some).
Usage: python opening_cut.py OUT.jsonl.gz SUITE.jsonl.gz ..."""

import gzip
import json
import sys

out, *suites = sys.argv[1:]
kept = 0
with gzip.open(out, "wt") as stream:
    for suite in suites:
        with gzip.open(suite, "rt") as lines:
            for line in lines:
                position = json.loads(line)
                if position["turn"] <= 6 and position["believed"] > 1000:
                    stream.write(line)
                    kept += 1
print(f"{kept} positions written to {out}")
