"""Invitations: list mine, invite someone (creates the game), accept, finish."""

from __future__ import annotations

from flask import Blueprint, Response

from rbc_bot.server.errors import ApiError
from rbc_bot.server.http import ctx, current_user, json_response, request_body

invitations = Blueprint("invitations", __name__)


@invitations.get("/api/invitations/")
def invitations_list() -> Response:
    return json_response({"invitations": ctx().store.open_invitations(current_user())})


@invitations.post("/api/invitations/")
def invitations_create() -> Response:
    name = current_user()
    body = request_body()
    opponent, color = body.get("opponent"), body.get("color")
    if not isinstance(opponent, str) or not isinstance(color, bool):
        raise ApiError('invitation: expected {"opponent": name, "color": true|false}')
    return json_response({"game_id": ctx().service.invite(name, opponent, color)})


@invitations.post("/api/invitations/<id:invitation_id>")
def invitations_accept(invitation_id: int) -> Response:
    return json_response({"game_id": ctx().store.accept_invitation(invitation_id, current_user())})


@invitations.post("/api/invitations/<id:invitation_id>/finish")
def invitations_finish(invitation_id: int) -> Response:
    ctx().store.finish_invitation(invitation_id, current_user())
    return json_response({})
