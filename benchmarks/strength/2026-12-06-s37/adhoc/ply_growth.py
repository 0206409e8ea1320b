"""Ad hoc (session 37): the cost ratio of one more ply, Stockfish searches (one engine, hash cleared) of
20 true positions at a time from the default's row, depths 3-16. Run from the repository root:
python benchmarks/strength/2026-12-06-s37/adhoc/ply_growth.py 10 (the log beside it: beside two rows, noisy)."""
import glob, random, statistics, sys, time
import chess
from reconchess import GameHistory
from rbc_bot.engine import EnginePool

random.seed(1)
fens = []
for f in sorted(glob.glob('benchmarks/strength/2026-12-05-s36/clk36a/*.json'))[:30]:
    if f.endswith('match.json'): continue
    import json
    d = json.load(open(f))
    for side in d['fens_after_move'].values():
        fens.extend(side)
boards = [b for b in (chess.Board(f) for f in fens) if b.is_valid() and not b.is_game_over()]
print(len(boards), 'positions', flush=True)
pool = EnginePool(workers=1, deterministic=True, timeout=60)
ratios = {d: [] for d in range(3, 16)}
for trial in range(int(sys.argv[1]) if len(sys.argv) > 1 else 12):
    sample = random.sample(boards, 20)
    times = {}
    for d in range(3, 17):
        t = time.perf_counter(); pool.evaluate(sample, depth=d); times[d] = time.perf_counter() - t
        if times[d] > 6: break
    for d in ratios:
        if d in times and d + 1 in times:
            ratios[d].append(times[d + 1] / times[d])
    print(trial, {d: round(times[d], 3) for d in times}, flush=True)
for d, r in ratios.items():
    if r:
        print(d, '->', d + 1, 'median %.2f' % statistics.median(r), 'geo-mean %.2f' % statistics.geometric_mean(r), len(r))
pool.close()
