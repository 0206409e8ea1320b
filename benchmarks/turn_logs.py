"""The clock and reliability figures of match runs, from the per-turn logs beside their replays.

Usage: python benchmarks/turn_logs.py RUN_DIR [RUN_DIR ...] [--senses [--min-believed N] [--max-believed N]]
(RUN_DIR: the --out folders of `run_bot.py match`)

Per run: games, W-L-D, our turns, seconds a turn (expansion + sense + move: mean and max), the turns
that ran past 1.2x their budget, the worst ratio of a turn's time to its budget and the median share
of its budget a turn used, the least clock left at any of our turns, the median share of the clock
(base plus increments) left unused at the end of a game (the issue's 300+5 target), internal errors
and engine restarts. The strength
tables' "s a turn", "kept at least" and "zero errors / restarts" come from here (the match's own
summary.json gives W-L-D and Elo).

With ``--senses``, a second line per run says what each sense rule did in the games: on how many
turns it chose the sense, and the median share of the boards its sense kept (boards after the sense
over boards after the opponent's move; turns that began with one board, where there is nothing to
tell apart, are left out), optionally only on turns that began with N..M boards. A sense setting that
the engine-free screens say keeps fewer boards (``benchmarks/danger_senses.py``) shows here whether
it did so in real games.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rbc_bot.gauntlet import clock_unused

OVERRUN = 1.2  # a turn past this many times its budget ran over


def turn_seconds(turn: dict) -> float:
    """Our clock's share of a turn: expansion of the opponent's move, sense and move. Logs written
    before ``seconds_turn`` existed lack the expansion, so their figure is sense plus move."""
    if "seconds_turn" in turn:
        return float(turn["seconds_turn"])
    return (turn.get("seconds_sense") or 0) + (turn.get("seconds_move") or 0)


def results(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def turn_logs(run: Path, result: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The turn logs of one game that are still there: the run folder may have moved since it was
    played, and kept records hold only the losses' logs, in ``losses/``."""
    logs = []
    for log in (result.get("turn_logs") or {}).values():
        found = [f for f in (run / Path(log).name, run / "losses" / Path(log).name) if f.exists()]
        if found:
            logs.append([json.loads(row) for row in found[0].read_text().splitlines()])
    return logs


def summarise(run: Path) -> str:
    totals = json.loads((run / "summary.json").read_text())["totals"]
    seconds: list[float] = []
    ratios: list[float] = []  # a turn's time over its budget
    unused: list[float] = []
    least_left, errors, restarts = float("inf"), 0, 0
    for result in results(run):
        unused.append(clock_unused(result, result["a_color"]))
        for turns in turn_logs(run, result):
            seconds += [turn_seconds(t) for t in turns]
            ratios += [turn_seconds(t) / t["budget"] for t in turns if t.get("budget")]
            least_left = min([least_left, *(t["seconds_left"] for t in turns if "seconds_left" in t)])
            errors += turns[-1].get("errors", 0) if turns else 0
            restarts += sum(t.get("engine_restarts", 0) for t in turns)
    mean = sum(seconds) / len(seconds) if seconds else 0.0
    return (
        f"{run}: {totals['games']} games {totals['wins']}-{totals['losses']}-{totals['draws']} | "
        f"{len(seconds)} turns, {mean:.2f} s a turn (max {max(seconds, default=0):.1f}), "
        f"{sum(r > OVERRUN for r in ratios)} past {OVERRUN}x their budget "
        f"(worst {max(ratios, default=0):.2f}x, median {statistics.median(ratios or [0.0]):.0%} used), "
        f"least left {least_left:.1f} s, median clock unused {statistics.median(unused or [0.0]):.0%} | "
        f"errors {errors}, engine restarts {restarts}"
    )


def boards_kept(turn: dict[str, Any]) -> float | None:
    """The share of the boards the turn's sense kept, or None when the turn began with one board."""
    before, after = turn["belief"]["after_opponent"][0], turn["belief"]["after_sense"][0]
    return after / before if before > 1 else None


def senses(run: Path, min_believed: int = 0, max_believed: int | None = None) -> str:
    """Per sense rule: the turns it chose the sense on and the median share of the boards kept."""
    kept: dict[str, list[float]] = {}
    for result in results(run):
        for turns in turn_logs(run, result):
            for turn in turns:
                share = boards_kept(turn) if "after_sense" in turn.get("belief", {}) else None
                believed = turn["belief"]["after_opponent"][0] if share is not None else 0
                if share is None or believed < min_believed or (max_believed and believed > max_believed):
                    continue
                kept.setdefault(turn.get("sense_rule") or "none", []).append(share)
    parts = [
        f"{rule} {len(shares)} turns, kept {statistics.median(shares):.1%}"
        for rule, shares in sorted(kept.items(), key=lambda item: -len(item[1]))
    ]
    return f"  senses: {'; '.join(parts) or 'no turn with more than one board'}"


def main() -> None:
    parser = argparse.ArgumentParser(description="Clock and reliability figures of match runs.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="a match's --out folder")
    parser.add_argument("--senses", action="store_true", help="what each sense rule kept of the boards")
    parser.add_argument("--min-believed", type=int, default=0, help="sense figures: turns from N boards")
    parser.add_argument("--max-believed", type=int, default=None, help="sense figures: turns up to N boards")
    args = parser.parse_args()
    missing = [run for run in args.runs if not (run / "summary.json").is_file()]
    if missing:
        sys.exit(f"turn_logs.py: error: not a match folder (no summary.json): {missing[0]}")
    for run in args.runs:
        print(summarise(run))
        if args.senses:
            print(senses(run, args.min_believed, args.max_believed))


if __name__ == "__main__":
    main()
