"""Ad hoc (session 37): the cost ratio of one more ply. Stockfish (one engine, hash cleared each call)
searches 20 true positions at a time from the default's row, depths 3-16, N samples. Run from the
repository root: python benchmarks/strength/2026-12-06-s37/adhoc/ply_growth.py 10 (the log beside it ran
beside two match rows: noisy)."""

import glob
import json
import random
import statistics
import sys
import time
from pathlib import Path

import chess

from rbc_bot.engine import EnginePool

random.seed(1)
fens: list[str] = []
for name in sorted(glob.glob("benchmarks/strength/2026-12-05-s36/clk36a/*.json"))[:30]:
    replay = json.loads(Path(name).read_text())
    for side in replay.get("fens_after_move", {}).values():
        fens.extend(side)
boards = [b for b in (chess.Board(f) for f in fens) if b.is_valid() and not b.is_game_over()]
print(len(boards), "positions", flush=True)
pool = EnginePool(workers=1, deterministic=True, timeout=60)
ratios: dict[int, list[float]] = {d: [] for d in range(3, 16)}
for trial in range(int(sys.argv[1]) if len(sys.argv) > 1 else 12):
    sample = random.sample(boards, 20)
    times: dict[int, float] = {}
    for depth in range(3, 17):
        started = time.perf_counter()
        pool.evaluate(sample, depth=depth)
        times[depth] = time.perf_counter() - started
        if times[depth] > 6:
            break
    for depth, found in ratios.items():
        if depth in times and depth + 1 in times:
            found.append(times[depth + 1] / times[depth])
    print(trial, {d: round(t, 3) for d, t in times.items()}, flush=True)
for depth, found in ratios.items():
    if found:
        median, geo = statistics.median(found), statistics.geometric_mean(found)
        print(depth, "->", depth + 1, f"median {median:.2f}", f"geo-mean {geo:.2f}", len(found))
pool.close()
