"""Many games (``rbc_bot.game.play_game``) J at a time, each finished game appended at once.

The one runner behind matches, tournaments and the gauntlet: a job list in, one JSON record per
finished game out (``results.jsonl``, appended as each game ends so a kill loses only the games in
progress; ``games.pgn`` gets the game itself, for chess GUIs), and a ``summary.json`` rewritten after
every game by whoever knows how to total them.
Where the games are played is a ``Backend``: this machine's threads by default, or a Ray cluster
(``rbc_bot.cluster``); the records are written here either way.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import chess
import chess.pgn
from reconchess import GameHistory

from rbc_bot.game import GameAborted, play_game
from rbc_bot.players import BotSpec
from rbc_bot.replay.pgn import RESULTS, build_game, export

log = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
SUMMARY_FILE = "summary.json"
PGN_FILE = "games.pgn"


def write_json(path: Path, data: Any) -> None:
    """Write via a temporary file and rename, so a kill never leaves half a summary."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


@dataclass(frozen=True)
class GameJob:
    """One scheduled game; ``meta`` (pair, colours of A, bot indices...) is copied into its record."""

    index: int
    white: BotSpec
    black: BotSpec
    seed: int
    meta: dict[str, Any] = field(default_factory=dict)
    start_fen: str | None = None
    """The position the game starts from (None: the standard one)."""


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


class BackendError(RuntimeError):
    """The machinery that runs games failed (a cluster lost a game past its retries): exit status 1."""


@dataclass(frozen=True)
class PlaySettings:
    """What every game of a run shares; ``out_dir`` is where replays and turn logs are written."""

    out_dir: Path
    seconds: float
    increment: float
    isolate: bool = True
    watchdog_margin: float = 120.0


class Backend(Protocol):
    """Where games are played: this machine's threads (``LocalBackend``) or a cluster
    (``rbc_bot.cluster.RayBackend``). The runner keeps the records; a backend only plays."""

    def records(
        self,
        jobs: list[GameJob],
        settings: PlaySettings,
        stop: threading.Event,
        keep: Callable[[dict[str, Any]], None],
        drain: threading.Event,
    ) -> Generator[dict[str, Any], None, None]:
        """Yield each finished game's record (see ``play_job``) as it ends, in any order.

        ``keep`` (which appends the record to the results file) is called first, as soon as the game
        is over, in the thread that saw it end: a Ctrl-C or kill of the caller's thread then never
        leaves a finished game's replay without its record. Closing the iterator (or ``stop`` being
        set) means the run is over: games not started are dropped and games in progress aborted;
        neither is ever kept. Once ``drain`` is set no further game is started; the games in progress
        finish and are kept as usual.
        """
        ...


def play_job(
    job: GameJob, settings: PlaySettings, stop: threading.Event | None = None
) -> dict[str, Any] | None:
    """Play one job and return its record (``asdict(GameResult)`` plus ``index``, ``wall_seconds``
    and the job's ``meta``), or None when ``stop`` aborted it."""
    if stop is not None and stop.is_set():
        return None
    started = time.monotonic()
    try:
        result = play_game(
            job.white,
            job.black,
            seconds=settings.seconds,
            increment=settings.increment,
            seed=job.seed,
            out_dir=settings.out_dir,
            isolate=settings.isolate,
            watchdog_margin=settings.watchdog_margin,
            stop=stop,
            start_fen=job.start_fen,
        )
    except GameAborted:
        return None
    record = {"index": job.index, **job.meta, **asdict(result)}
    record["wall_seconds"] = round(time.monotonic() - started, 3)
    return record


@dataclass(frozen=True)
class LocalBackend:
    """``parallel`` games at a time on this machine, driven by threads (each bot in its own process
    with ``isolate``)."""

    parallel: int = 1

    def records(
        self,
        jobs: list[GameJob],
        settings: PlaySettings,
        stop: threading.Event,
        keep: Callable[[dict[str, Any]], None],
        drain: threading.Event,
    ) -> Generator[dict[str, Any], None, None]:
        def play_and_keep(job: GameJob) -> dict[str, Any] | None:
            if drain.is_set():
                return None
            record = play_job(job, settings, stop)
            if record is not None:
                keep(record)
            return record

        executor = ThreadPoolExecutor(max_workers=max(1, self.parallel), thread_name_prefix="game")
        try:
            futures = [executor.submit(play_and_keep, job) for job in jobs]
            for future in as_completed(futures):
                record = future.result()
                if record is not None:
                    yield record
        finally:
            stop.set()  # a no-op once every game is done; otherwise games in progress are aborted
            executor.shutdown(wait=True, cancel_futures=True)


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
    backend: Backend | None = None,
    start_until: float | None = None,
) -> list[dict[str, Any]]:
    """Play ``jobs`` on ``backend`` (default: ``parallel`` at a time here), appending each finished
    game's record to ``results_path`` and the game to ``games.pgn`` beside it as it arrives.

    ``on_record`` is called in the calling thread after each game; returning True stops the run:
    queued games are dropped and games in progress aborted (not recorded). Ctrl-C does the same,
    then re-raises. Records are written by this function's ``keep``, whatever the backend: one line
    per game, so ``--resume`` and the summaries never depend on where a game was played. Past
    ``start_until`` (a ``time.monotonic()`` instant) no game starts and the run ends when the games
    in progress have: a run with a time limit stops between games, so nothing is lost.
    """
    stop = threading.Event()
    drain = threading.Event()
    timer = None
    if start_until is not None and start_until <= time.monotonic():
        drain.set()  # before any game is handed out, not by a timer that may fire after one starts
    elif start_until is not None:
        timer = threading.Timer(start_until - time.monotonic(), drain.set)
        timer.daemon = True
        timer.start()
    lock = threading.Lock()
    new_records: list[dict[str, Any]] = []
    results_path.parent.mkdir(parents=True, exist_ok=True)
    settings = PlaySettings(out_dir, seconds, increment, isolate, watchdog_margin)

    def keep(record: dict[str, Any]) -> None:
        with lock:
            with results_path.open("a") as fp:  # one line per game, written as soon as it ends
                fp.write(json.dumps(record) + "\n")
                fp.flush()
            append_pgn(results_path.with_name(PGN_FILE), record)

    stream = (backend or LocalBackend(parallel)).records(jobs, settings, stop, keep, drain)
    try:
        for record in stream:
            new_records.append(record)
            if on_record is not None and on_record(record):
                break
    finally:
        if timer is not None:
            timer.cancel()
        stop.set()
        stream.close()
    return new_records


