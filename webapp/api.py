"""The JSON API's shared pieces: the error shape and who-am-I."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, request
from flask_login import current_user

bp = Blueprint("api", __name__, url_prefix="/api/v1")


def api_error(
    status: int, code: str, message: str, details: dict[str, Any] | None = None
) -> tuple[Response, int]:
    body: dict[str, Any] = {"code": code, "message": message}
    if details:
        body["details"] = details
    return jsonify(error=body), status


def json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description="Send a JSON object.")
    return body


@bp.get("/me")
def me():
    return jsonify(
        id=current_user.id,
        email=current_user.email,
        name=current_user.name,
        role=current_user.role.name,
    )
