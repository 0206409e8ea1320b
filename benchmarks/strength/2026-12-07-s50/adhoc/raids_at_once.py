"""How the king captures taken at once went, by the belief they were taken on and how well we stood.

Usage: python raids_at_once.py RUN_DIR [RUN_DIR ...]

Why (session 50): the move selector takes a king capture at once when it works on at least
``move.king_capture_share`` (0.3) of the believed boards; a miss often hangs the capturing piece.
Against StrangeFish such a bet is worth taking when the game is level and not when it is won anyway,
which the rule does not ask. Per arm: the raids on more than one board after the sense, hit (the game
ended on that move with our win) or missed, by the boards believed after the sense and by the previous
chosen move's mean over the scored boards (``STANDING`` bands); after a miss, the games' points.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from turn_logs import arms, check_runs, chosen_score, our_turns, points, raid_hit, results

BELIEF_BANDS = ((2, "2-9"), (10, "10-99"), (100, "100+"))  # boards after the sense, from each floor
STANDING = ((-1e9, "behind"), (-300.0, "level"), (300.0, "ahead"))  # the last chosen mean, from each floor


def band(value: float, bands: tuple[tuple[float, str], ...]) -> str:
    """The name of the last band whose floor ``value`` reaches."""
    return [name for floor, name in bands if value >= floor][-1]


def raids(turns: list[dict[str, Any]], won: bool) -> list[tuple[str, str, bool]]:
    """Each raid on more than one board: its belief band, the standing band before it, whether it hit."""
    found, standing = [], 0.0
    for i, turn in enumerate(turns):
        boards = turn["belief"]["after_sense"][0]
        if turn.get("move_reason") == "king-capture" and boards > 1:
            found.append((band(boards, BELIEF_BANDS), band(standing, STANDING), raid_hit(turns, i, won)))
        mean = chosen_score(turn)
        if mean is not None:
            standing = mean
    return found


@dataclass
class Tally:
    """Raids hit (True) or missed, by belief band and by standing band; games and points after a miss."""

    by_belief: Counter[tuple[str, bool]] = field(default_factory=Counter)
    by_standing: Counter[tuple[str, bool]] = field(default_factory=Counter)
    games_after_miss: Counter[str] = field(default_factory=Counter)
    points_after_miss: dict[str, float] = field(default_factory=dict)

    def add(self, other: Tally) -> None:
        self.by_belief.update(other.by_belief)
        self.by_standing.update(other.by_standing)
        self.games_after_miss.update(other.games_after_miss)
        for name, scored in other.points_after_miss.items():
            self.points_after_miss[name] = self.points_after_miss.get(name, 0.0) + scored

    def line(self) -> str:
        belief = self.by_belief
        beliefs = ", ".join(f"{b} {belief[b, True]}/{belief[b, False]}" for _, b in BELIEF_BANDS)
        standings = ", ".join(
            f"{s} {self.by_standing[s, True]}/{self.by_standing[s, False]} (games after a miss"
            f" {self.points_after_miss.get(s, 0.0):g} of {self.games_after_miss[s]})"
            for _, s in STANDING
        )
        return f"hit/missed by boards {beliefs}; by standing {standings}"


def tally(run: Path, arm: str | None) -> Tally:
    """The raids of one arm of a run folder."""
    counted = Tally()
    for result in results(run, arm):
        scored = points(result)
        found = raids(our_turns(run, result), scored == 1.0)
        for belief, standing, hit in found:
            counted.by_belief[belief, hit] += 1
            counted.by_standing[standing, hit] += 1
        for standing in {standing for _, standing, hit in found if not hit}:
            counted.games_after_miss[standing] += 1
            counted.points_after_miss[standing] = counted.points_after_miss.get(standing, 0.0) + scored
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description="King captures taken at once, by belief and standing.")
    parser.add_argument("runs", nargs="+", type=Path, metavar="RUN_DIR", help="a match's or trial's folder")
    runs = parser.parse_args().runs
    check_runs(runs, parser.prog)
    total = Tally()
    for run in runs:
        for arm in arms(run):
            counted = tally(run, arm)
            total.add(counted)
            print(f"{run.parent.name}/{run.name} {arm or 'match'}: {counted.line()}")
    print(f"all: {total.line()}")


if __name__ == "__main__":
    main()
