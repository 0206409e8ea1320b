"""Our server's extras: game records, the leaderboard as JSON and as a page."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response

from rbc_bot.server.errors import ApiError
from rbc_bot.server.http import ctx, current_user, json_response
from rbc_bot.server.ladder import leaderboard, leaderboard_html

results = Blueprint("results", __name__)


@results.get("/api/games/")
def games_list() -> Response:
    current_user()
    return json_response({"games": [game_row(r) for r in ctx().store.list_games()]})


@results.get("/api/games/<id:game_id>")
def game_summary(game_id: int) -> Response:
    current_user()
    row = ctx().store.get_game(game_id)
    if row is None:
        raise ApiError(f"game {game_id} does not exist", 404)
    return json_response(game_row(row))


@results.get("/api/leaderboard")
def leaderboard_json() -> Response:
    return json_response({"ladder": ctx().ladder is not None, "leaderboard": leaderboard(ctx().store)})


@results.get("/")
def index() -> Response:
    return Response(leaderboard_html(ctx().store), mimetype="text/html")


def game_row(row: Any) -> dict[str, Any]:
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
