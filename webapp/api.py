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


def applied_answer(answer: dict[str, Any], refused: list[dict[str, Any]]) -> tuple[Response, int]:
    """An apply's answer: 200 when nothing was refused; else 422 that still says what was
    applied, with the one error shape beside it (every 4xx carries `error`)."""
    if not refused:
        return jsonify(answer), 200
    count = len(refused)
    message = f"{count} of the chosen {'was' if count == 1 else 'were'} refused: " + (
        refused[0].get("message") or refused[0].get("code", "")
    )
    error = {"code": "some_refused", "message": message, "details": {"refused": refused}}
    return jsonify({**answer, "error": error}), 422


def json_body() -> dict:
    body = request.get_json(silent=True)
    if not isinstance(body, dict):
        abort(400, description="Send a JSON object.")
    return body
