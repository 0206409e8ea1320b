"""The gauntlet: our bot against a fixed set of opponents, one colour-swapped match each.

One command answers "is this configuration strong?" with the same games every time: the same
opponents, clocks and seeds, so two configurations are compared on equal terms. Each opponent's
match lives in its own folder (``DIR/<opponent>/``, a normal match folder), so running the same
gauntlet into the same ``DIR`` again resumes every match where it stopped.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from rbc_bot.match import MATCH_FILE, MatchSettings, load_match, match_totals, run_match
from rbc_bot.players import BotSpec
from rbc_bot.runner import Backend

STRANGEFISH = (
    Path(__file__).resolve().parent.parent.parent / "shared/opponents/strangefish/strangefish_bot.py"
)
"""Where the sparring partner lies beside a checkout of this repository (``../shared/opponents``)."""
OPEN_ELO = 3000
"""An Elo bound this far out is the estimator's clip (every game won or lost): shown as open."""


@dataclass(frozen=True)
class Opponent:
    """One row of the gauntlet: who, at which clock, how many games, from which seed."""

    name: str
    spec: str
    seconds: float
    increment: float
    games: int
    seed: int


def default_opponents(strangefish: Path = STRANGEFISH, games: int | None = None) -> list[Opponent]:
    """The fixed set: StrangeFish and TroutBot at 120 s + 5 s, AttackerBot and RandomBot at 60 s + 2 s."""
    rows = [
        Opponent("strangefish", str(strangefish.resolve()), 120, 5, 20, 1000),
        Opponent("trout", "trout", 120, 5, 20, 300),
        Opponent("attacker", "attacker", 60, 2, 20, 200),
        Opponent("random", "random", 60, 2, 20, 100),
    ]
    return [replace(row, games=games) for row in rows] if games is not None else rows


def match_settings(ours: BotSpec, opponent: Opponent, jobs: int = 1) -> MatchSettings:
    return MatchSettings(
        a=ours,
        b=BotSpec(opponent.spec),
        games=opponent.games,
        seconds=opponent.seconds,
        increment=opponent.increment,
        seed=opponent.seed,
        jobs=jobs,
    )


def check_resumable(settings: MatchSettings, folder: Path) -> bool:
    """Whether ``folder`` holds this match already; a different match there is an error, naming the file."""
    if not (folder / MATCH_FILE).exists():
        return False
    saved, _ = load_match(folder)
    same = (saved.a, saved.b, saved.seconds, saved.increment, saved.seed) == (
        settings.a,
        settings.b,
        settings.seconds,
        settings.increment,
        settings.seed,
    )
    if not same:
        raise ValueError(
            f"{folder / MATCH_FILE} holds another match (bots, clock or seed differ); use another --out"
        )
    return True


def clock_unused(record: dict[str, Any], color: str) -> float:
    """The share of the clock ``color`` had in the game (base plus its increments) that it left unused."""
    turns = (record["plies"] + (1 if color == "white" else 0)) // 2
    available = record["seconds"] + record["increment"] * turns
    return max(0.0, record["seconds_left"][color]) / available if available > 0 else 0.0


def row_summary(opponent: Opponent, records: list[dict[str, Any]]) -> dict[str, Any]:
    """One line of the gauntlet table, from our bot's side (A)."""
    totals = match_totals(records)
    ours = [r["a_color"] for r in records]
    unused = [clock_unused(r, color) for r, color in zip(records, ours, strict=True)]
    return {
        "opponent": opponent.name,
        "spec": opponent.spec,
        "clock": f"{opponent.seconds:g}+{opponent.increment:g}",
        "seed": opponent.seed,
        "planned": opponent.games,
        "games": totals["games"],
        "wins": totals["wins"],
        "losses": totals["losses"],
        "draws": totals["draws"],
        "score": totals["score"],
        "elo": totals["elo"],
        "elo_lower": totals["elo_lower"],
        "elo_upper": totals["elo_upper"],
        "crashes": totals["a_crashes"],
        "flags": sum(1 for r in records if r["timed_out"] is not None and r["timed_out"] == r["a_color"]),
        "median_clock_unused": statistics.median(unused) if unused else None,
        "wins_as_white": sum(1 for r in records if r["a_color"] == "white" and r["winner"] == "white"),
        "wins_as_black": sum(1 for r in records if r["a_color"] == "black" and r["winner"] == "black"),
    }


def run_gauntlet(
    ours: BotSpec,
    opponents: list[Opponent],
    out_dir: Path,
    *,
    jobs: int = 1,
    on_record: Callable[[Opponent, dict[str, Any], list[dict[str, Any]]], None] | None = None,
    backend: Backend | None = None,
    start_until: float | None = None,
) -> list[dict[str, Any]]:
    """Play (or resume) each opponent's match in ``out_dir/<name>`` and return the table's rows.

    Every match is checked before the first game, so a bad spec or a folder holding another match
    fails at once rather than an hour in. ``start_until`` (``time.monotonic()``) holds for the whole
    gauntlet: past it no game starts, whichever opponent is next.
    """
    plan = []
    for opponent in opponents:
        settings = match_settings(ours, opponent, jobs)
        settings.validate()
        folder = out_dir / opponent.name
        plan.append((opponent, settings, folder, check_resumable(settings, folder)))
    rows = []
    for opponent, settings, folder, resume in plan:

        def forward(record: dict[str, Any], records: list[dict[str, Any]], row: Opponent = opponent) -> None:
            if on_record is not None:
                on_record(row, record, records)

        summary = run_match(
            settings, folder, resume=resume, on_record=forward, backend=backend, start_until=start_until
        )
        rows.append(row_summary(opponent, summary["games"]))
    return rows


def markdown_table(rows: list[dict[str, Any]]) -> str:
    """The table the README carries: one line per opponent."""
    lines = [
        "| opponent | clock | games | W-L-D | score | Elo (95 % CI) | crashes | flags "
        "| median clock unused |",
        "|---|---|---:|---|---:|---|---:|---:|---:|",
    ]
    for row in rows:
        score = "-" if row["score"] is None else f"{100 * row['score']:.1f} %"
        lines.append(
            f"| {row['opponent']} | {row['clock']} | {row['games']} "
            f"| {row['wins']}-{row['losses']}-{row['draws']} | {score} | {elo_text(row)} "
            f"| {row['crashes']} | {row['flags']} | {percent(row['median_clock_unused'])} |"
        )
    return "\n".join(lines) + "\n"


def elo_text(row: dict[str, Any]) -> str:
    """``+120 [+40, +210]``; an open end (every game won or lost) is shown as such."""
    if row["elo"] is None:
        return "-"

    def bound(value: float | None) -> str:
        return "open" if value is None or abs(value) >= OPEN_ELO else f"{value:+.0f}"

    return f"{row['elo']:+.0f} [{bound(row['elo_lower'])}, {bound(row['elo_upper'])}]"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.0f} %"
