"""People who use Furrow, their API tokens, and the login attempts that rate-limit guessing."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime

from flask_login import UserMixin
from sqlalchemy import ForeignKey, String, select
from sqlalchemy.orm import Mapped, mapped_column, relationship
from werkzeug.security import check_password_hash, generate_password_hash

from webapp.auth.roles import Role
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db

TOKEN_PREFIX = "furrow_"  # noqa: S105 - a label, not a secret


class User(UserMixin, db.Model):
    __tablename__ = "users"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), unique=True)
    name: Mapped[str] = mapped_column(String(120), default="")
    password_hash: Mapped[str] = mapped_column(String(255))
    role_name: Mapped[str] = mapped_column("role", String(16), default=Role.viewer.name)
    active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_login_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    # Part of every session's and remember cookie's user id: raising it ends them all.
    session_generation: Mapped[int] = mapped_column(default=0, server_default="0")

    tokens: Mapped[list[ApiToken]] = relationship(
        back_populates="user", cascade="all, delete-orphan", order_by="ApiToken.created_at.desc()"
    )

    @property
    def role(self) -> Role:
        return Role[self.role_name]

    @role.setter
    def role(self, value: Role) -> None:
        self.role_name = value.name

    @property
    def is_active(self) -> bool:  # Flask-Login refuses inactive users
        return self.active

    @property
    def display_name(self) -> str:
        """What pages call the person: their name, else their address's part before the @
        (pages never show a colleague's whole address)."""
        return self.name or self.email.partition("@")[0]

    def get_id(self) -> str:
        """What Flask-Login keeps in the session and the remember cookie."""
        return f"{self.id}-{self.session_generation}"

    def end_sessions(self) -> None:
        """Every session and remember cookie issued so far stops working."""
        self.session_generation = (self.session_generation or 0) + 1

    def set_password(self, password: str) -> None:
        self.password_hash = generate_password_hash(password)
        self.end_sessions()

    def check_password(self, password: str) -> bool:
        return check_password_hash(self.password_hash, password)

    def can(self, role: Role) -> bool:
        return self.active and self.role >= role

    @staticmethod
    def normalize_email(email: str) -> str:
        return email.strip().lower()

    @classmethod
    def by_email(cls, email: str) -> User | None:
        return db.session.scalar(select(cls).where(cls.email == cls.normalize_email(email)))


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class ApiToken(db.Model):
    __tablename__ = "api_tokens"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("users.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    # Only the hash is kept; the token itself is shown once, when it is made.
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    hint: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    user: Mapped[User] = relationship(back_populates="tokens")

    @classmethod
    def issue(cls, user: User, name: str) -> tuple[ApiToken, str]:
        """Make a token for user; return the row and the only copy of the secret."""
        secret = TOKEN_PREFIX + secrets.token_urlsafe(32)
        token = cls(user=user, name=name, token_hash=hash_token(secret), hint=secret[-4:])
        db.session.add(token)
        return token, secret

    @classmethod
    def find_active(cls, secret: str) -> ApiToken | None:
        token = db.session.scalar(select(cls).where(cls.token_hash == hash_token(secret)))
        if token is None or token.revoked_at is not None or not token.user.active:
            return None
        return token

    @property
    def revoked(self) -> bool:
        return self.revoked_at is not None


class LoginAttempt(db.Model):
    __tablename__ = "login_attempts"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(254), index=True)
    remote_addr: Mapped[str] = mapped_column(String(64), index=True)
    succeeded: Mapped[bool]
    at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
