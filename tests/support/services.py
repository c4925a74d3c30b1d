"""The real services a test session uses: a database and a Redis, fresh for the session.

Defaults: a SQLite file and Furrow's own embedded Redis. With DATABASE_URL pointing at
PostgreSQL, a new database is created for the session and dropped after it; with REDIS_URL, a
queue name of this session's own keeps runs apart.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import socket
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest
from psycopg import sql
from sqlalchemy.engine import make_url

from webapp.jobs.embedded_redis import EmbeddedRedis


@dataclass(frozen=True)
class Services:
    database_url: str
    redis_url: str
    queue_name: str
    instance_path: Path

    def env(self, **extra: str) -> dict[str, str]:
        """Environment for a Furrow process (worker, server) that shares this session's data."""
        env = dict(os.environ)
        env.update(
            DATABASE_URL=self.database_url,
            REDIS_URL=self.redis_url,
            FURROW_QUEUE=self.queue_name,
            FURROW_INSTANCE_PATH=str(self.instance_path),
            FURROW_HEARTBEAT_SECONDS="0.5",
            FURROW_LOST_AFTER_SECONDS="3",
            FURROW_CANCEL_GRACE_SECONDS="1",
            PYTHONUNBUFFERED="1",
        )
        env.update(extra)
        return env


def _libpq(url: str, database: str) -> str:
    parsed = make_url(url).set(drivername="postgresql", database=database)
    return parsed.render_as_string(hide_password=False)


@contextlib.contextmanager
def fresh_postgres_database(url: str) -> Iterator[str]:
    """Create a database of its own for this session next to the one in url; drop it after."""
    name = f"furrow_test_{secrets.token_hex(4)}"
    admin = _libpq(url, make_url(url).database or "postgres")
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield make_url(url).set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(
                sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
            )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def services(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Services]:
    instance = tmp_path_factory.mktemp("instance")
    queue_name = f"furrow-test-{secrets.token_hex(4)}"
    with contextlib.ExitStack() as stack:
        redis_url = os.environ.get("REDIS_URL")
        if not redis_url:
            embedded = EmbeddedRedis(instance / "redis.sock")
            embedded.start()
            stack.callback(embedded.stop)
            redis_url = embedded.url
        database_url = os.environ.get("DATABASE_URL", "")
        if database_url.startswith("postgres"):
            url = database_url.replace("postgresql://", "postgresql+psycopg://", 1)
            database_url = stack.enter_context(fresh_postgres_database(url))
        else:
            database_url = f"sqlite:///{instance / 'furrow.db'}"
        yield Services(database_url, redis_url, queue_name, instance)
