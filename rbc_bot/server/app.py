"""The Flask WSGI app: the official RBC HTTP API, routes spelled exactly as the stock clients call them.

Every answer is JSON (the stock client parses every 200 body), encoded with reconchess's
ChessJSONEncoder. Request bodies are parsed whatever their Content-Type, because the stock
RemoteGame sends JSON without one.
"""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import reconchess
from flask import Flask, Response, request
from reconchess.utilities import ChessJSONDecoder, ChessJSONEncoder
from werkzeug.exceptions import HTTPException

from rbc_bot.server.games import GameError, ServerGame
from rbc_bot.server.ladder import Ladder, leaderboard, leaderboard_html
from rbc_bot.server.service import GameService
from rbc_bot.server.store import Store, StoreError

logger = logging.getLogger(__name__)

ACTIVE_WINDOW = 30.0  # seconds since the last request for a user to count as connected
TOUCH_EVERY = 1.0  # write last_seen at most this often per user


class Unauthorized(Exception):
    pass


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(json.dumps(obj, cls=ChessJSONEncoder), status=status, mimetype="application/json")


def error(status: int, message: str) -> Response:
    response = json_response({"error": message}, status)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Basic realm="rbc"'
    return response


def request_body() -> dict[str, Any]:
    """The JSON body as a dict; an empty body is ``{}``; anything else is a GameError(400)."""
    raw = request.get_data()
    try:
        body = json.loads(raw or b"{}", cls=ChessJSONDecoder)
    except (ValueError, KeyError, TypeError) as exc:
        raise GameError(400, f"malformed JSON body: {exc}") from exc
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise GameError(400, f"malformed JSON body: expected an object, got {type(body).__name__}")
    return body


class FaultInjector:
    """For tests: answer every ``every``-th request with 503 before touching any state."""

    def __init__(self, every: int) -> None:
        self.every = every
        self._count = itertools.count(1)
        self._lock = threading.Lock()

    def should_fail(self) -> bool:
        if self.every <= 0:
            return False
        with self._lock:
            return next(self._count) % self.every == 0