def game_pgn(record: dict[str, Any]) -> chess.pgn.Game:
    """One finished game as PGN: its moves from the replay (RBC-only moves as ``analyze`` writes them:
    passes as null moves, long algebraic where chess has no SAN) and the run's facts as headers."""
    replay = record.get("replay")
    history = GameHistory.from_file(replay) if replay and Path(replay).stat().st_size else GameHistory()
    game = build_game(history) if not history.is_empty() else chess.pgn.Game()
    headers = game.headers
    headers["Event"] = "Reconnaissance Blind Chess"
    headers["Date"] = time.strftime("%Y.%m.%d")
    headers["Round"] = str(record["index"] + 1)
    headers["White"], headers["Black"] = record["white"], record["black"]
    winner = record["winner"]
    headers["Result"] = "1/2-1/2" if winner is None else RESULTS[winner == "white"]
    headers["Seed"] = str(record.get("seed", "?"))
    increment = record.get("increment", 0)
    headers["TimeControl"] = f"{record.get('seconds', 0):g}" + (f"+{increment:g}" if increment else "")
    headers["Termination"] = str(record.get("reason") or "unterminated").lower().replace("_", " ")
    if replay:
        headers["Replay"] = Path(replay).name  # the GameHistory file, for ``analyze``
    return game


def append_pgn(path: Path, record: dict[str, Any]) -> None:
    """Append one finished game to the run's PGN file (like cutechess-cli's ``-pgnout``). A game that
    cannot be written is logged and skipped: the PGN is a convenience, the results file the record."""
    try:
        text = export(game_pgn(record))
    except Exception as exc:  # any failure: keep() runs in the game's thread, after its record is written
        log.warning("game %s not written to %s: %s", record.get("index"), path.name, exc)
        return
    with path.open("a", encoding="utf-8") as fp:
        fp.write(text + "\n")


def game_points(record: dict[str, Any], color: str) -> float:
    """Points the side playing ``color`` scored in the game: 1, 0.5 or 0."""
    if record["winner"] is None:
        return 0.5
    return 1.0 if record["winner"] == color else 0.0


class RecordBook:
    """The finished games of one run, in job order: each new record rewrites ``summary.json`` (via
    ``summarise``) and is passed to ``on_record``; ``add`` returns what ``stop`` says of the records."""

    def __init__(
        self,
        out_dir: Path,
        summarise: Callable[[list[dict[str, Any]]], dict[str, Any]],
        records: list[dict[str, Any]] | None = None,
        on_record: Callable[[dict[str, Any], list[dict[str, Any]]], None] | None = None,
        stop: Callable[[list[dict[str, Any]]], bool] | None = None,
    ) -> None:
        self.out_dir = out_dir
        self.summarise = summarise
        self.records = list(records or [])
        self.on_record = on_record
        self.stop = stop

    def add(self, record: dict[str, Any]) -> bool:
        self.records.append(record)
        self.records.sort(key=lambda r: r["index"])
        self.write()
        if self.on_record is not None:
            self.on_record(record, self.records)
        return self.stopped()

    def stopped(self) -> bool:
        return self.stop is not None and self.stop(self.records)

    def write(self) -> dict[str, Any]:
        summary = self.summarise(self.records)
        write_json(self.out_dir / SUMMARY_FILE, summary)
        return summary


def prepare_out_dir(out_dir: Path, resume: bool, hint: str) -> Path:
    """The absolute run folder (records hold absolute replay paths: a resume may run from elsewhere),
    created; one that holds results already is an error unless resuming."""
    out_dir = out_dir.resolve()
    out_dir.mkdir(parents=True, exist_ok=True)
    results_path = out_dir / RESULTS_FILE
    if not resume and results_path.exists() and results_path.stat().st_size:
        raise ValueError(f"{out_dir} already holds results ({RESULTS_FILE}); {hint}")
    return out_dir
