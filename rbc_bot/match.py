"""Local games between two bots, with each bot in its own process and the clock charged as on the server.

``play_game`` is the one game runner every local command uses (``play``, ``match``, ``tournament``).
It follows ``reconchess.play.play_local_game`` but ends the turn *before* ``handle_move_result``
(``end_turn_last=False``, as ``play_remote_game`` does), so only the side to move is charged and
``handle_move_result`` is off the clock, as on the server.

With ``isolate=True`` each bot lives in a child process and a proxy ``Player`` in the game process
forwards every call over a Pipe: one bot's global state (``random``, module caches, monkeypatches)
cannot touch the other's, a bot that raises loses only that game, and a hung bot is killed by a
watchdog once both clocks plus a margin have run out.
"""

from __future__ import annotations

import contextlib
import json
import logging
import multiprocessing
import os
import random
import re
import signal
import threading
import time
import traceback
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from datetime import datetime
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import chess
from reconchess import GameHistory, LocalGame, Player, WinReason

from rbc_bot import stats
from rbc_bot.players import BotSpec, BotSpecError

log = logging.getLogger(__name__)

COLOR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}
CRASH = "CRASH"
HANG = "HANG"


@dataclass
class GameResult:
    """One finished game; ``dataclasses.asdict`` gives the JSON record a match stores."""

    white: str
    black: str
    winner: str | None
    """``"white"``, ``"black"`` or None (draw)."""
    reason: str | None
    """A ``WinReason`` name, or ``"CRASH"`` / ``"HANG"``."""
    plies: int
    seconds_left: dict[str, float]
    crashed: str | None = None
    """Colour of the bot that raised (or whose process died)."""
    traceback: str | None = None
    timed_out: str | None = None
    """Colour that lost on time."""
    replay: str | None = None
    turn_logs: dict[str, str] = field(default_factory=dict)
    seed: int = 0
    seconds: float = 900.0
    increment: float = 5.0


class BotFailure(Exception):
    """A bot broke the game: it raised, its process died, or it hung past the watchdog."""

    def __init__(self, color: chess.Color, reason: str, detail: str) -> None:
        super().__init__(
            f"{COLOR_NAMES[color]} {reason}: {detail.strip().splitlines()[-1] if detail else ''}"
        )
        self.color = color
        self.reason = reason
        self.detail = detail


class GameAborted(Exception):
    """The caller asked the game to stop (Ctrl-C, SPRT decided): it has no result and is not recorded."""


# --------------------------------------------------------------------------------------------------
# Seats: where a bot runs. The game loop only sees ``call(method, args, timeout)``.


class _InProcessSeat:
    """The bot in the game process: fast, but no isolation and no watchdog."""

    def __init__(self, color: chess.Color, spec: BotSpec, kwargs: dict[str, Any]) -> None:
        self.color = color
        try:
            self.player = spec.create(**kwargs)
        except Exception as exc:
            raise BotFailure(color, CRASH, traceback.format_exc()) from exc

    def call(self, method: str, args: tuple[Any, ...], timeout: float | None) -> Any:
        try:
            return getattr(self.player, method)(*args)
        except Exception as exc:
            raise BotFailure(self.color, CRASH, traceback.format_exc()) from exc

    def close(self) -> None:
        pass


