"""Error pages people can act on, and JSON errors for the API; never a traceback.

An Invalid answers 422 and an Unavailable 503 wherever it is raised, so API views only parse,
call and answer; pages that can show the problems on their form catch them first."""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Flask, current_app, redirect, render_template, request, url_for
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException

from webapp.api import api_error
from webapp.auth.access import is_api_request
from webapp.auth.accounts import has_users
from webapp.extensions import db
from webapp.problems import Invalid, Unavailable

CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    409: "conflict",
    413: "payload_too_large",
    422: "unprocessable",
    429: "too_many_requests",
    500: "internal_error",
    503: "service_unavailable",
}

HINTS = {
    400: "The request could not be understood. Go back and try again.",
    403: "Your role does not allow this. Ask an administrator if you need it.",
    404: "There is nothing here. The link may be old, or the record was deleted.",
    405: "This address does not take that kind of request.",
    413: "The upload is larger than this server accepts.",
    422: "Some of what was sent could not be used. Go back and correct it.",
    429: "Too many requests in a short time. Wait a moment and try again.",
    500: "Something went wrong on our side. It has been logged; try again.",
    503: "A service Furrow needs is not available right now. Try again shortly.",
}


def _respond(status: int, message: str, code: str | None = None, details: dict | None = None):
    code = code or CODES.get(status, "error")
    if is_api_request() or (
        request.accept_mimetypes.best == "application/json"
        and not request.headers.get("HX-Request")
    ):
        return api_error(status, code, message, details)
    return render_template(
        "errors/error.html", status=status, message=message, hint=HINTS.get(status, "")
    ), status


def _local_path(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def handle_http_error(exc: HTTPException):
    status = exc.code or 500
    if status == 401 and not is_api_request():
        if not has_users():
            target = url_for("auth.first_admin")
        else:
            came_from = request.headers.get("HX-Current-URL") or request.full_path
            target = url_for("auth.login", next=_local_path(came_from))
        if request.headers.get("HX-Request"):
            # htmx would swap the login page into a fragment; make it load the whole page.
            return "", 401, {"HX-Redirect": target}
        return redirect(target)
    # Werkzeug's stock descriptions are generic; ours say what to do next.
    custom = exc.description and exc.description != type(exc).description
    message = exc.description if custom else HINTS.get(status, exc.name)
    if status == 413:
        limit_mb = current_app.config["MAX_CONTENT_LENGTH"] // (1024 * 1024)
        message = f"The upload is larger than the {limit_mb} MB this server accepts."
    return _respond(status, message)


def handle_csrf_error(exc: CSRFError):
    return _respond(
        400,
        "The form's security token is missing or expired. Reload the page and try again.",
        code="csrf_failed",
    )


def handle_invalid(exc: Invalid):
    db.session.rollback()  # nothing of a refused request is kept
    return _respond(422, exc.message, exc.code, exc.error_details())


def handle_unavailable(exc: Unavailable):
    db.session.rollback()
    return _respond(503, str(exc), exc.code)


def handle_unexpected(exc: Exception):
    current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
    db.session.rollback()
    return _respond(500, HINTS[500])


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Invalid, handle_invalid)
    app.register_error_handler(Unavailable, handle_unavailable)
    app.register_error_handler(Exception, handle_unexpected)
