"""What happens on the turns where the belief first passes 1,000 boards?

Usage: python blowups.py RUN_DIR [RUN_DIR ...]

Why (session 48): the games whose belief passed 1,000 boards after a sense score far below the others
against StrangeFish, and the changes tried on the move in such beliefs found no gain. This asks where
the boards come from instead: on each turn where the belief after our sense passes 1,000 boards having
held at most 1,000 at the previous turn, how much the opponent's unseen move multiplied the belief
(boards after its move over boards after ours), whether it captured, which sense rule chose the sense
and what share of the boards that sense kept; and the same figures for the turns that began from
101-1,000 boards and stayed at or under 1,000, to compare against. Only our side's turn logs are read.
Last, the games in which the danger rule sensed a threat on under ``sense.danger_min_share`` of more
than 1,000 boards (its "we stand well on every board" mode, `sense.danger_ahead_cp`, chosen against
TroutBot in session 2) and what they scored, against the other games.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from turn_logs import arms, check_runs, our_turns, outcome, results

from rbc_bot.config import SenseConfig

LARGE = 1000
FROM = 100


def passes(before: int, now: int) -> bool:
    """Whether a belief of ``before`` boards at our previous turn (after the sense) first passed
    ``LARGE`` boards with ``now`` at this turn, from ``FROM``+1..``LARGE``."""
    return FROM < before <= LARGE < now


def default_games(runs: list[Path]) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(folder, game record) for each game of the folders: a match's every game, a trial's control
    arm only (its candidate is not the default)."""
    for run in runs:
        for arm in arms(run):
            if arm != "candidate":
                yield from ((run, result) for result in results(run, arm))


def transitions(turns: list[dict[str, Any]]) -> list[tuple[bool, dict[str, Any], dict[str, Any]]]:
    """(blew up, previous turn, turn) for each turn whose previous turn held FROM+1..LARGE boards."""
    out = []
    for before, turn in itertools.pairwise(turns):
        prev = before.get("belief", {}).get("after_sense", [0])[0]
        now = turn.get("belief", {}).get("after_sense", [0])[0]
        if FROM < prev <= LARGE and now and "after_move" in before["belief"]:
            out.append((passes(prev, now), before, turn))
    return out


def describe(rows: list[tuple[dict[str, Any], dict[str, Any]]]) -> str:
    """Median expansion factor, capture share, sense rules and the median share kept by the sense."""
    if not rows:
        return "none"
    growth = [t["belief"]["after_opponent"][0] / max(1, b["belief"]["after_move"][0]) for b, t in rows]
    kept = [t["belief"]["after_sense"][0] / max(1, t["belief"]["after_opponent"][0]) for _, t in rows]
    captured = sum(t.get("opponent_capture_square") is not None for _, t in rows)
    counts = Counter(t.get("sense_rule") or "none" for _, t in rows).most_common()
    rules = ", ".join(f"{rule} {n}" for rule, n in counts)
    return (
        f"{len(rows)} turns: expansion x{statistics.median(growth):.1f} (p90 x{p90(growth):.1f}), "
        f"a capture on {captured / len(rows):.0%}, sense kept {statistics.median(kept):.1%} "
        f"(p90 {p90(kept):.1%}); rules {rules}"
    )


def p90(values: list[float]) -> float:
    """The 90th percentile (the value nine tenths of the way up the sorted list)."""
    return sorted(values)[int(0.9 * (len(values) - 1))]


def ahead_mode_turns(turns: list[dict[str, Any]]) -> int:
    """Turns on which the danger rule sensed a rare threat in a belief over ``LARGE`` boards: only its
    "we stand well" mode senses a threat under the minimum share there (the opening mode is off)."""
    return sum(
        t.get("sense_rule") == "danger"
        and t["belief"]["after_opponent"][0] > LARGE
        and (t.get("danger_share") or 0.0) < SenseConfig.danger_min_share
        for t in turns
    )


def main() -> None:
    parser = argparse.ArgumentParser(description="The turns where the belief passes 1,000 boards.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR")
    blew: list[tuple[dict[str, Any], dict[str, Any]]] = []
    stayed: list[tuple[dict[str, Any], dict[str, Any]]] = []
    games, games_blown, points_blown = 0, 0, 0.0
    ahead: list[tuple[int, float]] = []  # per game: ahead-mode turns, points
    runs = parser.parse_args().runs
    check_runs(runs, parser.prog)
    for run, result in default_games(runs):
        turns = our_turns(run, result)
        found = transitions(turns)
        points = (1.0, 0.0, 0.5)[outcome(result)]
        ahead.append((ahead_mode_turns(turns), points))
        games += 1
        if any(up for up, _, _ in found):
            games_blown += 1
            points_blown += points
        for up, before, turn in found:
            (blew if up else stayed).append((before, turn))
    print(
        f"{games} games (every folder given; of a trial only the control arm); "
        f"{games_blown} passed {LARGE} from {FROM + 1}-{LARGE} boards, scoring {points_blown:.1f}"
    )
    print(f"passed {LARGE}: {describe(blew)}")
    print(f"stayed:     {describe(stayed)}")
    sensed = [points for turns, points in ahead if turns]
    others = [points for turns, points in ahead if not turns]
    print(
        f"danger senses of a rare threat on over {LARGE} boards: {sum(t for t, _ in ahead)} turns in "
        f"{len(sensed)} games, scoring {sum(sensed):.1f}; the other {len(others)} games {sum(others):.1f}"
    )


if __name__ == "__main__":
    main()
