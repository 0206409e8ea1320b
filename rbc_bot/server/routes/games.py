"""The per-game endpoints of the official API; each one a ServerGame method for the caller's colour."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Blueprint, Response

from rbc_bot.server.games import ServerGame
from rbc_bot.server.http import ctx, current_user, json_response, request_body

games = Blueprint("games", __name__)
PREFIX = "/api/games/<id:game_id>/"

Query = Callable[[ServerGame, bool], Any]
Action = Callable[[ServerGame, bool, dict[str, Any]], Any]

QUERIES: dict[str, Query] = {
    "color": lambda g, c: {"color": c},
    "starting_board": lambda g, c: {"board": g.local.board.root()},
    "opponent_name": lambda g, c: {"opponent_name": g.names[not c]},
    "sense_actions": ServerGame.sense_actions,
    "move_actions": ServerGame.move_actions,
    "seconds_left": ServerGame.seconds_left,
    "is_my_turn": ServerGame.is_my_turn,
    "is_over": ServerGame.is_over,
    "game_status": ServerGame.game_status,
    "opponent_move_results": ServerGame.opponent_move_results,
    "winner_color": ServerGame.winner,
    "win_reason": ServerGame.reason,
}
ACTIONS: dict[str, Action] = {
    "ready": lambda g, c, b: g.ready(c),
    "sense": ServerGame.sense,
    "move": ServerGame.move,
    "end_turn": lambda g, c, b: g.end_turn(c),
    "resign": lambda g, c, b: g.resign(c),
    "error_resign": lambda g, c, b: g.error_resign(c),
}


def player(game_id: int) -> tuple[ServerGame, bool]:
    """The game and the caller's colour in it (401 not logged in, 404 no such game, 403 not a player)."""
    name = current_user()
    game = ctx().service.get(game_id)
    return game, game.color_of(name)


def _query_view(handler: Query) -> Callable[[int], Response]:
    def view(game_id: int) -> Response:
        game, color = player(game_id)
        return json_response(handler(game, color))

    return view


def _action_view(handler: Action) -> Callable[[int], Response]:
    def view(game_id: int) -> Response:
        game, color = player(game_id)
        return json_response(handler(game, color, request_body()))

    return view


for _endpoint, _query in QUERIES.items():
    games.add_url_rule(PREFIX + _endpoint, _endpoint, _query_view(_query), methods=["GET"])
for _endpoint, _action in ACTIONS.items():
    games.add_url_rule(PREFIX + _endpoint, _endpoint, _action_view(_action), methods=["POST"])


@games.get(PREFIX + "game_history")
def game_history(game_id: int) -> Response:
    game, _ = player(game_id)
    return Response(game.history_body(), mimetype="application/json")
