"""On which turns of a trial could the danger rule's "we stand well" mode act, and what sensed there?

Usage: python ahead_turns.py TRIAL_DIR [TRIAL_DIR ...]

Why (session 49): the trial of ``sense.danger_ahead_cp=1000000`` removes that mode in beliefs over
``sense.danger_always_below`` boards (below it the rule senses any threat anyway). The arms' games
part from the first turn, so the score alone cannot say whether the change or chance decided them.
Per arm: the turns where the mode's conditions held (more than 1,000 boards after the opponent's
move, the previous chosen move's worst board at ``sense.danger_ahead_cp``'s default or better, a
threat on more than none and under ``sense.danger_min_share`` of the sampled boards), the rules that
took the sense there and the median share of the boards it kept, and the games with such turns
against the others, with their points.
"""

from __future__ import annotations

import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from turn_logs import boards_kept, chosen_score, our_turns, outcome, print_arm_reports, results

from rbc_bot.config import SenseConfig

LARGE = SenseConfig.danger_always_below
AHEAD_CP = SenseConfig.danger_ahead_cp


def mode_turns(turns: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The turns where the default's "we stand well" mode would sense a rare threat."""
    found, last_worst = [], 0.0
    for turn in turns:
        share = turn.get("danger_share") or 0.0
        large = turn["belief"]["after_opponent"][0] > LARGE
        if large and last_worst >= AHEAD_CP and 0.0 < share < SenseConfig.danger_min_share:
            found.append(turn)
        worst = chosen_score(turn, "worst")
        last_worst = last_worst if worst is None else worst
    return found


def report(run: Path, arm: str | None) -> str:
    """One arm's line: the mode's turns, their rules and share kept, and the games' points."""
    hits: list[dict[str, Any]] = []
    with_hits, without = [], []
    for result in results(run, arm):
        found = mode_turns(our_turns(run, result))
        hits += found
        (with_hits if found else without).append((1.0, 0.0, 0.5)[outcome(result)])
    rules = ", ".join(f"{rule} {n}" for rule, n in Counter(t.get("sense_rule") for t in hits).most_common())
    kept = [k for k in (boards_kept(t) for t in hits) if k is not None]
    median_kept = f"{statistics.median(kept):.1%}" if kept else "-"
    return (
        f"{run.name} [{arm}]: {len(hits)} turns in {len(with_hits)} games (scoring {sum(with_hits):.1f}); "
        f"rules {rules or '-'}; sense kept a median {median_kept}; "
        f"the other {len(without)} games {sum(without):.1f}"
    )


def main() -> None:
    print_arm_reports("Where the danger rule's ahead mode could act.", report)


if __name__ == "__main__":
    main()
