"""The Flask WSGI app: the official RBC HTTP API, routes spelled exactly as the stock clients call them.

Routes live in ``routes/`` by resource; this module wires them to the server's parts and turns
every refusal into a JSON error with its status. No input may produce a 500: the catch-all
handler exists for bugs, and logs them.
"""

from __future__ import annotations

import logging

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException, RequestEntityTooLarge
from werkzeug.routing import BaseConverter

from rbc_bot.server.auth import Authenticator, Throttled
from rbc_bot.server.errors import ApiError
from rbc_bot.server.http import EXTENSION, ServerContext, error
from rbc_bot.server.ladder import Ladder
from rbc_bot.server.routes.games import games
from rbc_bot.server.routes.invitations import invitations
from rbc_bot.server.routes.results import results
from rbc_bot.server.routes.users import users
from rbc_bot.server.service import GameService
from rbc_bot.server.store import Store

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024  # bytes; the largest legitimate body (a move or a registration) is under 1 KiB


class IdConverter(BaseConverter):
    """Database ids: at most 19 digits (2**63-1 has 19), so a huge number is a 404, not a crash."""

    regex = r"\d{1,19}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: object) -> str:
        return str(value)


def create_app(store: Store, service: GameService, ladder: Ladder | None = None) -> Flask:
    app = Flask("rbc_bot.server", static_folder=None)
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.url_map.strict_slashes = False
    app.url_map.converters["id"] = IdConverter
    app.extensions[EXTENSION] = ServerContext(store, service, ladder, Authenticator(store))
    for blueprint in (users, invitations, games, results):
        app.register_blueprint(blueprint)
    register_error_handlers(app)
    return app


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(Throttled)
    def on_throttled(exc: Throttled) -> Response:
        response = error(exc.status, exc.message)
        response.headers["Retry-After"] = str(max(1, round(exc.retry_after)))
        return response

    @app.errorhandler(ApiError)
    def on_api_error(exc: ApiError) -> Response:
        return error(exc.status, exc.message)

    @app.errorhandler(RequestEntityTooLarge)
    def on_too_large(exc: RequestEntityTooLarge) -> Response:
        return error(413, f"request body too large: the limit is {MAX_BODY} bytes")

    @app.errorhandler(HTTPException)
    def on_http_error(exc: HTTPException) -> Response:
        return error(exc.code or 500, exc.description or exc.name)

    @app.errorhandler(Exception)
    def on_crash(exc: Exception) -> Response:
        logger.exception("internal error on %s %r", request.method, request.path[:200])
        return error(500, f"internal server error: {type(exc).__name__}")
