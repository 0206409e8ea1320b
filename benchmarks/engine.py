"""Engine throughput: ``EnginePool`` against the raw UCI limit and python-chess ``SimpleEngine``.

Why: every evaluation saved is a deeper search or another board scored within the same clock. The raw
limit is what the same Stockfish binaries deliver with nothing around them: a minimal loop per engine
that writes ``position fen ... / go ...`` pipelined with the pool's window (``PIPELINE_WINDOW`` searches
in flight) and counts ``bestmove`` lines, on ready-made FENs. The pool's rate as a share of that limit
is what our Python costs; ``SimpleEngine`` is the library we replaced.

    python benchmarks/engine.py              # a few minutes on 2 shared cores
    python benchmarks/engine.py --quick      # a check that it runs (small batches, 2 passes)
    python benchmarks/engine.py --json       # the last line is one JSON object

Batch sizes are those of a turn (rbc_bot.move.choose_move): a MultiPV call proposing candidates on 24
boards (top 3), and the candidates' children scored at depth 1 (hundreds to thousands of boards).
The pool runs as the bot runs it (``deterministic=False``: no hash clear) and as the old benchmark ran
it (``deterministic=True``: ``ucinewgame`` + ``isready`` before every call), to show that cost.
Boards: distinct chess-legal positions from seeded random games. Every figure is a median of
``--repeats`` passes, the contenders' passes taken round-robin so a burst of load hits all alike.
Beside wall rates, each contender's CPU per evaluation is counted (this process's threads, and the
engines' from /proc): on 2 cores running 2 engines every CPU microsecond of Python is taken from an
engine, so the ratio of total CPU per evaluation is the share a quiet machine shows when the engines are
CPU-bound, and it hardly moves with the machine's load (``pool_vs_raw_cpu_*``).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import chess
import chess.engine

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rbc_bot.engine import EnginePool, engine_fen, find_stockfish
from rbc_bot.uci import PIPELINE_WINDOW

LIMITS = {"depth1": "go depth 1", "nodes1000": "go nodes 1000"}
BATCHES = (200, 1000, 5000)  # children scored per call: few boards x candidates .. 400 boards x 25
PROPOSAL_BOARDS, PROPOSAL_K = 24, 3  # MultiPV call: max_candidates boards, top_k moves


def make_boards(count: int, seed: int) -> list[chess.Board]:
    """``count`` distinct legal positions taken along seeded random games, stacks dropped."""
    rng = random.Random(seed)
    seen: set[str] = set()
    boards: list[chess.Board] = []
    while len(boards) < count:
        board = chess.Board()
        for _ in range(rng.randrange(8, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
            fen = board.fen()
            if fen not in seen and not board.is_game_over() and rng.random() < 0.3:
                seen.add(fen)
                boards.append(board.copy(stack=False))
    return boards[:count]


class RawEngine:
    """One Stockfish process and nothing else: write commands, count ``bestmove`` in raw reads."""

    def __init__(self, path: Path) -> None:
        self.proc = subprocess.Popen([str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self.send("uci\nsetoption name Threads value 1\nsetoption name Hash value 16\nisready")
        self._read_until(b"readyok")

    def send(self, text: str) -> None:
        data = (text + "\n").encode()
        while data:
            data = data[os.write(self._in, data) :]

    def _read_until(self, token: bytes) -> None:
        buffer = b""
        while token not in buffer:
            buffer = buffer[-16:] + os.read(self._out, 65536)

    def set_multipv(self, k: int) -> None:
        self.send(f"setoption name MultiPV value {k}\nisready")
        self._read_until(b"readyok")

    def search(self, fens: Sequence[str], go: str) -> None:
        """Search every FEN, at most the pool's window in flight; return when every ``bestmove`` has come."""
        sent = done = 0
        tail = b""
        while done < len(fens):
            while sent < len(fens) and sent - done < PIPELINE_WINDOW:
                self.send(f"position fen {fens[sent]}\n{go}")
                sent += 1
            buffer = tail + os.read(self._out, 65536)
            cut = buffer.rfind(b"\n") + 1  # count complete lines only; keep the partial one
            done += buffer.count(b"bestmove", 0, cut)
            tail = buffer[cut:]

    def quit(self) -> None:
        self.send("quit")
        self.proc.wait(timeout=5)


