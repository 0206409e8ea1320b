"""The clock and reliability figures of match runs, from the per-turn logs beside their replays.

Usage: python benchmarks/turn_logs.py RUN_DIR [RUN_DIR ...] [--senses [--min-believed N] [--max-believed N]]
       [--collapse] [--belief] [--scored]
(RUN_DIR: the --out folders of `run_bot.py match`, or of `run_bot.py trial`, whose arms are reported apart)

Per run: games, W-L-D, our turns, seconds a turn (expansion + sense + move: mean and max), the turns
that ran past 1.2x their budget, the worst ratio of a turn's time to its budget and the median share
of its budget a turn used, the least clock left at any of our turns, the median share of the clock
(base plus increments) left unused at the end of a game (the issue's 300+5 target), the moves chosen
on the passive watch's boards (rbc_bot/passive.py), internal errors and engine restarts. The strength
tables' "s a turn", "kept at least" and "zero errors / restarts" come from here (the match's own
summary.json gives W-L-D and Elo).

With ``--senses``, a second line per run says what each sense rule did in the games: on how many
turns it chose the sense, and the median share of the boards its sense kept (boards after the sense
over boards after the opponent's move; turns that began with one board, where there is nothing to
tell apart, are left out), optionally only on turns that began with N..M boards. A sense setting that
the engine-free screens say keeps fewer boards (``benchmarks/danger_senses.py``) shows here whether
it did so in real games.

With ``--collapse``, a line per run says when the games went wrong: each game is put in the ten-turn
span in which our own view of it collapsed (the chosen move's mean over the believed boards at
-300 cp or worse on three turns in a row that held at most 50 boards, where that mean is close to
the truth), or "never", with the points scored there; and how the early king-capture raids (on a
belief of more than one board, in our first 12 turns) went: the games with one, how many of them hit
the king at once, their points. On the 120 games of sessions 15-16's tolerance, queen-penalty and
fill rows (all with turn logs), 23 had an early raid: 5 hit, the 23 scored 52 % where the other 97
scored 69 %. Kept records that hold only the losses' logs give a biased view: the line counts the
games without logs.

With ``--belief``, a line per run gives the games by the largest belief after any of our senses (under
100 boards, 100-999, 1,000-4,999, 5,000 or more) with their W-L-D: whether the games we lose are the
games in which we lost track. On the 178 games against StrangeFish of sessions 14-18 whose every game
kept its logs (the rows g-sf-dtol01, -guard12, -qp, -fill, -odds16) they were: under 100 13-0-0,
100-999 39-11-1, 1,000-4,999 28-22-1, 5,000 or more 33-29-1. (Kept records that hold only the
losses' logs would make the larger bands look worse still.)

With ``--scored``, a line per run gives W-L-D of the games whose moves scored under half the boards
they could (the median over the game's engine-chosen moves on 20+ believed boards of boards scored
over the fewer of the believed boards and ``move.max_boards``) and of the others, and, where the logs
carry it, the engine's fixed cost per search at a game's first turn and at its last: the bound that
held such games to a few boards (the fixed cost bounds how many searches a budget can pay). On the 100
games of sessions 36-38's default rows, the 16 under half scored 75 %, the other 84 scored 85 %.
"""

from __future__ import annotations

import argparse
import bisect
import json
import statistics
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from openings import beside

from rbc_bot.config import MoveConfig
from rbc_bot.gauntlet import clock_unused

OVERRUN = 1.2  # a turn past this many times its budget ran over


def turn_seconds(turn: dict) -> float:
    """Our clock's share of a turn: expansion of the opponent's move, sense and move. Logs written
    before ``seconds_turn`` existed lack the expansion, so their figure is sense plus move."""
    if "seconds_turn" in turn:
        return float(turn["seconds_turn"])
    return (turn.get("seconds_sense") or 0) + (turn.get("seconds_move") or 0)


TRIAL_ARMS = ("control", "candidate")  # a trial folder's two arms, in the order they are reported


def results(run: Path, arm: str | None = None) -> list[dict[str, Any]]:
    """The games of a match folder, or of one ``arm`` of a trial folder."""
    records = [json.loads(line) for line in (run / "results.jsonl").read_text().splitlines() if line.strip()]
    return records if arm is None else [record for record in records if record.get("arm") == arm]


