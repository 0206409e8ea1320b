"""What thinking on the opponent's time could take off our turn (hypothesis f; session 40).

Usage: python phase_times.py RUN_DIR [RUN_DIR ...]

Over our turn logs: the median, 90th and 95th percentile seconds of the belief's expansion after the
opponent's move, of the sense and of the move, and the turn budget. The expansion and the sense depend
only on the opponent's capture square (known in advance for the usual "no capture"), so pondering could
do them ahead; the move depends on what the sense will show.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

PHASES = {"expansion": "seconds_expand", "sense": "seconds_sense", "move": "seconds_move", "budget": "budget"}


def main() -> None:
    values: dict[str, list[float]] = {name: [] for name in PHASES}
    for run in map(Path, sys.argv[1:]):
        for log in sorted(run.glob("*.turns.jsonl")):
            for line in log.read_text().splitlines():
                turn = json.loads(line)
                for name, key in PHASES.items():
                    values[name].append(float(turn.get(key) or 0.0))
    print(f"{len(values['budget'])} turns")
    for name, seen in values.items():
        cuts = statistics.quantiles(seen, n=20)
        print(f"{name:9} median {statistics.median(seen):.3f} s, p90 {cuts[17]:.3f} s, p95 {cuts[18]:.3f} s")


if __name__ == "__main__":
    main()
