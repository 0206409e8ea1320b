"""Matches: A against B in colour-swapped pairs sharing a seed; Elo with a confidence interval, a
pentanomial SPRT, and resuming a stopped match (games through ``rbc_bot.runner``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from rbc_bot import stats
from rbc_bot.game import HANG
from rbc_bot.players import BotSpec, BotSpecError
from rbc_bot.runner import (
    RESULTS_FILE,
    Backend,
    GameJob,
    RecordBook,
    game_points,
    load_records,
    prepare_out_dir,
    run_games,
    write_json,
)
from rbc_bot.start import position_for, start_board

log = logging.getLogger(__name__)

MATCH_FILE = "match.json"
Settings = TypeVar("Settings")

# --------------------------------------------------------------------------------------------------
# Matches: A against B in colour-swapped pairs sharing a seed.


@dataclass
class SprtSettings:
    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05


@dataclass
class MatchSettings:
    """Everything that defines a match; saved as ``DIR/match.json`` so ``--resume DIR`` can go on."""

    a: BotSpec
    b: BotSpec
    games: int
    seconds: float = 900.0
    increment: float = 5.0
    seed: int = 0
    jobs: int = 1
    sprt: SprtSettings | None = None
    watchdog_margin: float = 120.0
    positions: list[str] = field(default_factory=list)
    """Start positions as FEN (``--positions``): pair k starts from ``positions[k % len]``; none: the
    standard position."""

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        for side in ("a", "b"):
            data[side]["overrides"] = list(data[side]["overrides"])
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> MatchSettings:
        def spec(d: dict[str, Any]) -> BotSpec:
            return BotSpec(d["spec"], tuple(d.get("overrides") or ()), d.get("config_file"))

        sprt_data = data.get("sprt")
        return cls(
            a=spec(data["a"]),
            b=spec(data["b"]),
            games=int(data["games"]),
            seconds=float(data["seconds"]),
            increment=float(data["increment"]),
            seed=int(data["seed"]),
            jobs=int(data["jobs"]),
            sprt=SprtSettings(**sprt_data) if sprt_data else None,
            watchdog_margin=float(data.get("watchdog_margin", 120.0)),
            positions=[str(fen) for fen in data.get("positions") or []],
        )

    def validate(self) -> None:
        """Reject a bad match before any game: numbers, SPRT bounds, then both bot specs (BotSpecError)."""
        if self.games < 2 or self.games % 2:
            raise ValueError(
                f"--games must be even and at least 2 (games come in colour-swapped pairs): {self.games}"
            )
        if self.seconds <= 0 or self.increment < 0:
            raise ValueError(f"--seconds must be > 0 and --increment >= 0: {self.seconds}, {self.increment}")
        if self.jobs < 1:
            raise ValueError(f"--jobs must be at least 1: {self.jobs}")
        if self.sprt is not None:
            stats.sprt_bounds(self.sprt.alpha, self.sprt.beta)
            if self.sprt.elo1 <= self.sprt.elo0:
                raise ValueError(f"--sprt needs ELO0 < ELO1: {self.sprt.elo0} {self.sprt.elo1}")
        for fen in self.positions:
            start_board(fen)
        validate_spec(self.a)
        validate_spec(self.b)


def validate_spec(spec: BotSpec) -> None:
    """``spec.validate()``, with any import-time failure of our own bot turned into a clear BotSpecError."""
    try:
        spec.validate()
    except BotSpecError:
        raise
    except Exception as exc:
        raise BotSpecError(f"bot {spec.name}: {type(exc).__name__}: {exc}") from exc


def match_jobs(settings: MatchSettings) -> list[GameJob]:
    """Game ``2k`` has A white, game ``2k+1`` has B white; both use seed ``seed + k`` and start
    from the same position (the standard one, or the match's positions in turn)."""
    jobs: list[GameJob] = []
    for index in range(settings.games):
        pair, a_white = index // 2, index % 2 == 0
        white, black = (settings.a, settings.b) if a_white else (settings.b, settings.a)
        meta = {"pair": pair, "a_color": "white" if a_white else "black"}
        start = position_for(settings.positions, pair)
        jobs.append(GameJob(index, white, black, settings.seed + pair, meta, start))
    return jobs


def match_totals(records: list[dict[str, Any]], sprt_settings: SprtSettings | None = None) -> dict[str, Any]:
    """Totals from A's side: W-L-D, score, logistic Elo with 95 % CI, crashes, timeouts, SPRT."""
    points = [game_points(r, r["a_color"]) for r in records]
    wins, draws = points.count(1.0), points.count(0.5)
    by_pair: dict[int, dict[str, float]] = {}
    for record, p in zip(records, points, strict=True):
        by_pair.setdefault(record["pair"], {})[record["a_color"]] = p
    pairs = [(d["white"], d["black"]) for _, d in sorted(by_pair.items()) if len(d) == 2]
    penta = stats.pentanomial(pairs)
    totals: dict[str, Any] = {
        "games": len(records),
        "wins": wins,
        "losses": len(points) - wins - draws,
        "draws": draws,
        "points": sum(points),
        "score": sum(points) / len(points) if points else None,
        "pairs": len(pairs),
        "pentanomial": penta,
        "trinomial": stats.trinomial(points),
        "crashes": sum(1 for r in records if r["crashed"] is not None),
        "a_crashes": sum(1 for r in records if r["crashed"] is not None and r["crashed"] == r["a_color"]),
        "b_crashes": sum(1 for r in records if r["crashed"] is not None and r["crashed"] != r["a_color"]),
        "timeouts": sum(1 for r in records if r["timed_out"] is not None),
        "hangs": sum(1 for r in records if r["reason"] == HANG),
        "elo": None,
        "elo_ci95": None,
        "elo_lower": None,
        "elo_upper": None,
        "elo_model": None,
        "nelo": None,
    }
    if records:
        # Pairs model the correlation inside a pair; with any game outside a pair fall back to games.
        counts = penta if len(pairs) * 2 == len(records) else totals["trinomial"]
        estimate = stats.elo_estimate(counts)
        totals.update(
            elo=estimate.elo,
            elo_ci95=estimate.elo_ci95,
            elo_lower=estimate.lower,
            elo_upper=estimate.upper,
            elo_model=estimate.model,
            nelo=estimate.nelo,
        )
    if sprt_settings is not None:
        state = stats.sprt(
            penta, sprt_settings.elo0, sprt_settings.elo1, sprt_settings.alpha, sprt_settings.beta
        )
        totals["sprt"] = {
            **asdict(state),
            "elo_unit": "normalised",
            "llr": state.llr if pairs else 0.0,
            "decision": state.decision if pairs else None,
        }
    return totals


def match_summary(settings: MatchSettings, records: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "match": settings.to_json(),
        "clock": "only the side to move is charged; handle_move_result is off the clock (as on the server)",
        "totals": match_totals(records, settings.sprt),
        "games": records,
    }


def run_match(
    settings: MatchSettings,
    out_dir: Path,
    *,
    resume: bool = False,
    isolate: bool = True,
    on_record: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None,
    backend: Backend | None = None,
    start_until: float | None = None,
) -> dict[str, Any]:
    """Play (or, with ``resume``, finish) a match in ``out_dir`` and return its summary.

    ``out_dir/match.json`` holds the settings, ``results.jsonl`` one line per finished game (appended
    as each ends, so a kill loses only the games in progress), ``summary.json`` the records and
    totals, rewritten after every game. With ``resume`` the finished games are kept and only the
    missing ones are played. With SPRT the match stops once the LLR crosses a bound. ``backend``
    says where the games are played (default: ``settings.jobs`` at a time on this machine); past
    ``start_until`` (``time.monotonic()``) no game starts (``runner.run_games``).
    """
    out_dir = prepare_out_dir(out_dir, resume, f"use --resume {out_dir} or another --out")
    write_json(out_dir / MATCH_FILE, settings.to_json())
    results_path = out_dir / RESULTS_FILE
    book = RecordBook(
        out_dir,
        lambda records: match_summary(settings, records),
        [r for r in load_records(results_path) if r["index"] < settings.games],
        on_record,
        stop=lambda records: decided(settings, records),
    )
    return play_book(settings, match_jobs(settings), out_dir, book, isolate=isolate, backend=backend,
                     start_until=start_until)  # fmt: skip


def play_book(
    settings: MatchSettings,
    jobs: list[GameJob],
    out_dir: Path,
    book: RecordBook,
    *,
    isolate: bool = True,
    backend: Backend | None = None,
    start_until: float | None = None,
) -> dict[str, Any]:
    """Play the ``jobs`` ``book`` has no record of yet, on ``settings``' clock and jobs, unless its stop
    rule says the run is over; write the summary however the run ends and return it."""
    done = {r["index"] for r in book.records}
    todo = [job for job in jobs if job.index not in done]
    if done:
        log.info("resuming %s: %d games done, %d to play", out_dir, len(done), len(todo))
    try:
        if todo and not book.stopped():
            run_games(
                todo,
                out_dir=out_dir,
                results_path=out_dir / RESULTS_FILE,
                seconds=settings.seconds,
                increment=settings.increment,
                parallel=settings.jobs,
                isolate=isolate,
                watchdog_margin=settings.watchdog_margin,
                on_record=book.add,
                backend=backend,
                start_until=start_until,
            )
    finally:
        summary = book.write()
    return summary


def decided(settings: MatchSettings, records: list[dict[str, Any]]) -> bool:
    """Whether the match's SPRT (if any) has crossed a bound."""
    return settings.sprt is not None and match_totals(records, settings.sprt)["sprt"]["decision"] is not None


def load_match(out_dir: Path) -> tuple[MatchSettings, list[dict[str, Any]]]:
    """The settings and finished games of the match in ``out_dir`` (for ``--resume``)."""
    settings = read_settings(out_dir, MATCH_FILE, "match", MatchSettings.from_json)
    return settings, load_records(out_dir / RESULTS_FILE)


def read_settings(out_dir: Path, name: str, kind: str, parse: Callable[[Any], Settings]) -> Settings:
    """``parse`` of the JSON in ``out_dir/name`` (a run's saved settings, for ``--resume``); a missing
    or unreadable file is a ValueError naming it."""
    path = out_dir / name
    if not path.exists():
        raise ValueError(f"--resume {out_dir}: no {name} there, so no {kind} to resume")
    try:
        return parse(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"--resume {out_dir}: {path} is not a {kind} file ({type(exc).__name__}: {exc})"
        ) from exc
