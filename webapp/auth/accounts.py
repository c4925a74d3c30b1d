"""Creating and changing accounts, shared by the pages and the `furrow users` commands."""

from __future__ import annotations

from email_validator import EmailNotValidError, validate_email
from sqlalchemy import func, select, text

from webapp.auth.models import LoginAttempt, User
from webapp.auth.passwords import password_problem
from webapp.auth.roles import Role
from webapp.auth.throttle import PER_ACCOUNT, PER_ADDRESS, seconds_to_wait
from webapp.database import utcnow
from webapp.extensions import db
from webapp.problems import Invalid
from webapp.text import control_character_problem

# The first key of PostgreSQL advisory locks on login keys, apart from any other use.
LOGIN_LOCK_SPACE = 4711


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
    if problem := control_character_problem(name):
        raise AccountError(f"Name: {problem}")
    if problem := password_problem(password):
        raise AccountError(f"Password: {problem}")
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


def claim_login_attempt(email: str, remote_addr: str) -> tuple[LoginAttempt | None, int]:
    """Count recent failures and record this attempt in one step, so that parallel attempts
    cannot all pass the count: the attempt is recorded as failed until its password proves
    right. Returns the committed attempt, or None and the seconds to wait."""
    email, remote_addr = User.normalize_email(email)[:254], remote_addr[:64]
    lock_login_keys(email, remote_addr)
    # On SQLite this INSERT takes the database's write lock, held until commit or rollback.
    attempt = LoginAttempt(email=email, remote_addr=remote_addr, succeeded=False)
    db.session.add(attempt)
    db.session.flush()
    now = utcnow()
    base = select(LoginAttempt.at).where(
        LoginAttempt.succeeded.is_(False),
        LoginAttempt.at > now - PER_ACCOUNT.window,
        LoginAttempt.id != attempt.id,
    )
    by_email = db.session.scalars(base.where(LoginAttempt.email == email))
    by_addr = db.session.scalars(base.where(LoginAttempt.remote_addr == remote_addr))
    wait = max(
        seconds_to_wait(list(by_email), PER_ACCOUNT, now),
        seconds_to_wait(list(by_addr), PER_ADDRESS, now),
    )
    if wait:
        db.session.rollback()  # a refused attempt is not counted
        return None, wait
    db.session.commit()
    return attempt, 0


def lock_login_keys(email: str, remote_addr: str) -> None:
    """PostgreSQL: hold a transaction lock per email and per address (always in that order),
    so two attempts for either count one after the other. SQLite needs none: its one writer
    at a time is the lock."""
    if db.session.get_bind().dialect.name != "postgresql":
        return
    for key in (f"email:{email}", f"addr:{remote_addr}"):
        db.session.execute(
            text("SELECT pg_advisory_xact_lock(:space, hashtext(:key))"),
            {"space": LOGIN_LOCK_SPACE, "key": key},
        )
