"""Seats: where a bot runs during a local game. The game loop only sees a ``Player`` (a proxy) whose
every call goes to a seat.

In a ``ProcessSeat`` the bot lives in a child process of its own, in its own process group, reached
over a Pipe: one bot's global state (``random``, module caches, monkeypatches such as StrangeFish's
``chess.Board.__hash__``) cannot touch the other's, a bot that raises loses only that game, a hung
bot is killed by a watchdog, and closing the seat kills every process the bot started (StrangeFish
starts worker processes; each bot starts Stockfish). An ``InProcessSeat`` is the fast, unguarded
variant for tests.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import random
import signal
import threading
import time
import traceback
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.context import BaseContext
from typing import Any

import chess
from reconchess import GameHistory, Player, WinReason

from rbc_bot.players import BotSpec

COLOR_NAMES = {chess.WHITE: "white", chess.BLACK: "black"}
CRASH = "CRASH"
HANG = "HANG"


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


class InProcessSeat:
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
        _serve(conn, spec, kwargs)
    except (BrokenPipeError, ConnectionResetError):
        return  # the parent is gone (a stopped match, a cancelled game): no one is left to answer


def _serve(conn: Connection, spec: BotSpec, kwargs: dict[str, Any]) -> None:
    """Build the bot and answer the parent's requests until told to stop or the pipe closes."""
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


class ProcessSeat:
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


class ProxyPlayer(Player):
    """A reconchess Player whose every method is forwarded to a seat, under a watchdog timeout."""

    def __init__(self, seat: InProcessSeat | ProcessSeat, timeout: Callable[[], float | None]) -> None:
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
        # Everything a bot process imports anyway, imported once in the server instead of per game,
        # and the hook that turns a seat's cut-off start into one line.
        preload = ["numpy", "chess", "reconchess", "rbc_bot.players", "rbc_bot.seats"]
        context.set_forkserver_preload([*preload, "rbc_bot.forkserver_hooks"])
        return context
    except ValueError:  # pragma: no cover - platforms without forkserver
        return multiprocessing.get_context("spawn")


Seat = InProcessSeat | ProcessSeat


def open_seats(
    specs: dict[chess.Color, BotSpec],
    kwargs: dict[chess.Color, dict[str, Any]],
    seats: dict[chess.Color, Seat],
    *,
    seed: int,
    isolate: bool,
    start_timeout: float,
    timeout: Callable[[], float | None],
    stop: threading.Event | None = None,
) -> dict[chess.Color, ProxyPlayer]:
    """Seat both bots (into ``seats``, so the caller can close whatever opened even if the second
    fails) and return a proxy Player for each, once both are built."""
    context = mp_context() if isolate else None
    if context is None:
        seed_globals(seed)
    for color, spec in specs.items():
        if context is None:
            seats[color] = InProcessSeat(color, spec, kwargs[color])
        else:
            seats[color] = ProcessSeat(color, spec, kwargs[color], seed, context, start_timeout, stop)
    for seat in seats.values():
        if isinstance(seat, ProcessSeat):
            seat.ready()
    return {color: ProxyPlayer(seat, timeout) for color, seat in seats.items()}
