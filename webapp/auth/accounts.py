"""Creating and changing accounts, shared by the pages and the `furrow users` commands."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select

from webapp.auth.forms import MIN_PASSWORD
from webapp.auth.models import LoginAttempt, User
from webapp.auth.roles import Role
from webapp.auth.throttle import PER_ACCOUNT, PER_ADDRESS, seconds_to_wait
from webapp.database import utcnow
from webapp.extensions import db
from webapp.problems import Invalid


class AccountError(Invalid):
    """A request about an account that cannot be done; the message is for people."""

    code = "account_refused"


def has_users() -> bool:
    return db.session.scalar(select(func.count()).select_from(User)) > 0


def create_user(email: str, password: str, role: Role, name: str = "") -> User:
    try:
        email = validate_email(email.strip(), check_deliverability=False).normalized.lower()
    except EmailNotValidError as exc:
        raise AccountError(f"{email!r} is not an email address: {exc}") from None
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"The password needs at least {MIN_PASSWORD} characters.")
    if User.by_email(email) is not None:
        raise AccountError(f"There is already an account for {email}.")
    user = User(email=email, name=name.strip(), role_name=role.name)
    user.set_password(password)
    db.session.add(user)
    db.session.flush()
    return user


def active_admin_count() -> int:
    return db.session.scalar(
        select(func.count())
        .select_from(User)
        .where(User.role_name == Role.admin.name, User.active.is_(True))
    )


def ensure_not_last_admin(user: User) -> None:
    if user.role == Role.admin and user.active and active_admin_count() <= 1:
        raise AccountError("This is the last active administrator; make another one first.")


def login_wait_seconds(email: str, remote_addr: str) -> int:
    """Seconds before another login attempt for this email or address is allowed."""
    now = utcnow()
    since = now - PER_ACCOUNT.window
    base = select(LoginAttempt.at).where(LoginAttempt.succeeded.is_(False), LoginAttempt.at > since)
    by_email = db.session.scalars(base.where(LoginAttempt.email == User.normalize_email(email)))
    by_addr = db.session.scalars(base.where(LoginAttempt.remote_addr == remote_addr))
    return max(
        seconds_to_wait(list(by_email), PER_ACCOUNT, now),
        seconds_to_wait(list(by_addr), PER_ADDRESS, now),
    )


def record_login_attempt(email: str, remote_addr: str, succeeded: bool) -> None:
    db.session.add(
        LoginAttempt(
            email=User.normalize_email(email)[:254],
            remote_addr=remote_addr[:64],
            succeeded=succeeded,
        )
    )
