"""One local game between two bots, each in its seat, with the clock charged as on the server.

``play_game`` is the one game runner every local command uses (``play``, ``match``, ``tournament``,
``gauntlet``). It follows ``reconchess.play.play_local_game`` but ends the turn *before*
``handle_move_result`` (``end_turn_last=False``, as ``play_remote_game`` does) and holds the
opponent's clock while it runs, so only the side to move is charged and ``handle_move_result`` is on
nobody's clock, as on the server. Seats (``rbc_bot.seats``) keep each bot in its own process.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import chess
from reconchess import GameHistory, LocalGame, WinReason

from rbc_bot.notation import square_name, uci
from rbc_bot.players import BotSpec
from rbc_bot.reconchess_internals import resignee, set_resignee
from rbc_bot.seats import (
    COLOR_NAMES,
    CRASH,
    HANG,
    BotFailure,
    GameAborted,
    ProxyPlayer,
    Seat,
    open_seats,
)
from rbc_bot.start import start_board

__all__ = ["COLOR_NAMES", "CRASH", "HANG", "GameAborted", "GameResult", "play_game"]

log = logging.getLogger(__name__)


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
    start_fen: str | None = None
    """The position the game started from (None: the standard one)."""


def short_name(spec: BotSpec) -> str:
    """A bot's name for files: the stem for a ``.py`` file, else the spec's name."""
    if spec.spec.endswith(".py"):
        return Path(spec.spec).stem
    return spec.name


MAX_STEM = 160  # characters of a replay's stem: with the time, a counter and ".white.turns.jsonl" < 255


def sanitise(text: str) -> str:
    """``text`` as a file-name stem: odd characters replaced; a stem too long for a file name (a bot
    with many settings) is cut and ends in a hash of the whole, so different settings still differ."""
    stem = re.sub(r"[^A-Za-z0-9._=,+-]+", "_", text).strip("_") or "game"
    if len(stem) <= MAX_STEM:
        return stem
    return f"{stem[: MAX_STEM - 9]}~{hashlib.sha1(stem.encode()).hexdigest()[:8]}"


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


def turn_log_paths(replay_path: Path, white: BotSpec, black: BotSpec) -> dict[str, str]:
    """Where each of our bots in the game writes its turn log (beside the replay)."""
    both_ours = white.is_ours and black.is_ours
    paths = {}
    for color, spec in ((chess.WHITE, white), (chess.BLACK, black)):
        if spec.is_ours:
            suffix = f".{COLOR_NAMES[color]}.turns.jsonl" if both_ours else ".turns.jsonl"
            paths[COLOR_NAMES[color]] = str(replay_path) + suffix
    return paths


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
    start_fen: str | None = None,
) -> GameResult:
    """Play one game, save its replay in ``out_dir`` and return the result; never raises for a bot's fault.

    A bot that raises (or whose process dies, or that makes an action reconchess rejects) loses with
    reason ``CRASH``; with ``isolate=True`` a bot that does not answer within both clocks' remaining
    time plus ``watchdog_margin`` is killed and loses with reason ``HANG``. With ``isolate=False``
    both bots share this process (faster start, for tests) and there is no watchdog.
    Setting ``stop`` aborts the game (checked between turns, and every 0.25 s while an isolated bot
    thinks): its processes are killed, its replay file removed, and ``GameAborted`` is raised.
    ``start_fen`` starts the game from that position (``rbc_bot.start.start_board`` says which are
    playable; StartPositionError before any bot starts) instead of the standard one.
    """
    board = start_board(start_fen)
    replay_path = reserve_replay_path(
        Path(out_dir), f"{name or f'{short_name(white)}-{short_name(black)}'}-s{seed}"
    )
    turn_logs = turn_log_paths(replay_path, white, black)
    game = LocalGame(seconds_per_player=seconds, seconds_increment=increment)
    game.board = board
    game.store_players(white.name, black.name)

    def watchdog_timeout() -> float | None:
        """Both clocks' remaining time plus the margin: past that, the game cannot be legitimately alive."""
        if not isolate:
            return None
        if game.current_turn_start_time is None:  # before the clocks start
            return 2 * seconds + watchdog_margin
        mover = max(0.0, game.get_seconds_left())
        return mover + max(0.0, game.seconds_left_by_color[not game.turn]) + watchdog_margin

    specs = {chess.WHITE: white, chess.BLACK: black}
    kwargs = {
        c: ({"turn_log_path": turn_logs[COLOR_NAMES[c]]} if s.is_ours else {}) for c, s in specs.items()
    }
    seats: dict[chess.Color, Seat] = {}
    players: dict[chess.Color, ProxyPlayer] = {}
    plies = 0
    try:
        try:
            players.update(open_seats(
                specs, kwargs, seats, seed=seed, isolate=isolate, start_timeout=60 + watchdog_margin,
                timeout=watchdog_timeout, stop=stop,
            ))  # fmt: skip
            plies = _play_until_over(game, players, specs, on_turn, stop)
            failure = None
        except _Failed as failed:
            failure, plies = failed.failure, failed.plies
            log.warning("game %s: %s", replay_path.name, failure)
            _record_failure(game, failure)
        history = _end(game, players, failure, replay_path.name)
    except GameAborted:
        replay_path.unlink(missing_ok=True)
        raise
    finally:
        for seat in seats.values():
            seat.close()
    history.save(replay_path)
    return _result(game, white, black, failure, plies, replay_path, turn_logs, seed, start_fen)


