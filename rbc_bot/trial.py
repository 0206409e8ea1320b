"""Trials: a candidate configuration and a control, each against the same opponent on the same seeds
and colours, their games interleaved so both play under the same load.

Why: on a machine of two cores the opponent's strength depends on the load beside it (StrangeFish
plays better with more CPU), so a candidate's match and the control's, played at different hours,
differ by more than the change. A trial schedules candidate game k and control game k next to each
other (``jobs`` at a time, two by default): whatever the machine does, it does to both arms alike.
Each arm is a normal match (``rbc_bot.match``: colour-swapped pairs, seed ``seed + pair``), so its
games pair one for one with the other arm's by seed and colour. One folder holds both; running the
same trial again (``--resume``) goes on where it stopped.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rbc_bot.gauntlet import Opponent, row_summary
from rbc_bot.match import MatchSettings, match_jobs, play_book, read_settings, validate_spec
from rbc_bot.players import BotSpec
from rbc_bot.runner import (
    RESULTS_FILE,
    Backend,
    GameJob,
    RecordBook,
    game_points,
    load_records,
    prepare_out_dir,
    write_json,
)
from rbc_bot.stats import PairedComparison, compare_paired

TRIAL_FILE = "trial.json"
ARMS = ("candidate", "control")


@dataclass
class TrialSettings:
    """Everything that defines a trial; saved as ``DIR/trial.json`` so ``--resume DIR`` can go on."""

    candidate: BotSpec
    control: BotSpec
    opponent: BotSpec
    games: int  # per arm
    seconds: float = 120.0
    increment: float = 5.0
    seed: int = 0
    jobs: int = 2
    watchdog_margin: float = 120.0

    def bot(self, name: str) -> BotSpec:
        """The arm's configuration of our bot."""
        return self.candidate if name == "candidate" else self.control

    def arm(self, name: str) -> MatchSettings:
        """The arm's match against the opponent (its games, clock and seeds are the trial's)."""
        return MatchSettings(
            a=self.bot(name),
            b=self.opponent,
            games=self.games,
            seconds=self.seconds,
            increment=self.increment,
            seed=self.seed,
            jobs=self.jobs,
            watchdog_margin=self.watchdog_margin,
        )

    def validate(self) -> None:
        """Reject a bad trial before any game (ValueError, or BotSpecError for a bot)."""
        if self.candidate == self.control:
            raise ValueError("the candidate and the control are the same bot: give --set or --control-set")
        self.arm("candidate").validate()
        validate_spec(self.control)

    def to_json(self) -> dict[str, Any]:
        return {name: self.arm(name).to_json() for name in ARMS}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrialSettings:
        candidate = MatchSettings.from_json(data["candidate"])
        control = MatchSettings.from_json(data["control"])
        return cls(
            candidate=candidate.a,
            control=control.a,
            opponent=candidate.b,
            games=candidate.games,
            seconds=candidate.seconds,
            increment=candidate.increment,
            seed=candidate.seed,
            jobs=candidate.jobs,
            watchdog_margin=candidate.watchdog_margin,
        )


def trial_jobs(settings: TrialSettings) -> list[GameJob]:
    """Game k of the candidate (index ``2k``), then game k of the control (``2k + 1``), and so on: the
    two arms' games of one seed and colour start next to each other."""
    jobs = []
    for number, name in enumerate(ARMS):
        for job in match_jobs(settings.arm(name)):
            jobs.append(replace(job, index=2 * job.index + number, meta={**job.meta, "arm": name}))
    return sorted(jobs, key=lambda job: job.index)


