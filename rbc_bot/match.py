"""Matches and tournaments: many local games (``rbc_bot.game.play_game``) J at a time, results appended
as games end, Elo with a confidence interval, a pentanomial SPRT, and resuming a stopped run.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from rbc_bot import stats
from rbc_bot.game import (
    HANG,
    GameAborted,
    play_game,
    short_name,
)
from rbc_bot.players import BotSpec, BotSpecError

log = logging.getLogger(__name__)

# --------------------------------------------------------------------------------------------------
# Many games: a job list run J at a time, each finished game appended to a JSONL file at once.


@dataclass(frozen=True)
class GameJob:
    """One scheduled game; ``meta`` (pair, colours of A, bot indices...) is copied into its record."""

    index: int
    white: BotSpec
    black: BotSpec
    seed: int
    meta: dict[str, Any] = field(default_factory=dict)


def load_records(path: Path) -> list[dict[str, Any]]:
    """Finished games from a JSONL file; a line cut short by a kill is skipped with a warning."""
    records: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            index = int(record["index"])
        except (ValueError, KeyError, TypeError):
            log.warning("%s:%d: unreadable record skipped (the game will be played again)", path, number)
            continue
        records.setdefault(index, record)
    return [records[i] for i in sorted(records)]


def run_games(
    jobs: list[GameJob],
    *,
    out_dir: Path,
    results_path: Path,
    seconds: float,
    increment: float,
    parallel: int = 1,
    isolate: bool = True,
    watchdog_margin: float = 120.0,
    on_record: Callable[[dict[str, Any]], bool] | None = None,
    on_start: Callable[[GameJob], None] | None = None,
) -> list[dict[str, Any]]:
    """Play ``jobs``, ``parallel`` at a time, appending each finished game's record to ``results_path``.

    Threads drive the games (the bots themselves run in child processes with ``isolate``). The record
    is ``asdict(GameResult)`` plus ``index``, ``wall_seconds`` and the job's ``meta``. ``on_record`` is
    called in the calling thread after each game; returning True stops the run: queued games are
    dropped and games in progress aborted (not recorded). Ctrl-C does the same, then re-raises.
    """
    stop = threading.Event()
    lock = threading.Lock()
    new_records: list[dict[str, Any]] = []
    results_path.parent.mkdir(parents=True, exist_ok=True)

    def run_one(job: GameJob) -> dict[str, Any] | None:
        if stop.is_set():
            return None
        if on_start is not None:
            on_start(job)
        started = time.monotonic()
        try:
            result = play_game(
                job.white,
                job.black,
                seconds=seconds,
                increment=increment,
                seed=job.seed,
                out_dir=out_dir,
                isolate=isolate,
                watchdog_margin=watchdog_margin,
                stop=stop,
            )
        except GameAborted:
            return None
        record = {"index": job.index, **job.meta, **asdict(result)}
        record["wall_seconds"] = round(time.monotonic() - started, 3)
        with lock, results_path.open("a") as fp:  # one line per game, written as soon as it ends
            fp.write(json.dumps(record) + "\n")
            fp.flush()
        return record

    executor = ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="game")
    try:
        futures = [executor.submit(run_one, job) for job in jobs]
        for future in as_completed(futures):
            record = future.result()
            if record is None:
                continue
            new_records.append(record)
            if on_record is not None and on_record(record):
                stop.set()
                break
    except BaseException:
        stop.set()
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
    return new_records


def game_points(record: dict[str, Any], color: str) -> float:
    """Points the side playing ``color`` scored in the game: 1, 0.5 or 0."""
    if record["winner"] is None:
        return 0.5
    return 1.0 if record["winner"] == color else 0.0


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
    """Game ``2k`` has A white, game ``2k+1`` has B white; both use seed ``seed + k``."""
    jobs: list[GameJob] = []
    for index in range(settings.games):
        pair, a_white = index // 2, index % 2 == 0
        white, black = (settings.a, settings.b) if a_white else (settings.b, settings.a)
        meta = {"pair": pair, "a_color": "white" if a_white else "black"}
        jobs.append(GameJob(index, white, black, settings.seed + pair, meta))
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


MATCH_FILE = "match.json"
RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"


def write_json(path: Path, data: Any) -> None:
    """Write via a temporary file and rename, so a kill never leaves half a summary."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


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
) -> dict[str, Any]:
    """Play (or, with ``resume``, finish) a match in ``out_dir`` and return its summary.

    ``out_dir/match.json`` holds the settings, ``results.jsonl`` one line per finished game (appended
    as each ends, so a kill loses only the games in progress), ``summary.json`` the records and
    totals, rewritten after every game. With ``resume`` the finished games are kept and only the
    missing ones are played. With SPRT the match stops once the LLR crosses a bound.
    """
    out_dir = out_dir.resolve()  # records hold absolute replay paths: a resume may run from elsewhere
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / RESULTS_FILE
    if not resume and results_path.exists() and results_path.stat().st_size:
        raise ValueError(
            f"{out_dir} already holds a match ({RESULTS_FILE}); use --resume {out_dir} or another --out"
        )
    write_json(out_dir / MATCH_FILE, settings.to_json())
    records = [r for r in load_records(results_path) if r["index"] < settings.games]
    done = {r["index"] for r in records}

    def decided() -> bool:
        totals = match_totals(records, settings.sprt)
        return settings.sprt is not None and totals["sprt"]["decision"] is not None

    def record_done(record: dict[str, Any]) -> bool:
        records.append(record)
        records.sort(key=lambda r: r["index"])
        write_json(out_dir / SUMMARY_FILE, match_summary(settings, records))
        if on_record is not None:
            on_record(record, records)
        return decided()

    todo = [job for job in match_jobs(settings) if job.index not in done]
    if done:
        log.info("resuming %s: %d games done, %d to play", out_dir, len(done), len(todo))
    try:
        if todo and not decided():
            run_games(
                todo,
                out_dir=out_dir,
                results_path=results_path,
                seconds=settings.seconds,
                increment=settings.increment,
                parallel=settings.jobs,
                isolate=isolate,
                watchdog_margin=settings.watchdog_margin,
                on_record=record_done,
            )
    finally:
        summary = match_summary(settings, records)
        write_json(out_dir / SUMMARY_FILE, summary)
    return summary


