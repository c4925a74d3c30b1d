"""Error pages people can act on, and JSON errors for the API; never a traceback.

An Invalid answers 422 and an Unavailable 503 wherever it is raised, so API views only parse,
call and answer; pages that can show the problems on their form catch them first. A database
that cannot be reached answers 503 too: the pool pings each connection before use, so requests
work again as soon as it is back."""

from __future__ import annotations

import contextlib
from urllib.parse import urlsplit

from flask import Flask, current_app, g, redirect, render_template, request, url_for
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from werkzeug.exceptions import HTTPException

from webapp.api import api_error
from webapp.auth.access import is_api_request
from webapp.auth.accounts import has_users
from webapp.bodies import too_large_message
from webapp.database import failure_line
from webapp.extensions import db
from webapp.jobs.queue import RunInProgress
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


DATABASE_DOWN = (
    "The database cannot be used right now (it is not reachable or busy). Try again in a moment."
)
# What SQLAlchemy raises for a database it cannot connect to or lost the connection to.
DATABASE_DOWN_ERRORS = (OperationalError, InterfaceError)


def _respond(status: int, message: str, code: str | None = None, details: dict | None = None):
    code = code or CODES.get(status, "error")
    if is_api_request() or (
        request.accept_mimetypes.best == "application/json"
        and not request.headers.get("HX-Request")
    ):
        return api_error(status, code, message, details)
    _load_user_or_sign_out()
    return render_template(
        "errors/error.html", status=status, message=message, hint=HINTS.get(status, "")
    ), status


def _load_user_or_sign_out() -> None:
    """Every page loads the signed-in user for its header; when the database cannot say who
    that is, the error page is shown as to someone signed out rather than failing itself."""
    try:
        current_user.is_authenticated  # noqa: B018 - loads the user into flask-login's g slot
    except DATABASE_DOWN_ERRORS:
        with contextlib.suppress(DBAPIError):
            db.session.rollback()
        g._login_user = current_app.login_manager.anonymous_user()


def _local_path(url: str) -> str:
    parts = urlsplit(url)
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def handle_http_error(exc: HTTPException):
    status = exc.code or 500
    if status == 401 and not is_api_request():
        try:
            first_run = not has_users()
        except DATABASE_DOWN_ERRORS as db_error:
            return handle_database_error(db_error)
        if first_run:
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
    if status == 413 and not custom:
        message = too_large_message(request.max_content_length)
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


def handle_run_in_progress(exc: RunInProgress):
    db.session.rollback()
    return _respond(409, str(exc), exc.code, {"run_id": exc.run.id})


def handle_database_error(exc: DBAPIError):
    current_app.logger.warning(
        "database not usable on %s %s: %s", request.method, request.path, failure_line(exc)
    )
    with contextlib.suppress(DBAPIError):
        db.session.rollback()
    return _respond(503, DATABASE_DOWN, "database_unavailable")


def handle_unexpected(exc: Exception):
    current_app.logger.exception("unhandled error on %s %s", request.method, request.path)
    db.session.rollback()
    return _respond(500, HINTS[500])


def register_error_handlers(app: Flask) -> None:
    app.register_error_handler(CSRFError, handle_csrf_error)
    app.register_error_handler(HTTPException, handle_http_error)
    app.register_error_handler(Invalid, handle_invalid)
    app.register_error_handler(Unavailable, handle_unavailable)
    app.register_error_handler(RunInProgress, handle_run_in_progress)
    for error in DATABASE_DOWN_ERRORS:
        app.register_error_handler(error, handle_database_error)
    app.register_error_handler(Exception, handle_unexpected)