def arm_records(records: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [r for r in records if r["arm"] == name]


def arm_points(records: list[dict[str, Any]], name: str) -> dict[tuple[int, str], float]:
    """Each of the arm's games' points for our bot, keyed by (pair, our colour)."""
    return {(r["pair"], r["a_color"]): game_points(r, r["a_color"]) for r in arm_records(records, name)}


def trial_comparison(records: list[dict[str, Any]]) -> PairedComparison | None:
    """The candidate against the control on the games both arms have finished (None before any)."""
    try:
        return compare_paired(arm_points(records, "control"), arm_points(records, "candidate"))
    except ValueError:
        return None


def trial_rows(settings: TrialSettings, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One gauntlet-style row per arm (W-L-D, score, Elo, crashes, flags, clock unused)."""
    opponent = Opponent(settings.opponent.name, settings.opponent.spec, settings.seconds, settings.increment,
                        settings.games, settings.seed)  # fmt: skip
    return [
        {**row_summary(opponent, arm_records(records, name)), "arm": name,
         "settings": list(settings.bot(name).overrides)}
        for name in ARMS
    ]  # fmt: skip


def trial_summary(settings: TrialSettings, records: list[dict[str, Any]]) -> dict[str, Any]:
    comparison = trial_comparison(records)
    return {
        "trial": settings.to_json(),
        "arms": trial_rows(settings, records),
        "comparison": None if comparison is None else comparison_json(comparison),
        "games": records,
    }


def comparison_json(comparison: PairedComparison) -> dict[str, Any]:
    diff = comparison.difference
    return {
        "shared": comparison.shared,
        "control_points": comparison.base_points,
        "candidate_points": comparison.candidate_points,
        "better": comparison.better,
        "worse": comparison.worse,
        "sign_p": comparison.sign_p,
        "difference_per_100": 100 * diff.mean,
        "ci95_per_100": [100 * diff.low, 100 * diff.high],
        "games_needed": diff.games_needed,
    }


def comparison_lines(comparison: PairedComparison, base: str = "base") -> list[str]:
    """The totals on the shared games, the sign test, and the difference in points a game with its
    95 % CI and the paired games a difference of that size would need to show."""
    n, diff = comparison.shared, comparison.difference
    needed = (
        f"a difference this size needs about {diff.games_needed} paired games to show at 95 % (80 % power)"
        if diff.games_needed is not None
        else "no spread or no difference to size"
    )
    return [
        f"{n} shared games: {base} {comparison.base_points:.1f} ({comparison.base_points / n:.0%}), "
        f"candidate {comparison.candidate_points:.1f} ({comparison.candidate_points / n:.0%}); candidate "
        f"better on {comparison.better}, worse on {comparison.worse}, sign test p = {comparison.sign_p:.2f}",
        f"difference {100 * diff.mean:+.1f} points per 100 games (95 % CI {100 * diff.low:+.1f} .. "
        f"{100 * diff.high:+.1f}); {needed}",
    ]


def run_trial(
    settings: TrialSettings,
    out_dir: Path,
    *,
    resume: bool = False,
    isolate: bool = True,
    on_record: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None,
    backend: Backend | None = None,
    start_until: float | None = None,
) -> dict[str, Any]:
    """Play (or, with ``resume``, finish) a trial in ``out_dir`` and return its summary: records in
    ``results.jsonl`` as each game ends, ``summary.json`` rewritten after every game (as a match)."""
    out_dir = prepare_out_dir(out_dir, resume, f"use --resume {out_dir} or another --out")
    write_json(out_dir / TRIAL_FILE, settings.to_json())
    results_path = out_dir / RESULTS_FILE
    jobs = trial_jobs(settings)
    planned = {job.index for job in jobs}
    book = RecordBook(
        out_dir,
        lambda records: trial_summary(settings, records),
        [r for r in load_records(results_path) if r["index"] in planned],
        on_record,
    )
    return play_book(settings.arm("candidate"), jobs, out_dir, book, isolate=isolate, backend=backend,
                     start_until=start_until)  # fmt: skip


def load_trial(out_dir: Path) -> TrialSettings:
    """The settings of the trial in ``out_dir`` (for ``--resume``)."""
    return read_settings(out_dir, TRIAL_FILE, "trial", TrialSettings.from_json)