def arms(run: Path) -> list[str | None]:
    """What to report of a folder apart: a trial folder's arms (each a bot configuration of its own),
    or ``[None]`` for a match folder, reported whole."""
    present = {record.get("arm") for record in results(run)}
    return [arm for arm in TRIAL_ARMS if arm in present] or [None]


def outcome(result: dict[str, Any]) -> int:
    """0 for our win, 1 for our loss, 2 for a draw: an index into a W-L-D count."""
    return 2 if result["winner"] is None else 0 if result["winner"] == result["a_color"] else 1


def points(result: dict[str, Any]) -> float:
    """Our points in one game: 1 for a win, 0.5 for a draw, 0 for a loss."""
    return (1.0, 0.0, 0.5)[outcome(result)]


def turn_logs(run: Path, result: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The turn logs of one game that are still there: the run folder may have moved since it was
    played, and kept records hold only the losses' logs, in ``losses/``."""
    found = [beside(run, log) for log in (result.get("turn_logs") or {}).values()]
    return [[json.loads(row) for row in path.read_text().splitlines()] for path in found if path]


def our_turns(run: Path, result: dict[str, Any]) -> list[dict[str, Any]]:
    """Our bot's turn log of one game (empty if it is not there)."""
    ours = (result.get("turn_logs") or {}).get(result["a_color"])
    logs = turn_logs(run, {"turn_logs": {"ours": ours}}) if ours else []
    return logs[0] if logs else []


def summarise(run: Path, arm: str | None = None) -> str:
    """The run's (or the trial arm's) clock and reliability line; W-L-D from its games' records."""
    games = results(run, arm)
    wld = [sum(outcome(result) == i for result in games) for i in range(3)]
    seconds: list[float] = []
    ratios: list[float] = []  # a turn's time over its budget
    unused: list[float] = []
    least_left, errors, restarts, watched = float("inf"), 0, 0, 0
    for result in games:
        unused.append(clock_unused(result, result["a_color"]))
        for turns in turn_logs(run, result):
            seconds += [turn_seconds(t) for t in turns]
            ratios += [turn_seconds(t) / t["budget"] for t in turns if t.get("budget")]
            least_left = min([least_left, *(t["seconds_left"] for t in turns if "seconds_left" in t)])
            errors += turns[-1].get("errors", 0) if turns else 0
            restarts += sum(t.get("engine_restarts", 0) for t in turns)
            watched += sum("passive_boards" in t for t in turns)
    mean = sum(seconds) / len(seconds) if seconds else 0.0
    return (
        f"{run}{f' [{arm}]' if arm else ''}: {len(games)} games {'-'.join(map(str, wld))} | "
        f"{len(seconds)} turns, {mean:.2f} s a turn (max {max(seconds, default=0):.1f}), "
        f"{sum(r > OVERRUN for r in ratios)} past {OVERRUN}x their budget "
        f"(worst {max(ratios, default=0):.2f}x, median {statistics.median(ratios or [0.0]):.0%} used), "
        f"least left {least_left:.1f} s, median clock unused {statistics.median(unused or [0.0]):.0%} | "
        f"{watched} moves chosen on the passive watch's boards | errors {errors}, engine restarts {restarts}"
    )


def boards_kept(turn: dict[str, Any]) -> float | None:
    """The share of the boards the turn's sense kept, or None when the turn began with one board."""
    before, after = turn["belief"]["after_opponent"][0], turn["belief"]["after_sense"][0]
    return after / before if before > 1 else None


def senses(run: Path, min_believed: int = 0, max_believed: int | None = None, arm: str | None = None) -> str:
    """Per sense rule: the turns it chose the sense on and the median share of the boards kept."""
    kept: dict[str, list[float]] = {}
    for result in results(run, arm):
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


COLLAPSE_CP = -300.0  # our mean over the believed boards at or below this: the game has gone wrong
COLLAPSE_RUN = 3  # ... on this many turns in a row
COLLAPSE_BOARDS = 50  # ... each of them holding at most this many boards after the sense
EARLY_TURNS = 12  # a raid in our first turns is an "early raid"


def chosen_score(turn: dict[str, Any], field: str = "mean") -> float | None:
    """The chosen move's centipawns over the scored boards (``field``: "mean" or "worst"), when the
    turn logged it."""
    scores = [c[field] for c in turn.get("candidates") or [] if c.get("move") == turn.get("chosen_move")]
    return float(scores[0]) if scores else None


def collapse_turn(turns: list[dict[str, Any]]) -> int | None:
    """The first turn of the first ``COLLAPSE_RUN`` small-belief turns in a row with our chosen move's
    mean at ``COLLAPSE_CP`` or worse, or None if the game never collapsed so."""
    seen = [
        (t["turn"], mean)
        for t in turns
        if (mean := chosen_score(t)) is not None and t["belief"]["after_sense"][0] <= COLLAPSE_BOARDS
    ]
    for i in range(len(seen) - COLLAPSE_RUN + 1):
        if all(mean <= COLLAPSE_CP for _, mean in seen[i : i + COLLAPSE_RUN]):
            return seen[i][0]
    return None


def raid_hit(turns: list[dict[str, Any]], index: int, won: bool) -> bool:
    """Whether the king capture taken on ``turns[index]`` hit: the game ended on it, with our win."""
    return won and index == len(turns) - 1


def early_raid(turns: list[dict[str, Any]], won: bool) -> str | None:
    """For a game whose first king-capture raid on more than one believed board came in our first
    ``EARLY_TURNS`` turns: "hit" (it ended the game at once, with our win) or "miss"; else None."""
    for i, turn in enumerate(turns[:EARLY_TURNS]):
        if turn.get("move_reason") == "king-capture" and turn["belief"]["after_sense"][0] > 1:
            return "hit" if raid_hit(turns, i, won) else "miss"
    return None


def collapses(run: Path, arm: str | None = None) -> str:
    """When each game went wrong (ten-turn spans of ``collapse_turn``) and how the early raids went."""
    spans: dict[str, list[float]] = {}
    raids: dict[str, list[float]] = {"hit": [], "miss": []}
    without_logs = 0
    for result in results(run, arm):
        turns = our_turns(run, result)
        if not turns:
            without_logs += 1
            continue
        scored = points(result)
        turn = collapse_turn(turns)
        span = "never" if turn is None else f"{turn // 10 * 10}-{turn // 10 * 10 + 9}"
        spans.setdefault(span, []).append(scored)
        raid = early_raid(turns, scored == 1.0)
        if raid:
            raids[raid].append(scored)
    order = sorted(spans, key=lambda s: (s == "never", int(s.split("-")[0]) if s != "never" else 0))
    parts = [f"{span}: {len(spans[span])} games {sum(spans[span]):g} pts" for span in order]
    raided = raids["hit"] + raids["miss"]
    return (
        f"  collapse (mean <= {COLLAPSE_CP:g} cp on {COLLAPSE_RUN} turns of <= {COLLAPSE_BOARDS} boards), "
        f"by turn: {'; '.join(parts) or 'no game with turn logs'} | early raids (first {EARLY_TURNS} "
        f"turns, > 1 board): {len(raided)} games, {len(raids['hit'])} hit at once, {sum(raided):g} pts | "
        f"{without_logs} games without our turn log"
    )


BELIEF_BANDS = (100, 1_000, 5_000)  # where one band of largest beliefs ends and the next begins
BELIEF_BAND_NAMES = ("<100", "100-999", "1000-4999", "5000+")


def beliefs(run: Path, arm: str | None = None) -> str:
    """W-L-D of the games by the largest belief any of our senses left."""
    bands: dict[str, list[int]] = {}
    for result in results(run, arm):
        sizes = [
            t["belief"]["after_sense"][0]
            for t in our_turns(run, result)
            if "after_sense" in t.get("belief", {})
        ]
        if not sizes:
            continue
        band = BELIEF_BAND_NAMES[bisect.bisect_right(BELIEF_BANDS, max(sizes))]
        bands.setdefault(band, [0, 0, 0])[outcome(result)] += 1
    parts = [f"{band} {'-'.join(map(str, bands[band]))}" for band in BELIEF_BAND_NAMES if band in bands]
    return f"  largest belief after a sense: {'; '.join(parts) or 'no game with our turn log'}"


SCORED_MIN_BELIEVED = 20  # moves on fewer believed boards than this say nothing of the bound
SCORED_MIN_TURNS = 3  # games with fewer such moves are left out


def scored_share(turns: list[dict[str, Any]], max_boards: int = MoveConfig.max_boards) -> float | None:
    """The median share of the boards it could score that the game's engine-chosen moves scored, or
    None for a game with fewer than ``SCORED_MIN_TURNS`` such moves on enough boards."""
    shares = [
        t["boards_scored"] / min(t["belief"]["after_sense"][0], max_boards)
        for t in turns
        if t.get("move_reason") == "best-worst"
        and not t.get("panic")
        and t["belief"]["after_sense"][0] >= SCORED_MIN_BELIEVED
    ]
    return statistics.median(shares) if len(shares) >= SCORED_MIN_TURNS else None


def scored(run: Path, arm: str | None = None) -> str:
    """W-L-D of the games whose moves scored under half the boards they could and of the others, and
    the fixed cost per search logged at each game's first and last turn."""
    bands: dict[str, list[int]] = {"under half": [0, 0, 0], "half or more": [0, 0, 0]}
    first: list[float] = []
    last: list[float] = []
    for result in results(run, arm):
        turns = our_turns(run, result)
        costs = [t["fixed_cost_ms"] for t in turns if t.get("fixed_cost_ms") is not None]
        if costs:
            first.append(costs[0])
            last.append(costs[-1])
        share = scored_share(turns)
        if share is None:
            continue
        bands["under half" if share < 0.5 else "half or more"][outcome(result)] += 1
    parts = [f"{band} {'-'.join(map(str, wld))}" for band, wld in bands.items()]
    cost = (
        f"fixed cost per search in {len(first)} games: first turn median {statistics.median(first):.2f} ms "
        f"(largest {max(first):.2f}), last turn median {statistics.median(last):.2f} ms "
        f"(largest {max(last):.2f})"
        if first
        else "no fixed cost logged"
    )
    return (
        f"  boards scored (median share of those it could, games of {SCORED_MIN_TURNS}+ moves on "
        f"{SCORED_MIN_BELIEVED}+ boards): {'; '.join(parts)} | {cost}"
    )


def check_runs(runs: list[Path], program: str) -> None:
    """Exit with one line on stderr if a folder given is not a match's or trial's (no results.jsonl)."""
    missing = [run for run in runs if not (run / "results.jsonl").is_file()]
    if missing:
        sys.exit(f"{program}: error: not a match or trial folder (no results.jsonl): {missing[0]}")


def print_arm_reports(description: str, report: Callable[[Path, str | None], str]) -> None:
    """The command line of a script that prints ``report``'s line for each arm of each folder given."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="a match's or trial's folder")
    runs = parser.parse_args().runs
    check_runs(runs, parser.prog)
    for run in runs:
        for arm in arms(run):
            print(report(run, arm))


def main() -> None:
    parser = argparse.ArgumentParser(description="Clock and reliability figures of match runs.")
    parser.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN_DIR", help="a match's or trial's --out folder"
    )
    parser.add_argument("--senses", action="store_true", help="what each sense rule kept of the boards")
    parser.add_argument("--min-believed", type=int, default=0, help="sense figures: turns from N boards")
    parser.add_argument("--max-believed", type=int, default=None, help="sense figures: turns up to N boards")
    parser.add_argument("--collapse", action="store_true", help="when the games went wrong; early raids")
    parser.add_argument("--belief", action="store_true", help="W-L-D by the largest belief after a sense")
    parser.add_argument("--scored", action="store_true", help="W-L-D by the share of boards scored")
    args = parser.parse_args()
    check_runs(args.runs, parser.prog)
    for run in args.runs:
        for arm in arms(run):
            print(summarise(run, arm))
            if args.senses:
                print(senses(run, args.min_believed, args.max_believed, arm))
            if args.collapse:
                print(collapses(run, arm))
            if args.belief:
                print(beliefs(run, arm))
            if args.scored:
                print(scored(run, arm))


if __name__ == "__main__":
    main()