def load_match(out_dir: Path) -> tuple[MatchSettings, list[dict[str, Any]]]:
    """The settings and finished games of the match in ``out_dir`` (for ``--resume``)."""
    path = out_dir / MATCH_FILE
    if not path.exists():
        raise ValueError(f"--resume {out_dir}: no {MATCH_FILE} there, so no match to resume")
    try:
        settings = MatchSettings.from_json(json.loads(path.read_text()))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(
            f"--resume {out_dir}: {path} is not a match file ({type(exc).__name__}: {exc})"
        ) from exc
    return settings, load_records(out_dir / RESULTS_FILE)


# --------------------------------------------------------------------------------------------------
# Tournaments: every pair of bots plays a small match.


def tournament_jobs(bots: list[BotSpec], games_per_pair: int, seed: int) -> list[GameJob]:
    """For each pair i < j: ``games_per_pair`` games in colour-swapped pairs, seed ``seed + pair number``."""
    jobs: list[GameJob] = []
    pair_number = 0
    for i in range(len(bots)):
        for j in range(i + 1, len(bots)):
            for game in range(games_per_pair):
                number = pair_number + game // 2
                i_white = game % 2 == 0
                white, black = (i, j) if i_white else (j, i)
                meta = {"white_bot": white, "black_bot": black, "pair": number}
                jobs.append(GameJob(len(jobs), bots[white], bots[black], seed + number, meta))
            pair_number += (games_per_pair + 1) // 2
    return jobs


