"""The fixed-cost probe on a freshly started engine against the probes after it (session 39).

Usage: python cold_probe.py [POOLS]

For each of POOLS fresh two-engine pools (the bot's default), three ``Scorer.probe_fixed_cost``
readings one after another: the first is what the default (one probe a game) keeps all game, the
next two are what a probe reads once the engines have searched.
"""

from __future__ import annotations

import statistics
import sys

from rbc_bot.config import EngineConfig
from rbc_bot.engine import EnginePool
from rbc_bot.scorer import Scorer


def main() -> None:
    pools = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    readings: list[list[float]] = [[], [], []]
    for _ in range(pools):
        with EnginePool(None, 2) as engine:
            for reading in readings:
                scorer = Scorer(engine, EngineConfig())
                reading.append(1000 * scorer.measure_fixed_cost())
    for k, reading in enumerate(readings, 1):
        print(
            f"probe {k} of a fresh pool, over {pools} pools: median {statistics.median(reading):.2f} ms, "
            f"least {min(reading):.2f}, largest {max(reading):.2f}"
        )


if __name__ == "__main__":
    main()