def _seat_main(conn: Connection, spec: BotSpec, kwargs: dict[str, Any], seed: int) -> None:
    """Child process: build the bot, then answer ``(method, args)`` requests until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when a match stops
    seed_globals(seed)
    try:
        player = spec.create(**kwargs)
    except BaseException:
        conn.send(("err", traceback.format_exc()))
        return
    conn.send(("ok", None))
    while True:
        try:
            message = conn.recv()
        except EOFError:
            return
        if message is None:
            return
        method, args = message
        try:
            conn.send(("ok", getattr(player, method)(*args)))
        except BaseException:
            conn.send(("err", traceback.format_exc()))


class _ProcessSeat:
    """The bot in its own child process, reached over a Pipe."""

    def __init__(
        self,
        color: chess.Color,
        spec: BotSpec,
        kwargs: dict[str, Any],
        seed: int,
        context: BaseContext,
        start_timeout: float,
        stop: threading.Event | None = None,
    ) -> None:
        self.color = color
        self.stop = stop
        self.conn, child_conn = context.Pipe()
        self.process = context.Process(  # type: ignore[attr-defined]
            target=_seat_main,
            args=(child_conn, spec, kwargs, seed),
            name=f"rbc-{COLOR_NAMES[color]}-{spec.name}",
            daemon=True,
        )
        self.process.start()
        child_conn.close()
        self.start_timeout = start_timeout

    def ready(self) -> None:
        """Wait until the bot is built (both seats start at once; this waits for one)."""
        self._receive(self.start_timeout)

    def _wait(self, timeout: float | None) -> bool:
        """Wait for an answer in short slices, so a stop request is seen within a quarter second."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.stop is not None and self.stop.is_set():
                self.kill()
                raise GameAborted()
            remaining = 0.25 if deadline is None else min(0.25, deadline - time.monotonic())
            try:
                if self.conn.poll(max(0.0, remaining)):
                    return True
            except (EOFError, OSError):
                return True
            if deadline is not None and time.monotonic() >= deadline:
                return False

    def _receive(self, timeout: float | None) -> Any:
        ready = self._wait(timeout)
        if not ready:
            self.kill()
            raise BotFailure(self.color, HANG, f"no answer within {timeout:.1f} s; bot process killed")
        try:
            status, value = self.conn.recv()
        except (EOFError, OSError) as exc:
            self.process.join(1)
            raise BotFailure(
                self.color, CRASH, f"bot process died (exit code {self.process.exitcode})"
            ) from exc
        if status == "err":
            raise BotFailure(self.color, CRASH, value)
        return value

    def call(self, method: str, args: tuple[Any, ...], timeout: float | None) -> Any:
        try:
            self.conn.send((method, args))
        except (BrokenPipeError, OSError) as exc:
            self.process.join(1)
            raise BotFailure(
                self.color, CRASH, f"bot process died (exit code {self.process.exitcode})"
            ) from exc
        return self._receive(timeout)

    def kill(self) -> None:
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)

    def close(self) -> None:
        """Ask the child to stop, then make sure it has: no process outlives its game."""
        with contextlib.suppress(BrokenPipeError, OSError):
            self.conn.send(None)
        self.process.join(2)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(2)
        self.kill()
        self.conn.close()


class _ProxyPlayer(Player):
    """A reconchess Player whose every method is forwarded to a seat, under a watchdog timeout."""

    def __init__(self, seat: _InProcessSeat | _ProcessSeat, timeout: Callable[[], float | None]) -> None:
        self.seat = seat
        self.timeout = timeout

    def _call(self, method: str, *args: Any) -> Any:
        return self.seat.call(method, args, self.timeout())

    def handle_game_start(self, color: chess.Color, board: chess.Board, opponent_name: str) -> None:
        self._call("handle_game_start", color, board, opponent_name)

    def handle_opponent_move_result(self, captured_my_piece: bool, capture_square: int | None) -> None:
        self._call("handle_opponent_move_result", captured_my_piece, capture_square)

    def choose_sense(
        self, sense_actions: list[int], move_actions: list[chess.Move], seconds_left: float
    ) -> int | None:
        return self._call("choose_sense", sense_actions, move_actions, seconds_left)

    def handle_sense_result(self, sense_result: list[tuple[int, chess.Piece | None]]) -> None:
        self._call("handle_sense_result", sense_result)

    def choose_move(self, move_actions: list[chess.Move], seconds_left: float) -> chess.Move | None:
        return self._call("choose_move", move_actions, seconds_left)

    def handle_move_result(
        self,
        requested_move: chess.Move | None,
        taken_move: chess.Move | None,
        captured_opponent_piece: bool,
        capture_square: int | None,
    ) -> None:
        self._call("handle_move_result", requested_move, taken_move, captured_opponent_piece, capture_square)

    def handle_game_end(
        self, winner_color: chess.Color | None, win_reason: WinReason | None, game_history: GameHistory
    ) -> None:
        self._call("handle_game_end", winner_color, win_reason, game_history)


# --------------------------------------------------------------------------------------------------


def seed_globals(seed: int) -> None:
    """Seed the global generators bots use (reconchess bots call ``random`` directly)."""
    random.seed(seed)
    try:
        import numpy

        numpy.random.seed(seed % 2**32)
    except ImportError:  # pragma: no cover - numpy is a dependency, but bots must not need it
        pass


def mp_context() -> BaseContext:
    """Forkserver (children fork from a clean, preloaded server: fast and thread-safe), else spawn."""
    try:
        context = multiprocessing.get_context("forkserver")
        # Everything a bot process imports anyway, imported once in the server instead of per game.
        context.set_forkserver_preload(["numpy", "chess", "reconchess", "rbc_bot.players", "rbc_bot.match"])
        return context
    except ValueError:  # pragma: no cover - platforms without forkserver
        return multiprocessing.get_context("spawn")