class _Failed(Exception):
    """A bot failure, with the plies played before it."""

    def __init__(self, failure: BotFailure, plies: int) -> None:
        self.failure = failure
        self.plies = plies


def _play_until_over(
    game: LocalGame,
    players: dict[chess.Color, ProxyPlayer],
    specs: dict[chess.Color, BotSpec],
    on_turn: Callable[[dict[str, Any]], None] | None,
    stop: threading.Event | None,
) -> int:
    """Start the game and play turns until it is over; returns the plies played."""
    plies = 0
    try:
        players[chess.WHITE].handle_game_start(chess.WHITE, game.board.copy(), specs[chess.BLACK].name)
        players[chess.BLACK].handle_game_start(chess.BLACK, game.board.copy(), specs[chess.WHITE].name)
        game.start()
        while not game.is_over():
            if stop is not None and stop.is_set():
                raise GameAborted()
            plies += _play_turn(game, players[game.turn], plies, on_turn)
    except BotFailure as exc:
        raise _Failed(exc, plies) from exc
    return plies


def _record_failure(game: LocalGame, failure: BotFailure) -> None:
    """The failing side loses (the replay records it as having resigned), unless the game was already
    decided: a failure in ``handle_move_result`` after the bot had just captured the king, say."""
    started = game.current_turn_start_time is not None
    result_stands = started and game.is_over() and failure.color != game.turn
    if not result_stands:
        set_resignee(game, failure.color)


def _end(
    game: LocalGame, players: dict[chess.Color, ProxyPlayer], failure: BotFailure | None, name: str
) -> GameHistory:
    """Stop the clocks, tell every bot that did not fail how the game ended; the history."""
    if game.current_turn_start_time is None:
        game.start()
    game.end()
    history = game.get_game_history()
    for color, player in players.items():
        if failure is not None and failure.color == color:
            continue
        try:
            player.handle_game_end(game.get_winner_color(), game.get_win_reason(), history)
        except BotFailure as exc:  # the result stands; the bot only failed to tidy up
            log.warning("game %s: %s in handle_game_end (result unchanged)", name, exc)
    return history


def _result(
    game: LocalGame, white: BotSpec, black: BotSpec, failure: BotFailure | None, plies: int,
    replay_path: Path, turn_logs: dict[str, str], seed: int, start_fen: str | None,
) -> GameResult:  # fmt: skip
    winner_color, win_reason = game.get_winner_color(), game.get_win_reason()
    lost_to = failure if failure is not None and resignee(game) == failure.color else None
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
        seconds=float(game.seconds_per_player),
        increment=float(game.seconds_increment),
        start_fen=start_fen,
    )


def _play_turn(
    game: LocalGame,
    player: ProxyPlayer,
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
                "sense": square_name(sense),
                "requested": uci(requested),
                "taken": uci(taken),
                "capture_square": square_name(capture_square),
                "opponent_capture_square": square_name(opponent_capture),
            }
        )
    player.handle_move_result(requested, taken, capture_square is not None, capture_square)
    if not game.is_over():
        game.current_turn_start_time += timedelta(seconds=time.monotonic() - paused)
    return 1
