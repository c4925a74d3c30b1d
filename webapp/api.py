"""The JSON API's shared pieces: the error shape and reading a JSON body."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, jsonify, request

from webapp.problems import Invalid


class BodyInvalid(Invalid):
    """A request whose body or query string is not of the shape the endpoint takes (the API
    contract's models, or a view's own check of a key)."""

    code = "invalid_request"


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
