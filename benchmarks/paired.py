"""Two configurations against the same opponent, compared game by game on the seeds both played.

Usage: python benchmarks/paired.py --base RUN_DIR [RUN_DIR ...] --candidate RUN_DIR [RUN_DIR ...]
    [--longer-than PLIES]
       python benchmarks/paired.py --trial TRIAL_DIR [TRIAL_DIR ...] [--longer-than PLIES]
(the --out folders of `run_bot.py match` or `run_bot.py trial`, or kept records under benchmarks/strength/)

Why: a match against StrangeFish is a few games on 2 cores, and two such matches differ by more in
which seeds they played than in the bot. Pairing each candidate game with the base's game on the same
seed and colour removes that part; what is left is counted honestly: the score of both on the shared
games, an exact two-sided sign test over the pairings where one side did better (a draw or a game
split between several runs of one side counts by its points), the difference in points a game with
its 95 % CI, and how many paired games a difference of that size would need to show. Several folders
on one side pool their games: main's runs of several sessions on the same seeds. ``--trial`` takes
the control arm of each trial folder as the base and its candidate arm as the candidate, so one
candidate's trials (more seeds, another clock) pool into one comparison. ``--longer-than``
keeps only the seeds and colours whose every game, on both sides, lasted more than that many plies:
whether a change that wins quick games against one opponent's blind spot plays the long ones better.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from rbc_bot.runner import game_points
from rbc_bot.stats import compare_paired
from rbc_bot.trial import comparison_lines

Key = tuple[int, str]  # (seed, our colour)


def read_records(run: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines()]


def load_scores(runs: list[Path], longer_than: int = 0, arm: str | None = None) -> dict[Key, float]:
    """Each (seed, colour)'s mean points over every game of ``runs`` that played it (with ``arm``, only
    that arm's games of trial folders); with ``longer_than``, only the (seed, colour)s none of whose
    games ended within that many plies."""
    games: dict[Key, list[float]] = defaultdict(list)
    short: set[Key] = set()
    for run in runs:
        for record in read_records(run):
            if arm is not None and record.get("arm") != arm:
                continue
            key = (int(record["seed"]), record["a_color"])
            games[key].append(game_points(record, record["a_color"]))
            if longer_than and record.get("plies", 0) <= longer_than:
                short.add(key)
    return {key: sum(p) / len(p) for key, p in games.items() if key not in short}


def compare(base: dict[Key, float], candidate: dict[Key, float]) -> list[str]:
    """The report: one line per shared (seed, colour), then the totals and the sign test."""
    shared = sorted(base.keys() & candidate.keys())
    lines = [f"{seed} {colour:5}  base {base[seed, colour]:.2f}  candidate {candidate[seed, colour]:.2f}"
             for seed, colour in shared]  # fmt: skip
    if not shared:
        return ["no (seed, colour) played by both sides"]
    return lines + comparison_lines(compare_paired(base, candidate))


def main() -> None:
    parser = argparse.ArgumentParser(description="Compare two configurations on the seeds both played.")
    parser.add_argument("--base", nargs="+", type=Path, default=[], metavar="RUN_DIR")
    parser.add_argument("--candidate", nargs="+", type=Path, default=[], metavar="RUN_DIR")
    parser.add_argument(
        "--trial",
        nargs="+",
        type=Path,
        default=[],
        metavar="TRIAL_DIR",
        help="trial folders: each one's control arm is the base, its candidate arm the candidate",
    )
    parser.add_argument(
        "--longer-than",
        type=int,
        default=0,
        metavar="PLIES",
        help="only the seeds and colours whose games all lasted more plies (both sides)",
    )
    args = parser.parse_args()
    if args.longer_than < 0:
        sys.exit("paired.py: error: --longer-than must be >= 0")
    runs_given = bool(args.base or args.candidate)
    if runs_given == bool(args.trial) or (runs_given and not (args.base and args.candidate)):
        sys.exit("paired.py: error: give --base and --candidate, or --trial")
    folders = args.base + args.candidate + args.trial
    missing = [run for run in folders if not (run / "results.jsonl").is_file()]
    if missing:
        sys.exit(f"paired.py: error: not a match or trial folder (no results.jsonl): {missing[0]}")
    if args.trial:
        not_trials = [run for run in args.trial if not any("arm" in r for r in read_records(run))]
        if not_trials:
            sys.exit(f"paired.py: error: not a trial folder (no record has an arm): {not_trials[0]}")
        base = load_scores(args.trial, args.longer_than, arm="control")
        candidate = load_scores(args.trial, args.longer_than, arm="candidate")
    else:
        base = load_scores(args.base, args.longer_than)
        candidate = load_scores(args.candidate, args.longer_than)
    for line in compare(base, candidate):
        print(line)


if __name__ == "__main__":
    main()
