"""How the engine's fixed cost per search reads from one probe, many times over (session 38).

Usage: python fixed_cost_probes.py [PROBES]

Each probe is ``Scorer.probe_fixed_cost`` on two engines (the bot's default): a few milliseconds of
depth-1 searches the engine answers from its hash. Prints the least, median and largest reading and how
many read 5x and 20x the least: what one probe at a game's start may read on a loaded machine.
"""

from __future__ import annotations

import statistics
import sys

from rbc_bot.config import EngineConfig
from rbc_bot.engine import EnginePool
from rbc_bot.scorer import Scorer


def main() -> None:
    probes = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with EnginePool(None, 2) as engine:
        readings = []
        for _ in range(probes):
            scorer = Scorer(engine, EngineConfig())
            readings.append(scorer.measure_fixed_cost())
    least = min(readings)
    print(
        f"{probes} probes: least {least * 1000:.2f} ms, median {statistics.median(readings) * 1000:.2f} ms, "
        f"largest {max(readings) * 1000:.2f} ms; >= 5x the least: {sum(r >= 5 * least for r in readings)}, "
        f">= 20x: {sum(r >= 20 * least for r in readings)}"
    )


if __name__ == "__main__":
    main()
