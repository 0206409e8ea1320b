"""What every route shares: the server's parts, JSON in and out, and the current user.

Bodies are parsed whatever their Content-Type (the stock RemoteGame sends JSON without one) with
reconchess's decoder, whose object hooks build chess objects from any ``{"type": ...}`` object.
Anything a hostile body can make the parser or those hooks raise is a 400, never a 500.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from flask import Response, current_app, request
from reconchess.utilities import ChessJSONDecoder, ChessJSONEncoder

from rbc_bot.server.auth import Authenticator
from rbc_bot.server.errors import ApiError, quote
from rbc_bot.server.ladder import Ladder
from rbc_bot.server.service import GameService
from rbc_bot.server.store import Store

EXTENSION = "rbc_bot"


@dataclass
class ServerContext:
    store: Store
    service: GameService
    ladder: Ladder | None
    auth: Authenticator


def ctx() -> ServerContext:
    context: ServerContext = current_app.extensions[EXTENSION]
    return context


def json_response(obj: Any, status: int = 200) -> Response:
    return Response(json.dumps(obj, cls=ChessJSONEncoder), status=status, mimetype="application/json")


def error(status: int, message: str) -> Response:
    response = json_response({"error": message}, status)
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Basic realm="rbc"'
    return response


def parse_json(raw: bytes) -> Any:
    """Decode a body; ApiError(400) for anything that is not JSON the decoder and its hooks accept."""
    try:
        return json.loads(raw or b"{}", cls=ChessJSONDecoder)
    except RecursionError:
        raise ApiError("malformed JSON body: nested too deeply") from None
    except Exception as exc:  # the object hooks raise AttributeError, KeyError, ValueError ...
        raise ApiError(f"malformed JSON body: {type(exc).__name__}: {quote(str(exc), 80)}") from None


def request_body() -> dict[str, Any]:
    """The JSON body as a dict; an empty body is ``{}``."""
    body = parse_json(request.get_data())
    if body is None:
        return {}
    if not isinstance(body, dict):
        raise ApiError(f"malformed JSON body: expected an object, got {type(body).__name__}")
    return body


def basic_credentials() -> tuple[str, str] | tuple[None, None]:
    """(username, password) from HTTP Basic auth, or (None, None).

    The credentials are read as UTF-8, else as Latin-1: ``requests`` (the stock client) encodes
    them as Latin-1, so a name like "Zoë" arrives in that form.
    """
    scheme, _, encoded = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return None, None
    try:
        raw = base64.b64decode(encoded.strip(), validate=True)
    except (binascii.Error, ValueError):
        return None, None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    username, sep, password = text.partition(":")
    return (username, password) if sep else (None, None)


def current_user() -> str:
    username, password = basic_credentials()
    return ctx().auth.check(username, password, request.remote_addr)
