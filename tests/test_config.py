import os
import stat
import subprocess
import sys

import pytest

from tests.support.app import run_cli
from webapp import ROOT
from webapp.config import ConfigError, load_settings


def env(tmp_path, **values):
    return {"FURROW_INSTANCE_PATH": str(tmp_path), **values}


def test_defaults_are_sqlite_embedded_redis_offline_and_two_workers(tmp_path):
    settings = load_settings(env(tmp_path))
    assert settings.database_url == f"sqlite:///{tmp_path / 'furrow.db'}"
    assert settings.redis_url is None
    assert settings.effective_redis_url == f"unix://{tmp_path / 'redis.sock'}"
    assert settings.provider == "offline"
    assert settings.workers == 2
    assert settings.max_upload_mb == 20
    assert settings.model_concurrency == 3


def test_secret_key_is_generated_once_private_and_kept(tmp_path):
    first = load_settings(env(tmp_path)).secret_key
    second = load_settings(env(tmp_path)).secret_key
    assert first == second and len(first) == 64
    mode = stat.S_IMODE(os.stat(tmp_path / "secret_key").st_mode)
    assert mode == 0o600


def test_secret_key_from_environment_wins(tmp_path):
    assert load_settings(env(tmp_path, SECRET_KEY="s3cret")).secret_key == "s3cret"
    assert not (tmp_path / "secret_key").exists()


def test_postgres_urls_use_psycopg3(tmp_path):
    settings = load_settings(env(tmp_path, DATABASE_URL="postgres://u@db:5432/furrow"))
    assert settings.database_url == "postgresql+psycopg://u@db:5432/furrow"


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("FURROW_PROVIDER", "gpt", "FURROW_PROVIDER must be one of offline, openai"),
        ("FURROW_WORKERS", "two", "FURROW_WORKERS must be a whole number"),
        ("FURROW_WORKERS", "-1", "FURROW_WORKERS must be at least 0"),
        ("FURROW_MAX_UPLOAD_MB", "0", "FURROW_MAX_UPLOAD_MB must be at least 1"),
        ("DATABASE_URL", "mysql://x/y", "DATABASE_URL must be a sqlite:/// or postgresql://"),
        ("REDIS_URL", "localhost:6379", "REDIS_URL must start with redis://"),
        ("OPENAI_BASE_URL", "localhost:11434", "OPENAI_BASE_URL must start with http://"),
        ("FURROW_HEARTBEAT_SECONDS", "0", "FURROW_HEARTBEAT_SECONDS must be more than 0"),
        ("FURROW_MODEL_CONCURRENCY", "0", "FURROW_MODEL_CONCURRENCY must be at least 1"),
    ],
)
def test_bad_configuration_is_one_clear_error(tmp_path, name, value, message):
    with pytest.raises(ConfigError, match=message):
        load_settings(env(tmp_path, **{name: value}))


def test_openai_provider_needs_a_key_or_a_base_url(tmp_path):
    with pytest.raises(ConfigError, match="needs OPENAI_API_KEY"):
        load_settings(env(tmp_path, FURROW_PROVIDER="openai"))
    settings = load_settings(
        env(tmp_path, FURROW_PROVIDER="openai", OPENAI_BASE_URL="http://127.0.0.1:11434/v1")
    )
    assert settings.provider == "openai"


def test_cli_with_bad_configuration_exits_with_one_line(tmp_path):
    result = run_cli(["routes"], **env(tmp_path, FURROW_WORKERS="many"))
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "furrow: configuration error: FURROW_WORKERS must be a whole number, got 'many'"
    ]


def test_the_furrow_command_starts_as_a_process(tmp_path):
    """The one check of `python -m webapp` itself: the entry point imports and lists its
    commands (every other command test runs the same group in-process)."""
    result = subprocess.run(
        [sys.executable, "-m", "webapp", "--help"],
        cwd=ROOT,
        env={**os.environ, **env(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    listed = {line.split()[0] for line in result.stdout.splitlines() if line.startswith("  ")}
    assert {"serve", "worker", "users", "demo", "fertilize", "registry", "db"} <= listed


def test_secure_cookies_and_trusted_proxies(tmp_path):
    settings = load_settings(env(tmp_path, FURROW_SECURE_COOKIES="1", FURROW_TRUSTED_PROXIES="1"))
    assert settings.as_flask_config()["SESSION_COOKIE_SECURE"] is True
    assert settings.trusted_proxies == 1
    with pytest.raises(ConfigError, match="FURROW_SECURE_COOKIES must be 1 or 0"):
        load_settings(env(tmp_path, FURROW_SECURE_COOKIES="maybe"))
