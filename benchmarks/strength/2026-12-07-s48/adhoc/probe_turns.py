"""Where did ``move.probe_cp`` act in a trial's games, and did its arm keep smaller beliefs?

Usage: python probe_turns.py TRIAL_DIR [TRIAL_DIR ...]

Why (session 48): the probe pay buys moves whose answer (the move taken, its capture square) is
expected to rule out believed boards. If it works as meant, the candidate arm's beliefs after a sense
stay smaller than the control's, and its chosen moves carry the turn's largest pay where the pay is
large. Per arm: the share of our turns in each belief band (boards after the sense) and the median
belief after the sense from turn 10 on; for turns that logged a pay, per band, the median largest pay
among the candidates, the median pay of the chosen move, and how often the chosen move was the best
paid where that pay was 5 cp or more.
"""

from __future__ import annotations

import bisect
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
from turn_logs import our_turns, outcome, print_arm_reports, results

BANDS = (100, 1000)
BAND_NAMES = ("<=100", "101-1000", ">1000")
LARGE_PAY = 5.0


def report(run: Path, arm: str | None) -> str:
    """One arm's lines."""
    wld = [0, 0, 0]
    band_turns = {name: 0 for name in BAND_NAMES}
    late: list[int] = []
    best_pay: dict[str, list[float]] = {name: [] for name in BAND_NAMES}
    chosen_pay: dict[str, list[float]] = {name: [] for name in BAND_NAMES}
    took_best: dict[str, list[bool]] = {name: [] for name in BAND_NAMES}
    for result in results(run, arm):
        wld[outcome(result)] += 1
        for turn in our_turns(run, result):
            size = turn.get("belief", {}).get("after_sense", [0])[0]
            if not size:
                continue
            band = BAND_NAMES[bisect.bisect_left(BANDS, size)]
            band_turns[band] += 1
            if turn["turn"] >= 10:
                late.append(size)
            pays = {c["move"]: c["probe_pay"] for c in turn.get("candidates") or [] if "probe_pay" in c}
            if not pays:
                continue
            top = max(pays.values())
            best_pay[band].append(top)
            chosen_pay[band].append(pays.get(turn.get("chosen_move"), 0.0))
            if top >= LARGE_PAY:
                took_best[band].append(pays.get(turn.get("chosen_move"), 0.0) == top)
    total = sum(band_turns.values()) or 1
    lines = [
        f"{run.name} [{arm}]: {sum(wld)} games {'-'.join(map(str, wld))}; turns by belief after the sense: "
        + ", ".join(f"{name} {count} ({count / total:.0%})" for name, count in band_turns.items())
        + f"; median belief from turn 10: {statistics.median(late or [0]):.0f}"
    ]
    for name in BAND_NAMES:
        pays, chosen, took = best_pay[name], chosen_pay[name], took_best[name]
        if pays:
            lines.append(
                f"  {name}: {len(pays)} turns, best pay median {statistics.median(pays):.1f} cp, "
                f"chosen median {statistics.median(chosen):.1f} cp; chosen = best on "
                f"{sum(took)} of {len(took)} turns with a best pay >= {LARGE_PAY:.0f} cp"
            )
    return "\n".join(lines)


def main() -> None:
    print_arm_reports("Where the probe pay acted in a trial's games.", report)


if __name__ == "__main__":
    main()
