"""Where a whole turn of the bot goes, at belief sizes from ~10 to ~1M boards, and how each belief
operation grows with the number of boards.

Why: the engine, the Python around it and the belief tracker share one clock; this shows which of them
a turn is waiting for at each size, and so which size of belief the clock can afford.

    python benchmarks/turn.py                 # the real turn budget of a 900 s + 5 s game: ~10 minutes
    python benchmarks/turn.py --quick         # sizes to 10k, a 0.5 s move budget: a check that it runs
    python benchmarks/turn.py --json          # the last line is one JSON object

Positions: the QGD middlegame of benchmarks/belief.py, then cycles of [our quiet move, every Black move
that captures nothing] (no sensing), built with rbc_bot.expand_fast (same output as the tracker's
expand). For each size a seeded sample of Black-to-move parents is chosen so that the opponent's move
leaves about that many boards; one of those boards is the truth. A turn then runs the bot's own
functions in its order (rbc_bot.bot.RbcBot): the opponent's move (rbc_bot.belief.expand, and
expand_fast beside it), the sense choice (the danger check on 2,000 boards, then the 3x3-window split
on 4,000), the sense filter, the move choice (rbc_bot.move.choose_move with a Scorer over a 2-engine
EnginePool, on the 3,000-board sample the bot draws; split into candidates (MultiPV), play-out (Python),
scoring (engine) and the rest (Python over the sample)), and the own-move filter of the move taken on
the truth. Times are wall seconds of one run (the move fills its budget by design); memory is the
process's peak RSS so far (sizes run smallest first).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import chess
import numpy as np
from reconchess.utilities import move_actions

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rbc_bot.move as move_module
from rbc_bot import expand_fast
from rbc_bot.belief_ops import expand, filter_own_move, filter_sense
from rbc_bot.belief_rows import decode, encode
from rbc_bot.board_sample import our_king_attacked
from rbc_bot.bot import CHOICE_SAMPLE
from rbc_bot.clock import Clock
from rbc_bot.config import ClockConfig, EngineConfig, MoveConfig, SenseConfig
from rbc_bot.engine import EnginePool
from rbc_bot.rules import revise, sense_window
from rbc_bot.scorer import Scorer
from rbc_bot.sense import choose_sense_square, danger_square, sample_rows
from rbc_bot.sense_rules import DANGER_SAMPLE

OPENING = (
    "d4 d5 c4 e6 Nc3 Nf6 Bg5 Be7 e3 O-O Nf3 Nbd7 Rc1 c6 Bd3 dxc4 Bxc4 Nd5 Bxe7 Qxe7 O-O Nxc3 Rxc3 e5 Qc2 e4"
)
OUR_MOVES = ["f3d2", "h2h3", "g1h1", "a2a3", "b2b3", "g2g3"]
SIZES = (10, 1_000, 10_000, 100_000, 1_000_000)
STEPS = ("expand", "expand_fast", "sense_choice", "sense_filter", "sample", "candidates", "play_out",
         "scoring", "move_rest", "own_filter")  # fmt: skip
# A king capture possible on 30 % of the boards ends the bot's move choice at once; the profile wants the
# whole move path at every size, so here captures only join the candidates (the rest is the bot's).
MOVE = MoveConfig(king_capture_share=2.0)
BELIEF_STEPS = ("expand", "expand_fast", "sense_choice", "sense_filter", "sample", "own_filter")


def parent_sets() -> list[np.ndarray]:
    """Black-to-move parents after each of our quiet moves (the last ones ~480k boards)."""
    board = chess.Board()
    for san in OPENING.split():
        board.push_san(san)
    rows = encode(board.copy(stack=False))[None, :]
    sets = []
    for uci in OUR_MOVES:
        move = chess.Move.from_uci(uci)
        parents = filter_own_move(rows, chess.WHITE, move, move, None)
        sets.append(parents)
        if uci != OUR_MOVES[-1]:
            rows = expand_fast.expand(parents, chess.BLACK, None)
    return sets


def parents_for(size: int, sets: list[np.ndarray], rng: np.random.Generator) -> np.ndarray:
    """A sample of parents whose expansion leaves about ``size`` boards (a few calibration rounds)."""
    pool = next((s for s in sets if len(s) * 4 >= size), sets[-1])
    count = max(1, size // 20)
    for _ in range(4):
        count = min(count, len(pool))
        parents = pool[np.sort(rng.choice(len(pool), size=count, replace=False))]
        children = len(expand_fast.expand(parents, chess.BLACK, None))
        if abs(children - size) <= 0.2 * size or count == len(pool):
            break
        count = max(1, round(count * size / children))
    return parents


def engine_cpu(pids: Sequence[int]) -> float:
    """CPU seconds the processes ``pids`` have used (user + system, from /proc; 0 where unreadable)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class Timer:
    """Per named step of one turn: wall seconds, CPU seconds of this process (all its threads) and
    CPU seconds of the engines. CPU time hardly depends on what else the machine is running."""

    def __init__(self, pids: Callable[[], Sequence[int]]) -> None:
        self.pids = pids
        self.seconds: dict[str, float] = {}

    def add(self, name: str, wall: float, cpu: float, engine: float) -> None:
        for key, value in ((name, wall), (f"{name}_cpu", cpu), (f"{name}_engine", engine)):
            self.seconds[key] = self.seconds.get(key, 0.0) + value

    @contextmanager
    def step(self, name: str) -> Iterator[None]:
        wall, cpu, engine = time.perf_counter(), time.process_time(), engine_cpu(self.pids())
        try:
            yield
        finally:
            self.add(
                name, time.perf_counter() - wall, time.process_time() - cpu, engine_cpu(self.pids()) - engine
            )

    def wrap(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.step(name):
                return function(*args, **kwargs)

        return timed


def sense_choice(rows: np.ndarray, rng: np.random.Generator, config: SenseConfig) -> int:
    """The bot's sense rule (RbcBot.choose_sense, when no king hunt is on): the danger check, else
    the 3x3-window split."""
    sample = sample_rows(rows, DANGER_SAMPLE, rng)
    attacked = np.array([our_king_attacked(b) for b in decode(sample, chess.WHITE)], dtype=bool)
    min_share = 0.0 if len(rows) <= config.danger_always_below else config.danger_min_share
    square = danger_square(sample, attacked, min_share, config.danger_tolerance)
    if square is None:
        square = choose_sense_square(rows, config.method, rng, config.window_sample)
    return square


def one_turn(
    parents: np.ndarray, pool: EnginePool, scorer: Scorer, move_seconds: float,
    rng: np.random.Generator,
) -> dict[str, Any]:  # fmt: skip
    """One turn at this belief, step by step (see the module docstring); seconds per step and sizes."""
    timer = Timer(lambda: pool.pids)
    with timer.step("expand"):
        rows = expand(parents, chess.BLACK, None)
    with timer.step("expand_fast"):
        fast = expand_fast.expand(parents, chess.BLACK, None)
    if not np.array_equal(fast, rows):
        raise AssertionError("expand_fast differs from belief.expand")
    del fast
    truth_row = rows[int(rng.integers(len(rows)))]
    truth = decode(truth_row[None, :], chess.WHITE)[0]
    with timer.step("sense_choice"):
        square = sense_choice(rows, rng, SenseConfig())
    window = sense_window(square)
    with timer.step("sense_filter"):
        sensed = filter_sense(rows, window, [int(truth_row[s]) for s in window])
    with timer.step("sample"):
        boards = decode(sample_rows(sensed, CHOICE_SAMPLE, rng), chess.WHITE)
    originals = (move_module.propose, move_module.play_out, scorer.evaluate_deepening)
    move_module.propose = timer.wrap("candidates", move_module.propose)
    move_module.play_out = timer.wrap("play_out", move_module.play_out)
    scorer.evaluate_deepening = timer.wrap("scoring", scorer.evaluate_deepening)  # type: ignore[method-assign]
    try:
        with timer.step("move"):
            decision = move_module.choose_move(boards, move_actions(truth), scorer, MOVE, move_seconds, rng)
    finally:
        move_module.propose, move_module.play_out, scorer.evaluate_deepening = originals  # type: ignore[method-assign]
    s = timer.seconds
    for suffix in ("", "_cpu", "_engine"):
        inner = sum(s.get(k + suffix, 0.0) for k in ("candidates", "play_out", "scoring"))
        s["move_rest" + suffix] = s.pop("move" + suffix) - inner
    taken, capture = revise(truth, decision.move)
    with timer.step("own_filter"):
        after = filter_own_move(sensed, chess.WHITE, decision.move, taken, capture)
    sizes = {
        "parents": len(parents),
        "boards": len(rows),
        "after_sense": len(sensed),
        "after_move": len(after),
    }
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    steps = {k + suffix: s.get(k + suffix, 0.0) for k in STEPS for suffix in ("", "_cpu", "_engine")}
    return {**steps, **sizes, "evaluations": decision.evaluations,
            "depth": decision.depth, "reason": decision.reason, "peak_rss_mb": peak_mb}  # fmt: skip


def growth(results: dict[int, dict[str, Any]]) -> dict[str, float]:
    """Log-log slope of each belief step's seconds against the boards, over sizes of >= 1,000 boards
    (below that, fixed costs dominate): 1.0 is linear."""
    sizes = [n for n in results if results[n]["boards"] >= 1_000]
    slopes = {}
    for step in BELIEF_STEPS:
        points = [
            (results[n]["boards"], results[n][f"{step}_cpu"]) for n in sizes if results[n][f"{step}_cpu"] > 0
        ]
        if len(points) >= 2:
            x, y = np.log([p[0] for p in points]), np.log([p[1] for p in points])
            slopes[step] = float(np.polyfit(x, y, 1)[0])
    return slopes


def affordable(results: dict[int, dict[str, Any]], seconds: float, expansion: str) -> float:
    """The belief size (boards after the opponent's move) whose belief work fits ``seconds``, from the
    power law through the two largest sizes measured (the move's cost does not grow with the belief)."""
    steps = [expansion, *[s for s in BELIEF_STEPS if s not in ("expand", "expand_fast")]]
    (_, r1), (_, r2) = sorted(results.items())[-2:]
    t1, t2 = (sum(r[f"{s}_cpu"] for s in steps) for r in (r1, r2))
    b1, b2 = r1["boards"], r2["boards"]
    slope = math.log(t2 / t1) / math.log(b2 / b1) if t1 > 0 and b2 != b1 else 1.0
    return float(b2 * (seconds / t2) ** (1 / max(slope, 0.1)))


NAMES = {"expand": "expand", "expand_fast": "exp_fast", "sense_choice": "sense", "sense_filter": "filter",
         "sample": "sample", "candidates": "cands", "play_out": "playout", "scoring": "scoring",
         "move_rest": "mv_rest", "own_filter": "own_flt"}  # fmt: skip


def print_table(results: dict[int, dict[str, Any]]) -> None:
    """Wall, our CPU and the engines' CPU per step; then each step's share of the turn's CPU."""
    tables = {
        "": "wall seconds",
        "_cpu": "CPU seconds of the bot's process",
        "_engine": "CPU seconds of the engines",
    }
    for suffix, title in tables.items():
        print(
            f"\n{title} per step of one turn (expand: belief.expand as the bot runs it; exp_fast beside it)"
        )
        print(
            f"{'boards':>9} {'parents':>7} " + " ".join(f"{v:>8}" for v in NAMES.values()) + "   turn peak MB"
        )
        for r in results.values():
            turn = sum(r[k + suffix] for k in STEPS if k != "expand_fast")
            cells = " ".join(f"{r[k + suffix]:8.3f}" for k in NAMES)
            print(
                f"{int(r['boards']):>9,} {int(r['parents']):>7,} {cells} {turn:6.2f} {r['peak_rss_mb']:7.0f}"
            )
    print("\nwhere the turn goes: share of its CPU (bot + engines; expand as the bot runs it)")
    for r in results.values():
        total = {k: r[k + "_cpu"] + r[k + "_engine"] for k in STEPS if k != "expand_fast"}
        turn = sum(total.values()) or 1.0
        shares = ", ".join(f"{NAMES[k]} {v / turn:.0%}" for k, v in total.items() if v / turn >= 0.02)
        print(f"  {int(r['boards']):>9,}: {shares}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="sizes up to 10k, a 0.5 s move budget")
    parser.add_argument("--move-seconds", type=float, default=None,
                        help="move budget (default: the first turn's of a 900 s + 5 s game)")  # fmt: skip
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    args = parser.parse_args()
    budget = Clock(ClockConfig(), increment=5.0).budget(900.0)
    move_seconds = args.move_seconds or (0.5 if args.quick else budget.move)
    sizes = SIZES[:3] if args.quick else SIZES
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    sets = parent_sets()
    print(f"parent sets {[len(s) for s in sets]} built in {time.perf_counter() - started:.0f} s; "
          f"move budget {move_seconds:.2f} s (turn {budget.total:.2f} s of a 900 s + 5 s game)")  # fmt: skip
    results: dict[int, dict[str, Any]] = {}
    with EnginePool(workers=2) as pool:
        scorer = Scorer(pool, EngineConfig())
        scorer.evaluate(decode(sets[0], chess.BLACK))  # the scorer learns its cost per evaluation
        for size in sizes:
            parents = parents_for(size, sets, rng)
            results[size] = one_turn(parents, pool, scorer, move_seconds, rng)
            print(f"  {size:>9,}: {int(results[size]['boards']):,} boards done", flush=True)
    print_table(results)
    slopes = growth(results)
    print("\ngrowth with the boards (log-log slope over sizes >= 1k; 1.0 = linear)")
    for step, slope in slopes.items():
        print(f"  {step:>12}: {slope:.2f}")
    third = budget.total / 3  # Clock.belief_cap lets the belief take about a third of a turn
    limits = {"third": third, "turn": budget.total}
    fits = {f"affordable_boards_{name}_{label}": affordable(results, seconds, name)
            for name in ("expand", "expand_fast") for label, seconds in limits.items()}  # fmt: skip
    print(f"\nlargest belief per turn of a 900 s + 5 s game ({budget.total:.1f} s a turn; belief work)")
    for key, value in fits.items():
        print(f"  {key}: {value:,.0f} boards")
    out = {"move_seconds": move_seconds, "turn_seconds": budget.total,
           "sizes": {str(k): v for k, v in results.items()},
           "slopes": slopes, **fits, "seconds": time.perf_counter() - started}  # fmt: skip
    if args.json:
        print(json.dumps(out, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