def short_name(spec: BotSpec) -> str:
    """A bot's name for files: the stem for a ``.py`` file, else the spec's name."""
    if spec.spec.endswith(".py"):
        return Path(spec.spec).stem
    return spec.name


def sanitise(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=,+-]+", "_", text).strip("_") or "game"


def reserve_replay_path(out_dir: Path, stem: str) -> Path:
    """Create an empty, unique ``<stem>-<timestamp>[-n].json`` now, so parallel games never collide."""
    out_dir.mkdir(parents=True, exist_ok=True)
    base = f"{sanitise(stem)}-{datetime.now():%Y_%m_%d-%H_%M_%S}"
    for n in range(10_000):
        path = out_dir / (f"{base}.json" if n == 0 else f"{base}-{n}.json")
        try:
            path.open("x").close()
            return path
        except FileExistsError:
            continue
    raise RuntimeError(f"cannot find a free replay name for {base} in {out_dir}")


def _square_name(square: int | None) -> str | None:
    return None if square is None else chess.square_name(square)


def _uci(move: chess.Move | None) -> str | None:
    return None if move is None else move.uci()


def play_game(
    white: BotSpec,
    black: BotSpec,
    *,
    seconds: float = 900,
    increment: float = 5,
    seed: int = 0,
    out_dir: Path,
    isolate: bool = True,
    on_turn: Callable[[dict[str, Any]], None] | None = None,
    watchdog_margin: float = 120.0,
    name: str | None = None,
    stop: threading.Event | None = None,
) -> GameResult:
    """Play one game, save its replay in ``out_dir`` and return the result; never raises for a bot's fault.

    A bot that raises (or whose process dies, or that makes an action reconchess rejects) loses with
    reason ``CRASH``; with ``isolate=True`` a bot that does not answer within both clocks' remaining
    time plus ``watchdog_margin`` is killed and loses with reason ``HANG``. With ``isolate=False``
    both bots share this process (faster start, for tests) and there is no watchdog.
    Setting ``stop`` aborts the game (checked between turns, and every 0.25 s while an isolated bot
    thinks): its processes are killed, its replay file removed, and ``GameAborted`` is raised.
    """
    out_dir = Path(out_dir)
    specs = {chess.WHITE: white, chess.BLACK: black}
    replay_path = reserve_replay_path(
        out_dir, f"{name or f'{short_name(white)}-{short_name(black)}'}-s{seed}"
    )
    turn_logs: dict[str, str] = {}
    both_ours = white.is_ours and black.is_ours
    for color, spec in specs.items():
        if spec.is_ours:
            suffix = f".{COLOR_NAMES[color]}.turns.jsonl" if both_ours else ".turns.jsonl"
            turn_logs[COLOR_NAMES[color]] = str(replay_path) + suffix

    game = LocalGame(seconds_per_player=seconds, seconds_increment=increment)
    game.store_players(white.name, black.name)

    def watchdog_timeout() -> float | None:
        """Both clocks' remaining time plus the margin: past that, the game cannot be legitimately alive."""
        if not isolate:
            return None
        if game.current_turn_start_time is None:  # before the clocks start
            return 2 * seconds + watchdog_margin
        mover = max(0.0, game.get_seconds_left())
        other = max(0.0, game.seconds_left_by_color[not game.turn])
        return mover + other + watchdog_margin

    seats: dict[chess.Color, _InProcessSeat | _ProcessSeat] = {}
    players: dict[chess.Color, _ProxyPlayer] = {}
    failure: BotFailure | None = None
    plies = 0
    if not isolate:
        seed_globals(seed)
    context = mp_context() if isolate else None
    try:
        try:
            for color, spec in specs.items():
                kwargs = {"turn_log_path": turn_logs[COLOR_NAMES[color]]} if spec.is_ours else {}
                if context is None:
                    seats[color] = _InProcessSeat(color, spec, kwargs)
                else:
                    seats[color] = _ProcessSeat(
                        color, spec, kwargs, seed, context, 60 + watchdog_margin, stop
                    )
                players[color] = _ProxyPlayer(seats[color], watchdog_timeout)
            for seat in seats.values():
                if isinstance(seat, _ProcessSeat):
                    seat.ready()
            players[chess.WHITE].handle_game_start(chess.WHITE, game.board.copy(), black.name)
            players[chess.BLACK].handle_game_start(chess.BLACK, game.board.copy(), white.name)
            game.start()
            while not game.is_over():
                if stop is not None and stop.is_set():
                    raise GameAborted()
                plies += _play_turn(game, players[game.turn], plies, on_turn)
        except BotFailure as exc:
            failure = exc
            log.warning("game %s: %s", replay_path.name, exc)
            # A failure in handle_move_result after the game was already decided (the bot had just
            # captured the king, say) leaves the result alone; otherwise the failing side loses, and
            # the replay records it as having resigned.
            result_stands = (
                game.current_turn_start_time is not None and game.is_over() and exc.color != game.turn
            )
            if not result_stands:
                game._resignee = exc.color
        if game.current_turn_start_time is None:
            game.start()
        game.end()
        history = game.get_game_history()
        winner_color = game.get_winner_color()
        win_reason = game.get_win_reason()
        for color, player in players.items():
            if failure is not None and failure.color == color:
                continue
            try:
                player.handle_game_end(winner_color, win_reason, history)
            except BotFailure as exc:  # the result stands; the bot only failed to tidy up
                log.warning("game %s: %s in handle_game_end (result unchanged)", replay_path.name, exc)
    except GameAborted:
        replay_path.unlink(missing_ok=True)
        raise
    finally:
        for seat in seats.values():
            seat.close()
    history.save(replay_path)

    lost_to = failure if failure is not None and game._resignee == failure.color else None
    reason = lost_to.reason if lost_to is not None else win_reason.name if win_reason is not None else None
    timed_out = None
    if lost_to is not None and lost_to.reason == HANG:
        timed_out = COLOR_NAMES[lost_to.color]  # a hung bot has, by definition, run past its clock
    elif lost_to is None and win_reason == WinReason.TIMEOUT and winner_color is not None:
        timed_out = COLOR_NAMES[not winner_color]
    return GameResult(
        white=white.name,
        black=black.name,
        winner=None if winner_color is None else COLOR_NAMES[winner_color],
        reason=reason,
        plies=plies,
        seconds_left={
            "white": round(float(game.seconds_left_by_color[chess.WHITE]), 3),
            "black": round(float(game.seconds_left_by_color[chess.BLACK]), 3),
        },
        crashed=COLOR_NAMES[failure.color] if failure is not None and failure.reason == CRASH else None,
        traceback=failure.detail if failure is not None else None,
        timed_out=timed_out,
        replay=str(replay_path),
        turn_logs=turn_logs,
        seed=seed,
        seconds=seconds,
        increment=increment,
    )