def create_app(
    store: Store, service: GameService, ladder: Ladder | None = None, fail_every: int = 0
) -> Flask:
    app = Flask("rbc_bot.server")
    app.url_map.strict_slashes = False
    faults = FaultInjector(fail_every)
    touched: dict[str, float] = {}

    def authenticate() -> str:
        auth = request.authorization
        if auth is None or auth.username is None or auth.password is None:
            raise Unauthorized("HTTP Basic authentication required")
        if not store.check_password(auth.username, auth.password):
            raise Unauthorized(f"wrong username or password for {auth.username!r}")
        now = time.time()
        if now - touched.get(auth.username, 0.0) >= TOUCH_EVERY:
            touched[auth.username] = now
            store.touch(auth.username)
        return auth.username

    @app.before_request
    def inject_fault() -> Response | None:
        if faults.should_fail():
            return error(503, "injected fault (--fail-every)")
        return None

    @app.errorhandler(Unauthorized)
    def on_unauthorized(exc: Unauthorized) -> Response:
        return error(401, str(exc))

    @app.errorhandler(GameError)
    def on_game_error(exc: GameError) -> Response:
        return error(exc.status, exc.message)

    @app.errorhandler(StoreError)
    def on_store_error(exc: StoreError) -> Response:
        return error(400, str(exc))

    @app.errorhandler(HTTPException)
    def on_http_error(exc: HTTPException) -> Response:
        return error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def on_crash(exc: Exception) -> Response:
        logger.exception("internal error on %s %s", request.method, request.path)
        return error(500, f"internal server error: {type(exc).__name__}")

    # ---- lobby ---------------------------------------------------------------------------------
    @app.get("/api/version")
    def version() -> Response:
        return json_response({"version": reconchess.__version__})

    @app.get("/api/users")
    def users_ping() -> Response:
        # rc-register's "is there a server" probe (no auth); also lists connected users.
        return json_response({"usernames": store.active_usernames(ACTIVE_WINDOW)})

    @app.get("/api/users/")
    def users_list() -> Response:
        authenticate()
        return json_response({"usernames": store.active_usernames(ACTIVE_WINDOW)})

    @app.post("/api/users/")
    def users_register() -> Response:
        body = request_body()
        username, password = body.get("username"), body.get("password")
        if not isinstance(username, str) or not isinstance(password, str):
            return error(400, "register: username and password (strings) are required")
        if store.get_user(username) is not None:
            return error(409, f"username {username!r} is already taken")
        user = store.add_user(
            username, password, str(body.get("email", "")), str(body.get("affiliation", ""))
        )
        logger.info("registered user %s", user.username)
        return json_response({"username": user.username})

    @app.post("/api/users/me")
    def me() -> Response:
        user = store.get_user(authenticate())
        assert user is not None
        return json_response({"id": user.id, "username": user.username, "max_games": user.max_games})

    @app.post("/api/users/me/max_games")
    def me_max_games() -> Response:
        name = authenticate()
        value = request_body().get("max_games")
        if type(value) is not int or value < 0:
            return error(400, f"max_games must be a non-negative int, got {value!r}")
        user = store.set_user_field(name, "max_games", value)
        return json_response({"id": user.id, "username": user.username, "max_games": user.max_games})

    @app.post("/api/users/me/ranked")
    def me_ranked() -> Response:
        name = authenticate()
        value = request_body().get("ranked")
        if not isinstance(value, bool):
            return error(400, f"ranked must be true or false, got {value!r}")
        user = store.set_user_field(name, "ranked", int(value))
        return json_response({"id": user.id, "username": user.username, "ranked": user.ranked})

    @app.get("/api/users/me/version")
    def me_version() -> Response:
        user = store.get_user(authenticate())
        assert user is not None
        return json_response({"version": user.version})

    @app.post("/api/users/me/version")
    def me_version_increment() -> Response:
        user = store.get_user(authenticate())
        assert user is not None
        user = store.set_user_field(user.username, "version", user.version + 1)
        return json_response({"id": user.id, "username": user.username, "version": user.version})

    @app.get("/api/invitations/")
    def invitations_list() -> Response:
        return json_response({"invitations": store.open_invitations(authenticate())})

    @app.post("/api/invitations/")
    def invitations_create() -> Response:
        name = authenticate()
        body = request_body()
        opponent, color = body.get("opponent"), body.get("color")
        if not isinstance(opponent, str) or not isinstance(color, bool):
            return error(400, 'invitation: expected {"opponent": name, "color": true|false}')
        return json_response({"game_id": service.invite(name, opponent, color)})

    @app.post("/api/invitations/<int:invitation_id>")
    def invitations_accept(invitation_id: int) -> Response:
        return json_response({"game_id": store.accept_invitation(invitation_id, authenticate())})

    @app.post("/api/invitations/<int:invitation_id>/finish")
    def invitations_finish(invitation_id: int) -> Response:
        store.finish_invitation(invitation_id, authenticate())
        return json_response({})

    # ---- games ---------------------------------------------------------------------------------
    def player(game_id: int) -> tuple[ServerGame, bool]:
        name = authenticate()
        game = service.get(game_id)
        return game, game.color_of(name)

    def game_get(endpoint: str, handler: Callable[[ServerGame, bool], Any]) -> None:
        def view(game_id: int) -> Response:
            game, color = player(game_id)
            return json_response(handler(game, color))

        app.add_url_rule(f"/api/games/<int:game_id>/{endpoint}", f"game_{endpoint}", view, methods=["GET"])

    def game_post(endpoint: str, handler: Callable[[ServerGame, bool, dict[str, Any]], Any]) -> None:
        def view(game_id: int) -> Response:
            game, color = player(game_id)
            return json_response(handler(game, color, request_body()))

        app.add_url_rule(f"/api/games/<int:game_id>/{endpoint}", f"game_{endpoint}", view, methods=["POST"])

    game_get("color", lambda g, c: {"color": c})
    game_get("starting_board", lambda g, c: {"board": g.local.board.root()})
    game_get("opponent_name", lambda g, c: {"opponent_name": g.names[not c]})
    game_get("sense_actions", ServerGame.sense_actions)
    game_get("move_actions", ServerGame.move_actions)
    game_get("seconds_left", ServerGame.seconds_left)
    game_get("is_my_turn", ServerGame.is_my_turn)
    game_get("is_over", ServerGame.is_over)
    game_get("game_status", ServerGame.game_status)
    game_get("opponent_move_results", ServerGame.opponent_move_results)
    game_get("winner_color", ServerGame.winner)
    game_get("win_reason", ServerGame.reason)
    game_post("ready", lambda g, c, b: g.ready(c))
    game_post("sense", ServerGame.sense)
    game_post("move", ServerGame.move)
    game_post("end_turn", lambda g, c, b: g.end_turn(c))
    game_post("resign", lambda g, c, b: g.resign(c))
    game_post("error_resign", lambda g, c, b: g.error_resign(c))

    @app.get("/api/games/<int:game_id>/game_history")
    def game_history(game_id: int) -> Response:
        game, _ = player(game_id)
        return Response(game.history_body(), mimetype="application/json")

    # ---- local extras: results, leaderboard ------------------------------------------------------
    @app.get("/api/games/")
    def games_list() -> Response:
        authenticate()
        return json_response({"games": [_game_row(r) for r in store.list_games()]})

    @app.get("/api/games/<int:game_id>")
    def game_summary(game_id: int) -> Response:
        authenticate()
        row = store.get_game(game_id)
        if row is None:
            return error(404, f"game {game_id} does not exist")
        return json_response(_game_row(row))

    @app.get("/api/leaderboard")
    def leaderboard_json() -> Response:
        return json_response({"ladder": ladder is not None, "leaderboard": leaderboard(store)})

    @app.get("/")
    def index() -> Response:
        return Response(leaderboard_html(store), mimetype="text/html")

    return app


def _game_row(row: Any) -> dict[str, Any]:
    return {
        "id": row["id"],
        "white": row["white"],
        "black": row["black"],
        "status": row["status"],
        "ranked": bool(row["ranked"]),
        "winner_color": None if row["winner_color"] is None else bool(row["winner_color"]),
        "win_reason": row["win_reason"],
        "note": row["note"],
    }
