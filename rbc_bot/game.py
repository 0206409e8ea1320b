"""Local games between two bots, with each bot in its own process and the clock charged as on the server.

``play_game`` is the one game runner every local command uses (``play``, ``match``, ``tournament``).
It follows ``reconchess.play.play_local_game`` but ends the turn *before* ``handle_move_result``
(``end_turn_last=False``, as ``play_remote_game`` does) and holds the opponent's clock while it runs,
so only the side to move is charged and ``handle_move_result`` is on nobody's clock, as on the server.

With ``isolate=True`` each bot lives in a child process and a proxy ``Player`` in the game process
forwards every call over a Pipe: one bot's global state (``random``, module caches, monkeypatches)
cannot touch the other's, a bot that raises loses only that game, and a hung bot is killed by a
watchdog once both clocks plus a margin have run out.
"""

from __future__ import annotations

import contextlib
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
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from pathlib import Path
from typing import Any

import chess
from reconchess import GameHistory, LocalGame, Player, WinReason

from rbc_bot.players import BotSpec

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
    os.setpgrp()  # its own process group: closing the seat kills whatever the bot started too
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
            daemon=False,  # bots such as StrangeFish start worker processes of their own
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
        """Kill the bot and every process it started (its process group), then reap the bot."""
        if self.process.pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, signal.SIGKILL)
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
        context.set_forkserver_preload(["numpy", "chess", "reconchess", "rbc_bot.players", "rbc_bot.game"])
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
    # On the server the mover hears its move result while the opponent thinks on its own machine: that
    # time is nobody's. Here the two run one after the other, so the opponent's clock waits for it.
    paused = time.monotonic()
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
    if not game.is_over():
        game.current_turn_start_time += timedelta(seconds=time.monotonic() - paused)
    return 1
