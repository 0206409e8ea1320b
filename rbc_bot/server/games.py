"""Per-game state on the server: reconchess.LocalGame as the arbiter, plus what a server must add.

LocalGame is the rules reference but trusts its caller: it does not check whose turn it is, the
order sense -> move -> end_turn, or the clock before accepting an action. ``ServerGame`` adds a
lock, that phase machine and the clock checks, and turns every refusal into a ``GameError``
carrying the HTTP status the official API documents (400, 403 for a user not in the game).
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import chess
from reconchess import GameHistory, WinReason
from reconchess.history import GameHistoryEncoder
from reconchess.utilities import move_actions as rbc_move_actions

from rbc_bot.reconchess_internals import game_history
from rbc_bot.server.errors import ApiError, quote
from rbc_bot.server.settings import GameSettings
from rbc_bot.server.store import Store

logger = logging.getLogger(__name__)

SENSE, MOVE, END_TURN = "sense", "move", "end_turn"


class GameError(ApiError):
    """A refused game request: ``status`` is the HTTP code, the message says what is wrong."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message, status)


def history_json(history: GameHistory) -> str:
    return json.dumps(history, cls=GameHistoryEncoder)


class ServerGame:
    """One game: every public method takes the lock, so two players' requests never interleave."""

    def __init__(
        self,
        game_id: int,
        white: str,
        black: str,
        settings: GameSettings,
        store: Store,
        on_finish: Callable[[ServerGame], None] | None = None,
        created: float | None = None,
    ) -> None:
        self.id = game_id
        self.names = {chess.WHITE: white, chess.BLACK: black}
        self.settings = settings
        self.store = store
        self.on_finish = on_finish
        self.created = time.time() if created is None else created
        self.lock = threading.RLock()
        self.local = settings.new_local_game()
        self.local.store_players(white, black)
        self.ready_colors: set[bool] = set()
        self.started = False
        self.phase = SENSE
        self.awaiting_end_turn: bool | None = None
        self.finished = False
        self.finished_at = 0.0
        self.status = "pending"
        self.winner_color: bool | None = None
        self.win_reason: WinReason | None = None
        self.note = ""
        self._history_json: str | None = None
        # Last accepted action per colour: a retried POST whose answer was lost gets the same answer.
        self._last_action: dict[bool, tuple[str, Any, dict[str, Any]]] = {}

    @classmethod
    def from_record(cls, row: Any, store: Store) -> ServerGame:
        """A read-only view of a game already over (finished or aborted) as stored in the database."""
        game = cls(int(row["id"]), row["white"], row["black"], GameSettings(), store, created=row["created"])
        game.finished = True
        game.finished_at = row["finished"] or 0.0
        game.status = row["status"]
        game.winner_color = None if row["winner_color"] is None else bool(row["winner_color"])
        game.win_reason = None if row["win_reason"] is None else WinReason[row["win_reason"]]
        game.note = row["note"]
        game._history_json = row["history"]
        return game

    # ---- helpers -------------------------------------------------------------------------------
    @property
    def history(self) -> GameHistory:
        return game_history(self.local)

    def color_of(self, username: str) -> bool:
        for color, name in self.names.items():
            if name == username:
                return color
        raise GameError(403, f"{username} is not a player in game {self.id}")

    def _refresh(self) -> None:
        """Finish the game if the rules say it is over (flag-fall is noticed here, lazily)."""
        if self.started and not self.finished and self.local.is_over():
            self._finalize()

    def _require_turn(self, color: bool, action: str) -> None:
        self._refresh()
        if self.finished:
            raise GameError(400, f"cannot {action}: game {self.id} is finished")
        if not self.started:
            raise GameError(
                400, f"cannot {action}: game {self.id} has not started (both players must be ready)"
            )
        if self.local.turn != color:
            raise GameError(400, f"cannot {action}: it is not your turn")

    def _check_clock(self, action: str) -> None:
        if self.local.get_seconds_left() <= 0:
            self._finalize()
            raise GameError(400, f"cannot {action}: out of time, game {self.id} is finished")

    def _finalize(self, status: str = "finished", note: str = "") -> None:
        if self.finished:
            return
        if status == "finished":
            self.local.end()
            self.winner_color = self.local.get_winner_color()
            self.win_reason = self.local.get_win_reason()
        self.finished = True
        self.finished_at = time.time()
        self.status = status
        self.note = note
        self._history_json = history_json(self.history)
        self.store.finish_game(
            self.id,
            status,
            self.winner_color,
            None if self.win_reason is None else self.win_reason.name,
            self._history_json,
            note,
        )
        logger.info(
            "game %d %s: %s vs %s, winner %s, reason %s %s",
            self.id,
            status,
            self.names[chess.WHITE],
            self.names[chess.BLACK],
            {True: "white", False: "black", None: "none"}[self.winner_color],
            self.win_reason.name if self.win_reason else None,
            note,
        )
        if self.on_finish is not None:
            try:
                self.on_finish(self)
            except Exception:
                logger.exception("on_finish hook failed for game %d", self.id)

    # ---- lobby-ish -------------------------------------------------------------------------------
    def ready(self, color: bool) -> dict[str, Any]:
        with self.lock:
            if self.finished:
                # E.g. the opponent error-resigned first: let the client go on to see the result.
                return {}
            if color in self.ready_colors:
                raise GameError(400, "already ready")
            self.ready_colors.add(color)
            if len(self.ready_colors) == 2:
                self.local.start()
                self.started = True
                self.status = "playing"
                self.store.set_status(self.id, "playing")
            return {}

    def sweep(self, now: float) -> None:
        """Periodic check: flag-falls nobody polled for, and players who never got ready."""
        with self.lock:
            if self.finished:
                return
            if self.started:
                self._refresh()
            elif now - self.created > self.settings.ready_timeout:
                self._ready_timeout()

    def _ready_timeout(self) -> None:
        """Nobody ready: abort. One side absent: it loses on time, unless it never accepted."""
        limit = f"{self.settings.ready_timeout:g} s"
        if not self.ready_colors:
            self._finalize("aborted", f"neither player was ready within {limit}")
            return
        (absent,) = {chess.WHITE, chess.BLACK} - self.ready_colors
        name = self.names[absent]
        if self.store.invitation_unaccepted(self.id, name):
            # An invitation is an offer: declining it by silence is not a lost game.
            self._finalize("aborted", f"{name} did not accept the invitation within {limit}")
            return
        self.local.start()
        self.started = True
        self.local.seconds_left_by_color[absent] = 0
        self._finalize(note=f"{name} was not ready within {limit}")

    def abort(self, note: str) -> None:
        with self.lock:
            self._finalize("aborted", note)

    # ---- queries ---------------------------------------------------------------------------------
    def game_status(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._refresh()
            my_turn = self.started and not self.finished and self.local.turn == color
            return {"is_my_turn": my_turn, "is_over": self.finished}

    def is_my_turn(self, color: bool) -> dict[str, Any]:
        return {"is_my_turn": self.game_status(color)["is_my_turn"]}

    def is_over(self, color: bool) -> dict[str, Any]:
        return {"is_over": self.game_status(color)["is_over"]}

    def seconds_left(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._refresh()
            if self.finished:
                raise GameError(400, f"game {self.id} is finished")
            if self.started and self.local.turn == color:
                return {"seconds_left": self.local.get_seconds_left()}
            return {"seconds_left": float(self.local.seconds_left_by_color[color])}

    def sense_actions(self, color: bool) -> dict[str, Any]:
        with self.lock:
            return {"sense_actions": [] if self.finished else list(chess.SQUARES)}

    def move_actions(self, color: bool) -> dict[str, Any]:
        with self.lock:
            if self.finished:
                return {"move_actions": []}
            board = self.local.board.copy(stack=False)
            board.turn = color
            return {"move_actions": rbc_move_actions(board)}

    def opponent_move_results(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._require_turn(color, "get opponent_move_results")
            return {"opponent_move_results": self.local.opponent_move_results()}

    # ---- actions ---------------------------------------------------------------------------------
    def _replayed(self, color: bool, action: str, key: Any, refusal: GameError) -> dict[str, Any]:
        """On a refusal, answer a duplicate of the player's last accepted action as before."""
        last = self._last_action.get(color)
        if refusal.status == 400 and last is not None and last[0] == action and last[1] == key:
            logger.info(
                "game %d: repeated %s from %s answered from cache", self.id, action, self.names[color]
            )
            return last[2]
        raise refusal

    def sense(self, color: bool, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            try:
                answer = self._sense(color, body)
            except GameError as exc:
                return self._replayed(color, SENSE, body.get("square", -1), exc)
            self._last_action[color] = (SENSE, body["square"], answer)
            return answer

    def move(self, color: bool, body: dict[str, Any]) -> dict[str, Any]:
        with self.lock:
            try:
                answer = self._move(color, body)
            except GameError as exc:
                return self._replayed(color, MOVE, body.get("requested_move", -1), exc)
            self._last_action[color] = (MOVE, body["requested_move"], answer)
            return answer

    def end_turn(self, color: bool) -> dict[str, Any]:
        with self.lock:
            try:
                answer = self._end_turn(color)
            except GameError as exc:
                return self._replayed(color, END_TURN, None, exc)
            self._last_action[color] = (END_TURN, None, answer)
            return answer

    def _sense(self, color: bool, body: dict[str, Any]) -> dict[str, Any]:
        self._require_turn(color, "sense")
        if self.phase != SENSE:
            raise GameError(400, "cannot sense: already sensed this turn")
        if "square" not in body:
            raise GameError(400, 'malformed sense: expected {"square": int 0..63 or null}')
        square = body["square"]
        if square is not None and (type(square) is not int or not 0 <= square < 64):
            raise GameError(400, f"malformed sense: square must be an int 0..63 or null, got {quote(square)}")
        self._check_clock("sense")
        result = self.local.sense(square)
        self.phase = MOVE
        return {"sense_result": result}

    def _move(self, color: bool, body: dict[str, Any]) -> dict[str, Any]:
        self._require_turn(color, "move")
        if self.phase == SENSE:
            raise GameError(400, "cannot move: sense first")
        if self.phase != MOVE:
            raise GameError(400, "cannot move: already moved this turn")
        if "requested_move" not in body:
            raise GameError(400, 'malformed move: expected {"requested_move": Move or null}')
        requested = body["requested_move"]
        if requested is not None and not isinstance(requested, chess.Move):
            raise GameError(
                400, f"malformed move: requested_move must be a Move or null, got {quote(requested)}"
            )
        self._check_clock("move")
        try:
            result = self.local.move(requested)
        except ValueError as exc:
            raise GameError(400, f"illegal move request: {quote(str(exc), 200)[1:-1]}") from exc
        self.phase = END_TURN
        self.awaiting_end_turn = color
        if self.local.is_over():
            # King captured or a draw limit reached: close the turn as play_local_game would,
            # then finish. The mover's end_turn still gets its 200 (see end_turn).
            self.local.end_turn()
            self._finalize()
        return {"move_result": list(result)}

    def _end_turn(self, color: bool) -> dict[str, Any]:
        if self.finished and self.awaiting_end_turn == color:
            # The stock client always sends end_turn after its move, even the game-ending one;
            # a 400 here would crash it.
            self.awaiting_end_turn = None
            return {}
        self._require_turn(color, "end turn")
        if self.phase != END_TURN:
            raise GameError(400, "cannot end turn: sense and move first")
        self.local.end_turn()
        self.phase = SENSE
        self.awaiting_end_turn = None
        self._refresh()
        if not self.finished:
            self.store.save_progress(self.id, history_json(self.history))
        return {}

    def resign(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._require_turn(color, "resign")
            self.local.resign()
            self._finalize(note=f"{self.names[color]} resigned")
            return {}

    def error_resign(self, color: bool) -> dict[str, Any]:
        """A crashed client gives up: its clock goes to zero, so it loses on time."""
        with self.lock:
            if self.finished:
                return {}
            if not self.started:
                self.local.start()
                self.started = True
            self.local.seconds_left_by_color[color] = 0
            self._finalize(note=f"{self.names[color]} error_resign")
            return {}

    # ---- results ---------------------------------------------------------------------------------
    def _require_over(self, what: str) -> None:
        self._refresh()
        if not self.finished:
            raise GameError(400, f"no {what} yet: game {self.id} is not over")

    def winner(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._require_over("winner")
            return {"winner_color": self.winner_color}

    def reason(self, color: bool) -> dict[str, Any]:
        with self.lock:
            self._require_over("win reason")
            return {"win_reason": self.win_reason}

    def history_body(self) -> str:
        """The raw JSON text of ``{"game_history": ...}``, spliced so it is encoded only once."""
        with self.lock:
            self._require_over("game history")
            return '{"game_history": ' + (self._history_json or history_json(GameHistory())) + "}"
