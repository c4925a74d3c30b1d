"""The database going away and coming back: clear 503s meanwhile, no restart needed after."""

import logging

import psycopg
import pytest
from flask_migrate import upgrade

from tests.support.services import free_port, fresh_postgres_database
from webapp import ROOT, create_app
from webapp.auth.accounts import create_user
from webapp.auth.models import ApiToken
from webapp.auth.roles import Role
from webapp.config import load_settings
from webapp.extensions import db


def app_on(database_url: str, redis_url: str, tmp_path):
    settings = load_settings(
        {
            "FURROW_INSTANCE_PATH": str(tmp_path / "instance"),
            "DATABASE_URL": database_url,
            "REDIS_URL": redis_url,
            "SECRET_KEY": "s" * 32,
        }
    )
    app = create_app(settings)
    app.config["TESTING"] = True
    return app


@pytest.fixture
def unreachable_app(services, tmp_path):
    # Nothing listens on a port just found free: every connection is refused.
    url = f"postgresql+psycopg://postgres@127.0.0.1:{free_port()}/furrow"
    return app_on(url, services.redis_url, tmp_path)


def test_an_unreachable_database_is_a_503_page_json_and_health_report(unreachable_app, caplog):
    client = unreachable_app.test_client()
    with caplog.at_level(logging.WARNING):
        login = client.get("/login")
        assert login.status_code == 503
        assert "The database cannot be used right now" in login.get_data(as_text=True)

        # Signed in: the error page itself must not need the user the database cannot load.
        with client.session_transaction() as session:
            session["_user_id"] = "1"
        home = client.get("/")
        assert home.status_code == 503
        assert "The database cannot be used right now" in home.get_data(as_text=True)
        assert "Sign out" not in home.get_data(as_text=True)

        api = client.get("/api/v1/me", headers={"Authorization": "Bearer some-token"})
        assert api.status_code == 503
        assert api.get_json()["error"]["code"] == "database_unavailable"

        health = client.get("/healthz")
        assert health.status_code == 503
        assert health.get_json()["status"] == "degraded"
        assert health.get_json()["down"] == ["database"]
    # One warning line per request, never a logged traceback.
    assert not [r for r in caplog.records if r.exc_info]
    assert "database not usable on GET /login: connection failed" in caplog.text


def test_a_dropped_postgresql_connection_recovers_without_a_restart(services, tmp_path):
    if not services.database_url.startswith("postgresql"):
        pytest.skip("needs PostgreSQL (DATABASE_URL)")
    with fresh_postgres_database(services.database_url) as url:
        app = app_on(url, services.redis_url, tmp_path)
        with app.app_context():
            upgrade(directory=str(ROOT / "migrations"))
            user = create_user("ops@example.org", "a long enough password", Role.viewer)
            _token, secret = ApiToken.issue(user, "drill")
            db.session.commit()
            database = db.engine.url.database
        client = app.test_client()
        headers = {"Authorization": f"Bearer {secret}"}
        assert client.get("/api/v1/me", headers=headers).status_code == 200

        # The server ends every session of this database, as a restart or failover would.
        admin = url.replace("postgresql+psycopg://", "postgresql://").rsplit("/", 1)[0]
        with psycopg.connect(f"{admin}/postgres", autocommit=True) as conn:
            ended = conn.execute(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                "WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            ).fetchone()[0]
        assert ended >= 1

        # The pool pings each connection before use and replaces the dead ones.
        me = client.get("/api/v1/me", headers=headers)
        assert me.status_code == 200 and me.get_json()["email"] == "ops@example.org"
        assert client.get("/healthz").get_json()["database"] == "ok"
        with app.app_context():
            db.engine.dispose()
