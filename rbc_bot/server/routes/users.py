"""Accounts and the lobby: version, registration, the connected-users list, the bot's own settings."""

from __future__ import annotations

import logging

import reconchess
from flask import Blueprint, Response

from rbc_bot.server.errors import ApiError, quote
from rbc_bot.server.http import ctx, current_user, json_response, request_body
from rbc_bot.server.names import check_text
from rbc_bot.server.store import User

logger = logging.getLogger(__name__)

ACTIVE_WINDOW = 30.0  # seconds since the last request for a user to count as connected
MAX_GAMES_LIMIT = 64  # the most concurrent games a bot may ask for

users = Blueprint("users", __name__)


def _me() -> User:
    user = ctx().store.get_user(current_user())
    assert user is not None
    return user


def _settings(user: User, field: str) -> Response:
    return json_response({"id": user.id, "username": user.username, field: getattr(user, field)})


@users.get("/api/version")
def version() -> Response:
    return json_response({"version": reconchess.__version__})


@users.get("/api/users")
def users_ping() -> Response:
    # rc-register's "is there a server" probe (no auth); also lists connected users.
    return json_response({"usernames": ctx().store.active_usernames(ACTIVE_WINDOW)})


@users.get("/api/users/")
def users_list() -> Response:
    current_user()
    return json_response({"usernames": ctx().store.active_usernames(ACTIVE_WINDOW)})


@users.post("/api/users/")
def users_register() -> Response:
    body = request_body()
    username, password = body.get("username"), body.get("password")
    if not isinstance(username, str) or not isinstance(password, str):
        raise ApiError("register: username and password (strings) are required")
    email = check_text(body.get("email"), "email")
    affiliation = check_text(body.get("affiliation"), "affiliation")
    user = ctx().store.add_user(username, password, email, affiliation)
    logger.info("registered user %s", user.username)
    return json_response({"username": user.username})


@users.post("/api/users/me")
def me() -> Response:
    user = _me()
    return json_response({"id": user.id, "username": user.username, "max_games": user.max_games})


@users.post("/api/users/me/max_games")
def me_max_games() -> Response:
    name = current_user()
    value = request_body().get("max_games")
    if type(value) is not int or not 0 <= value <= MAX_GAMES_LIMIT:
        raise ApiError(f"max_games must be an int from 0 to {MAX_GAMES_LIMIT}, got {quote(value)}")
    return _settings(ctx().store.set_user_field(name, "max_games", value), "max_games")


@users.post("/api/users/me/ranked")
def me_ranked() -> Response:
    name = current_user()
    value = request_body().get("ranked")
    if not isinstance(value, bool):
        raise ApiError(f"ranked must be true or false, got {quote(value)}")
    return _settings(ctx().store.set_user_field(name, "ranked", int(value)), "ranked")


@users.get("/api/users/me/version")
def me_version() -> Response:
    return json_response({"version": _me().version})


@users.post("/api/users/me/version")
def me_version_increment() -> Response:
    user = _me()
    return _settings(ctx().store.set_user_field(user.username, "version", user.version + 1), "version")