def tournament_table(names: list[str], records: list[dict[str, Any]]) -> dict[str, Any]:
    """Crosstable (points and games for each bot against each other bot) and Elo against the field.

    Each bot's Elo is the logistic Elo of its score over all its games against the rest of the field,
    with a trinomial 95 % CI: simple and honest about its uncertainty, but relative to *this* field
    (a weak field inflates everybody's number), not a joint Bradley-Terry fit.
    """
    n = len(names)
    points = [[0.0] * n for _ in range(n)]
    games = [[0] * n for _ in range(n)]
    per_bot: list[list[float]] = [[] for _ in range(n)]
    crashes = [0] * n
    timeouts = [0] * n
    for r in records:
        w, b = r["white_bot"], r["black_bot"]
        pw, pb = game_points(r, "white"), game_points(r, "black")
        points[w][b] += pw
        points[b][w] += pb
        games[w][b] += 1
        games[b][w] += 1
        per_bot[w].append(pw)
        per_bot[b].append(pb)
        for color, bot in (("white", w), ("black", b)):
            crashes[bot] += r["crashed"] == color
            timeouts[bot] += r["timed_out"] == color
    bots = []
    for k, name in enumerate(names):
        entry: dict[str, Any] = {
            "name": name,
            "games": len(per_bot[k]),
            "points": sum(per_bot[k]),
            "score": sum(per_bot[k]) / len(per_bot[k]) if per_bot[k] else None,
            "wld": _wins_losses_draws(per_bot[k]),
            "crashes": crashes[k],
            "timeouts": timeouts[k],
            "elo": None,
            "elo_ci95": None,
        }
        if per_bot[k]:
            estimate = stats.elo_estimate(stats.trinomial(per_bot[k]))
            entry.update(
                elo=estimate.elo,
                elo_ci95=estimate.elo_ci95,
                elo_lower=estimate.lower,
                elo_upper=estimate.upper,
            )
        bots.append(entry)
    return {
        "elo_method": "logistic Elo of each bot's score against the whole field, trinomial 95% CI",
        "bots": bots,
        "crosstable": {"points": points, "games": games},
    }


def _wins_losses_draws(points: list[float]) -> list[int]:
    losses, draws, wins = stats.trinomial(points)
    return [wins, losses, draws]


def run_tournament(
    bots: list[BotSpec],
    out_dir: Path,
    *,
    games_per_pair: int,
    seconds: float,
    increment: float,
    seed: int = 0,
    jobs: int = 1,
    isolate: bool = True,
    watchdog_margin: float = 120.0,
    on_record: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None,
) -> dict[str, Any]:
    """Round robin: every pair plays ``games_per_pair`` games; ``out_dir/summary.json`` gets the table."""
    if len(bots) < 2:
        raise ValueError("a tournament needs at least two bots")
    if games_per_pair < 1:
        raise ValueError(f"--games-per-pair must be at least 1: {games_per_pair}")
    if seconds <= 0 or increment < 0 or jobs < 1:
        raise ValueError(f"need --seconds > 0, --increment >= 0, --jobs >= 1: {seconds}, {increment}, {jobs}")
    for bot in bots:
        validate_spec(bot)
    names = [short_name(bot) for bot in bots]
    if len(set(names)) != len(names):
        names = [f"{name}#{k + 1}" for k, name in enumerate(names)]
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / RESULTS_FILE
    if results_path.exists() and results_path.stat().st_size:
        raise ValueError(f"{out_dir} already holds results ({RESULTS_FILE}); choose another --out")
    records: list[dict[str, Any]] = []
    settings = {
        "bots": [asdict(bot) for bot in bots],
        "names": names,
        "games_per_pair": games_per_pair,
        "seconds": seconds,
        "increment": increment,
        "seed": seed,
        "jobs": jobs,
    }

    def summary() -> dict[str, Any]:
        return {"tournament": settings, **tournament_table(names, records), "games": records}

    def record_done(record: dict[str, Any]) -> bool:
        records.append(record)
        records.sort(key=lambda r: r["index"])
        write_json(out_dir / SUMMARY_FILE, summary())
        if on_record is not None:
            on_record(record, records)
        return False

    try:
        run_games(
            tournament_jobs(bots, games_per_pair, seed),
            out_dir=out_dir,
            results_path=results_path,
            seconds=seconds,
            increment=increment,
            parallel=jobs,
            isolate=isolate,
            watchdog_margin=watchdog_margin,
            on_record=record_done,
        )
    finally:
        result = summary()
        write_json(out_dir / SUMMARY_FILE, result)
    return result