def _play_turn(
    game: LocalGame,
    player: _ProxyPlayer,
    ply: int,
    on_turn: Callable[[dict[str, Any]], None] | None,
) -> int:
    """One turn as ``reconchess.play_turn(..., end_turn_last=False)``: the move result is off the clock.

    An action that ``LocalGame`` rejects (a square off the board, a move not in ``move_actions``) is
    the bot's fault, as a server would reject it: it counts as a crash of the side to move.
    """
    color = game.turn
    sense_actions = game.sense_actions()
    move_actions = game.move_actions()
    opponent_capture = game.opponent_move_results()
    player.handle_opponent_move_result(opponent_capture is not None, opponent_capture)
    sense = player.choose_sense(sense_actions, move_actions, game.get_seconds_left())
    try:
        sense_result = game.sense(sense)
    except Exception as exc:
        raise BotFailure(color, CRASH, traceback.format_exc()) from exc
    player.handle_sense_result(sense_result)
    move = player.choose_move(move_actions, game.get_seconds_left())
    try:
        requested, taken, capture_square = game.move(move)
    except Exception as exc:
        raise BotFailure(color, CRASH, traceback.format_exc()) from exc
    game.end_turn()
    if on_turn is not None:
        on_turn(
            {
                "ply": ply,
                "color": COLOR_NAMES[color],
                "seconds_left": game.seconds_left_by_color[color],
                "sense": _square_name(sense),
                "requested": _uci(requested),
                "taken": _uci(taken),
                "capture_square": _square_name(capture_square),
                "opponent_capture_square": _square_name(opponent_capture),
            }
        )
    player.handle_move_result(requested, taken, capture_square is not None, capture_square)
    return 1


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
    return MatchSettings.from_json(json.loads(path.read_text())), load_records(out_dir / RESULTS_FILE)


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
