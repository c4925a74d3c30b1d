"""Who may see what: login on every view unless marked public, roles checked on the server."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from functools import wraps
from typing import TypeVar

from flask import abort, current_app, request
from flask_login import current_user

from webapp.auth.models import ApiToken, User
from webapp.auth.roles import Role
from webapp.contract import ROLE_ATTR
from webapp.database import utcnow
from webapp.extensions import csrf, db, login_manager
from webapp.ids import record_id

F = TypeVar("F", bound=Callable)
PUBLIC_ATTR = "_furrow_public"
JSON_TWIN_ATTR = "_furrow_json_twin"
TOKEN_USE_RESOLUTION = timedelta(minutes=1)


def public(view: F) -> F:
    """Mark a view that needs no login (login, first administrator, health check)."""
    setattr(view, PUBLIC_ATTR, True)
    return view


def json_twin(view: F) -> F:
    """Mark a page's JSON twin (/tables/<id>.json): it signs in and refuses as the API does,
    a bearer token accepted and every error, 401 too, answered in JSON."""
    setattr(view, JSON_TWIN_ATTR, True)
    return view


def require_role(role: Role) -> Callable[[F], F]:
    def decorate(view: F) -> F:
        @wraps(view)
        def wrapped(*args, **kwargs):
            if not current_user.can(role):
                abort(403, description=f"This needs the {role.name} role or higher.")
            return view(*args, **kwargs)

        setattr(wrapped, ROLE_ATTR, role)  # the API contract names it
        return wrapped  # type: ignore[return-value]

    return decorate


def bearer_token() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()
    return None


def uses_bearer_token() -> bool:
    return is_api_request() and bearer_token() is not None


def token_user() -> User | None:
    """The user of this request's bearer token, if the token is active."""
    token = ApiToken.find_active(bearer_token() or "")
    if token is None:
        return None
    now = utcnow()
    # Minute resolution is enough, and spares a database write on every API call.
    if token.last_used_at is None or now - token.last_used_at > TOKEN_USE_RESOLUTION:
        token.last_used_at = now
        db.session.commit()
    return token.user


@login_manager.user_loader
def load_user(user_id: str):
    """The session's (or remember cookie's) user while its session generation is current."""
    if uses_bearer_token():
        # A request that carries a bearer token is that token's alone, whatever its cookies.
        return token_user()
    key, _, generation = user_id.partition("-")
    user_key = record_id(key)
    user = db.session.get(User, user_key) if user_key else None
    if user is None or not user.active or str(user.session_generation) != generation:
        return None
    return user


@login_manager.request_loader
def load_user_from_token(_request):
    return token_user() if uses_bearer_token() else None


def is_api_request() -> bool:
    if request.path.startswith("/api/"):
        return True
    view = current_app.view_functions.get(request.endpoint or "")
    return getattr(view, JSON_TWIN_ATTR, False)


def enforce_login_and_csrf() -> None:
    """before_request: every endpoint needs a login unless public; every POST needs CSRF."""
    if request.routing_exception is not None:
        return  # 404 and 405 answer for themselves
    view = current_app.view_functions.get(request.endpoint or "")
    if request.endpoint == "static" or (view is not None and getattr(view, PUBLIC_ATTR, False)):
        if request.method not in ("GET", "HEAD", "OPTIONS"):
            csrf.protect()
        return
    if not current_user.is_authenticated:
        if uses_bearer_token():
            abort(401, description="The bearer token is unknown, revoked, or its account disabled.")
        if is_api_request():
            abort(401, description="Sign in or send Authorization: Bearer <token>.")
        abort(401)
    # A bearer token is not sent by browsers on their own, so cross-site forgery cannot use it;
    # an authenticated request that carries one was authenticated by it alone (load_user).
    if request.method not in ("GET", "HEAD", "OPTIONS") and not uses_bearer_token():
        csrf.protect()