def raw_pass(engines: list[RawEngine], fens: Sequence[str], go: str) -> None:
    """The FENs dealt round-robin to the engines (as the pool deals them), one thread per engine."""
    threads = [
        threading.Thread(target=engine.search, args=(fens[i :: len(engines)], go))
        for i, engine in enumerate(engines)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def engine_cpu(pids: Sequence[int]) -> float:
    """CPU seconds the processes ``pids`` have used (user + system, from /proc; 0 where unreadable)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / os.sysconf("SC_CLK_TCK")


def medians(
    runs: dict[str, Callable[[], object]], repeats: int, pids: Mapping[str, Sequence[int]] | None = None
) -> dict[str, float]:
    """Median seconds per pass of each run, passes taken round-robin over the runs; with ``pids``
    (and only then: a caller that turns every figure into a rate must not get CPU figures of 0),
    also ``NAME_cpu_python`` and ``NAME_cpu_engine``: CPU seconds per pass (sums over the passes)
    of this process and of the run's engines. CPU time does not depend on the machine's load."""
    times: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, float] = {}
    for _ in range(repeats):
        for name, run in runs.items():
            engines = (pids or {}).get(name, [])
            cpu_started, engine_started = time.process_time(), engine_cpu(engines)
            started = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - started)
            if pids is not None:
                python_cpu, engines_cpu = (
                    time.process_time() - cpu_started,
                    engine_cpu(engines) - engine_started,
                )
                cpu[f"{name}_cpu_python"] = cpu.get(f"{name}_cpu_python", 0.0) + python_cpu
                cpu[f"{name}_cpu_engine"] = cpu.get(f"{name}_cpu_engine", 0.0) + engines_cpu
    return {**{name: statistics.median(seconds) for name, seconds in times.items()},
            **{key: value / repeats for key, value in cpu.items()}}  # fmt: skip


def fens_of(boards: Sequence[chess.Board]) -> list[str]:
    """The FENs the pool would send for ``boards`` (ready-made for the raw loop, outside its timing)."""
    return [fen for fen in map(engine_fen, boards) if fen is not None]


def bench_vs_raw(
    path: Path, boards: list[chess.Board], batches: Sequence[int], repeats: int, out: dict[str, Any]
) -> None:
    """The pool (as the bot runs it, and with a hash clear per call) against the raw limit, per batch."""
    raws = [RawEngine(path) for _ in range(2)]
    pool = EnginePool(path, workers=2)
    pool_clear = EnginePool(path, workers=2, deterministic=True)
    pids = {"raw": [raw.proc.pid for raw in raws], "pool": pool.pids, "pool_clear": pool_clear.pids}
    try:
        print(f"\nEnginePool vs the raw UCI limit, 2 engines (evaluations/s; median of {repeats} passes)")
        for name, go in LIMITS.items():
            limit = {"depth": 1} if name == "depth1" else {"nodes": 1000}
            for batch in batches:
                chosen = boards[:batch]
                fens = fens_of(chosen)
                t = medians(
                    {
                        "raw": partial(raw_pass, raws, fens, go),
                        "pool": partial(pool.evaluate, chosen, **limit),
                        "pool_clear": partial(pool_clear.evaluate, chosen, **limit),
                    },
                    repeats,
                    pids,
                )
                report(out, f"{name}_b{batch}", len(chosen), t)
            # The headline: the candidates' children of a typical turn (1,000 boards), by wall time and
            # by CPU (the share a quiet 2-core machine would show when the engines are CPU-bound).
            main = 1000 if 1000 in batches else batches[-1]
            out[f"pool_vs_raw_{name}"] = out[f"pool_vs_raw_{name}_b{main}"]
            out[f"pool_vs_raw_cpu_{name}"] = out[f"pool_vs_raw_cpu_{name}_b{main}"]
        chosen = boards[:PROPOSAL_BOARDS]
        fens = fens_of(chosen)
        for raw in raws:
            raw.set_multipv(PROPOSAL_K)
        t = medians(
            {
                "raw": partial(raw_pass, raws, fens, "go depth 1"),
                "pool": partial(pool.top_moves, chosen, PROPOSAL_K, depth=1),
                "pool_clear": partial(pool_clear.top_moves, chosen, PROPOSAL_K, depth=1),
            },
            max(repeats, 5),
            pids,
        )
        report(out, f"multipv{PROPOSAL_K}_depth1_b{PROPOSAL_BOARDS}", len(chosen), t)
    finally:
        for raw in raws:
            raw.quit()
        pool.close()
        pool_clear.close()


def report(out: dict[str, Any], label: str, n: int, seconds: dict[str, float]) -> None:
    """Rates, the pool's share of the raw limit, the milliseconds a call spends outside the engine, and
    CPU per evaluation (ours, the engines'). On 2 cores running 2 engines, every CPU microsecond of
    Python is taken from an engine, so the load-free share is the ratio of total CPU per evaluation."""
    for name in ("raw", "pool", "pool_clear"):
        python_us = seconds[f"{name}_cpu_python"] / n * 1e6
        engine_us = seconds[f"{name}_cpu_engine"] / n * 1e6
        out[f"{name}_{label}_cpu_us_python"] = python_us
        out[f"{name}_{label}_cpu_us_engine"] = engine_us
    cpu = {name: float(out[f"{name}_{label}_cpu_us_python"]) + float(out[f"{name}_{label}_cpu_us_engine"])
           for name in ("raw", "pool", "pool_clear")}  # fmt: skip
    out[f"pool_vs_raw_cpu_{label}"] = cpu["raw"] / cpu["pool"] if cpu["pool"] else float("nan")
    raw, pool, clear = (n / seconds[k] for k in ("raw", "pool", "pool_clear"))
    out[f"raw_{label}_per_s"] = raw
    out[f"pool_{label}_per_s"] = pool
    out[f"pool_clear_{label}_per_s"] = clear
    out[f"pool_vs_raw_{label}"] = pool / raw
    out[f"pool_clear_vs_raw_{label}"] = clear / raw
    out[f"pool_overhead_ms_{label}"] = (seconds["pool"] - seconds["raw"]) * 1000
    print(
        f"  {label:>22}: raw {raw:7,.0f}/s | pool {pool:7,.0f}/s ({pool / raw:5.1%}, "
        f"+{(seconds['pool'] - seconds['raw']) * 1000:6.1f} ms a call) | "
        f"pool + ucinewgame {clear:7,.0f}/s ({clear / raw:5.1%})"
    )
    print(
        f"  {'':>22}  CPU µs per evaluation, python + engines: "
        + " | ".join(
            f"{name} {float(out[f'{name}_{label}_cpu_us_python']):5.1f} + "
            f"{float(out[f'{name}_{label}_cpu_us_engine']):5.1f}"
            for name in ("raw", "pool", "pool_clear")
        )
        + f"  -> pool at {out[f'pool_vs_raw_cpu_{label}']:.0%} of raw by CPU"
    )


def simple_engine_pass(
    engine: chess.engine.SimpleEngine, boards: list[chess.Board], limit: chess.engine.Limit
) -> list[chess.engine.InfoDict]:
    game = object()  # a new game object makes python-chess send ucinewgame: a cleared hash per pass
    return [engine.analyse(b, limit, info=chess.engine.INFO_SCORE, game=game) for b in boards]


def bench_vs_simple(path: Path, boards: list[chess.Board], repeats: int, out: dict[str, Any]) -> None:
    """The pool (hash cleared per call, as SimpleEngine's new game does) against python-chess."""
    simple = chess.engine.SimpleEngine.popen_uci(str(path))
    simple.configure({"Threads": 1, "Hash": 16})
    pools = {workers: EnginePool(path, workers=workers, deterministic=True) for workers in (1, 2)}
    n = len(boards)
    print(f"\nEnginePool vs python-chess SimpleEngine on {n} boards (hash cleared per pass in both)")
    try:
        for name, limit in {"depth1": {"depth": 1}, "nodes1000": {"nodes": 1000}}.items():
            runs: dict[str, Callable[[], object]] = {
                "simple": partial(simple_engine_pass, simple, boards, chess.engine.Limit(**limit)),
                **{f"pool{w}": partial(pool.evaluate, boards, **limit) for w, pool in pools.items()},
            }
            rates = {key: n / seconds for key, seconds in medians(runs, repeats).items()}
            for key, rate in rates.items():
                out[f"{key}_{name}_evals_per_s"] = rate
            for workers in (1, 2):
                out[f"ratio_pool{workers}_vs_simple_{name}"] = rates[f"pool{workers}"] / rates["simple"]
            print(
                f"  {name:>9}: SimpleEngine {rates['simple']:7,.0f}/s | EnginePool 1 engine "
                f"{rates['pool1']:7,.0f}/s (x{rates['pool1'] / rates['simple']:.2f}) | 2 engines "
                f"{rates['pool2']:7,.0f}/s (x{rates['pool2'] / rates['simple']:.2f})"
            )
    finally:
        simple.quit()
        for pool in pools.values():
            pool.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=300, help="boards of the SimpleEngine comparison")
    parser.add_argument("--repeats", type=int, default=5, help="timed passes per figure (median)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stockfish", default=None, help="Stockfish binary (default: the usual lookup)")
    parser.add_argument("--quick", action="store_true", help="small batches, 2 passes: a check that it runs")
    parser.add_argument("--no-simple", action="store_true", help="skip the SimpleEngine comparison")
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args()

    path = find_stockfish(args.stockfish)
    batches = (50, 200) if args.quick else BATCHES
    repeats = 2 if args.quick else args.repeats
    boards = make_boards(max(*batches, args.boards), args.seed)
    print(f"Stockfish {path}, {len(boards)} distinct boards, batches {', '.join(map(str, batches))}")
    out: dict[str, Any] = {"stockfish": str(path), "batches": list(batches), "repeats": repeats}
    started = time.perf_counter()
    bench_vs_raw(path, boards, batches, repeats, out)
    if not args.no_simple:
        bench_vs_simple(path, boards[: 60 if args.quick else args.boards], repeats, out)
    out["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps({k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
