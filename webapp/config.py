"""Settings read from the environment, with the defaults documented in the README."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from webapp.ai import PROVIDERS
from webapp.json_columns import json_text, json_value

PRICE_KEYS = ("input_per_million", "output_per_million", "per_web_search")


class ConfigError(Exception):
    """Configuration that Furrow cannot start with; the message is one line for a person."""


@dataclass(frozen=True)
class Settings:
    instance_path: Path
    database_url: str
    redis_url: str | None
    secret_key: str
    provider: str
    openai_api_key: str | None
    openai_base_url: str | None
    openai_model: str
    openai_api: str
    openai_timeout: float
    openai_prices: dict[str, dict[str, float]]
    workers: int
    queue_name: str
    max_upload_mb: int
    heartbeat_seconds: float
    lost_after_seconds: float
    cancel_grace_seconds: float
    sweep_seconds: float
    trusted_proxies: int
    secure_cookies: bool
    # Hosts (or host:port) server-side page reads may reach although they are private.
    fetch_allow_hosts: tuple[str, ...] = ()
    # The most rows one table enrichment run may work on (a run is a background job).
    max_rows_per_run: int = 10_000
    # Every model call is bounded: the most tokens one answer may take (reasoning included,
    # on the Responses API), and how often the SDK retries a failed or timed-out call.
    openai_max_output_tokens: int = 8192
    openai_max_retries: int = 2
    # The most model calls one run makes at once (a table's rows, a registry's documents);
    # a local server's parallel slots should match it.
    model_concurrency: int = 3
    # Pages and JSON answers compressed (br, else gzip) for clients that accept it; off when a
    # proxy in front compresses them.
    compress: bool = True

    @property
    def embedded_redis_socket(self) -> Path:
        return self.instance_path / "redis.sock"

    @property
    def effective_redis_url(self) -> str:
        return self.redis_url or f"unix://{self.embedded_redis_socket}"

    def as_flask_config(self) -> dict[str, object]:
        return {
            "SECRET_KEY": self.secret_key,
            "SQLALCHEMY_DATABASE_URI": self.database_url,
            "SQLALCHEMY_ENGINE_OPTIONS": engine_options(self.database_url),
            "MAX_CONTENT_LENGTH": self.max_upload_mb * 1024 * 1024,
            "WTF_CSRF_CHECK_DEFAULT": False,
            "WTF_CSRF_TIME_LIMIT": None,
            "SESSION_COOKIE_HTTPONLY": True,
            "SESSION_COOKIE_SECURE": self.secure_cookies,
            "REMEMBER_COOKIE_NAME": "remember_token",
            "REMEMBER_COOKIE_SECURE": self.secure_cookies,
            "SESSION_COOKIE_SAMESITE": "Lax",
            "REMEMBER_COOKIE_SAMESITE": "Lax",
            "FURROW": self,
        }


# Connections one process keeps open: a run's pool threads (10 for a computation), its saver,
# its heartbeat and the runner itself; past the pool, a connection is opened (with its PRAGMAs,
# or a new PostgreSQL backend) and closed for every use.
POOL_SIZE = 13
JSON_CODEC = {"json_serializer": json_text, "json_deserializer": json_value}


def engine_options(database_url: str) -> dict[str, object]:
    if database_url.startswith("sqlite"):
        # Several processes (web, workers, sweeper) share the file: wait for the lock instead of
        # failing at once.
        return {"connect_args": {"timeout": 15}, "pool_size": POOL_SIZE, **JSON_CODEC}
    return {"pool_pre_ping": True, "pool_size": POOL_SIZE, **JSON_CODEC}


def _int(env: dict[str, str], name: str, default: int, minimum: int) -> int:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, got {raw!r}") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, got {value}")
    return value


def _float(env: dict[str, str], name: str, default: float) -> float:
    raw = env.get(name)
    if raw in (None, ""):
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number of seconds, got {raw!r}") from None
    if value <= 0:
        raise ConfigError(f"{name} must be more than 0 seconds, got {raw}")
    return value


def _choice(env: dict[str, str], name: str, choices: tuple[str, ...]) -> str:
    value = env.get(name) or choices[0]
    if value not in choices:
        raise ConfigError(f"{name} must be one of {', '.join(choices)}, got {value!r}")
    return value


def _prices(raw: str | None) -> dict[str, dict[str, float]]:
    """USD per million input/output tokens and per web search, by model name."""
    if not raw:
        return {}
    try:
        table = json.loads(raw)
        return {
            model: {key: float(price[key]) for key in PRICE_KEYS if key in price}
            for model, price in table.items()
        }
    except (ValueError, TypeError, AttributeError):
        raise ConfigError(
            'FURROW_OPENAI_PRICES must be JSON like {"model": {"input_per_million": 0.25, '
            '"output_per_million": 2.0, "per_web_search": 0.01}}'
        ) from None


def _flag(env: dict[str, str], name: str, default: str = "0") -> bool:
    raw = (env.get(name) or default).strip().lower()
    if raw not in ("0", "1", "true", "false", "yes", "no"):
        raise ConfigError(f"{name} must be 1 or 0, got {raw!r}")
    return raw in ("1", "true", "yes")


def _secret_key(instance_path: Path, env: dict[str, str]) -> str:
    if env.get("SECRET_KEY"):
        return env["SECRET_KEY"]
    key_file = instance_path / "secret_key"
    if not key_file.exists():
        # O_EXCL: when several processes start at once, the first one writes and the rest read.
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
    key = key_file.read_text().strip()
    if not key:
        raise ConfigError(f"{key_file} is empty: delete it to generate a new secret key")
    return key


def _database_url(raw: str | None, instance_path: Path) -> str:
    if not raw:
        return f"sqlite:///{instance_path / 'furrow.db'}"
    if raw.startswith("postgres://"):
        raw = "postgresql://" + raw.removeprefix("postgres://")
    if raw.startswith("postgresql://"):
        raw = "postgresql+psycopg://" + raw.removeprefix("postgresql://")
    if not raw.startswith(("sqlite", "postgresql+psycopg://")):
        raise ConfigError(
            f"DATABASE_URL must be a sqlite:/// or postgresql:// URL, got {raw.split(':')[0]}:..."
        )
    return raw


def load_settings(env: dict[str, str] | None = None) -> Settings:
    """Read and check every setting; raise ConfigError with one clear line on a bad one."""
    env = dict(os.environ if env is None else env)
    instance_path = Path(env.get("FURROW_INSTANCE_PATH") or "instance").resolve()
    try:
        instance_path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"FURROW_INSTANCE_PATH {instance_path} cannot be created: {exc}"
        ) from None

    provider = env.get("FURROW_PROVIDER") or "offline"
    if provider not in PROVIDERS:
        raise ConfigError(
            f"FURROW_PROVIDER must be one of {', '.join(PROVIDERS)}, got {provider!r}"
        )
    api_key = env.get("OPENAI_API_KEY") or None
    base_url = env.get("OPENAI_BASE_URL") or None
    if provider == "openai" and not (api_key or base_url):
        raise ConfigError("FURROW_PROVIDER=openai needs OPENAI_API_KEY (or OPENAI_BASE_URL)")
    if base_url and not base_url.startswith(("http://", "https://")):
        raise ConfigError(f"OPENAI_BASE_URL must start with http:// or https://, got {base_url!r}")

    redis_url = env.get("REDIS_URL") or None
    if redis_url and not redis_url.startswith(("redis://", "rediss://", "unix://")):
        raise ConfigError(
            f"REDIS_URL must start with redis://, rediss:// or unix://, got {redis_url!r}"
        )

    heartbeat = _float(env, "FURROW_HEARTBEAT_SECONDS", 5.0)
    return Settings(
        instance_path=instance_path,
        database_url=_database_url(env.get("DATABASE_URL"), instance_path),
        redis_url=redis_url,
        secret_key=_secret_key(instance_path, env),
        provider=provider,
        openai_api_key=api_key,
        openai_base_url=base_url,
        openai_model=env.get("OPENAI_MODEL") or "gpt-5-mini",
        openai_api=_choice(env, "FURROW_OPENAI_API", ("responses", "chat")),
        openai_timeout=_float(env, "FURROW_OPENAI_TIMEOUT_SECONDS", 60.0),
        openai_max_output_tokens=_int(env, "FURROW_OPENAI_MAX_OUTPUT_TOKENS", 8192, minimum=16),
        openai_max_retries=_int(env, "FURROW_OPENAI_MAX_RETRIES", 2, minimum=0),
        model_concurrency=_int(env, "FURROW_MODEL_CONCURRENCY", 3, minimum=1),
        openai_prices=_prices(env.get("FURROW_OPENAI_PRICES")),
        workers=_int(env, "FURROW_WORKERS", 2, minimum=0),
        queue_name=env.get("FURROW_QUEUE") or "furrow",
        max_upload_mb=_int(env, "FURROW_MAX_UPLOAD_MB", 20, minimum=1),
        heartbeat_seconds=heartbeat,
        lost_after_seconds=_float(env, "FURROW_LOST_AFTER_SECONDS", max(30.0, heartbeat * 4)),
        cancel_grace_seconds=_float(env, "FURROW_CANCEL_GRACE_SECONDS", 5.0),
        sweep_seconds=_float(env, "FURROW_SWEEP_SECONDS", 5.0),
        trusted_proxies=_int(env, "FURROW_TRUSTED_PROXIES", 0, minimum=0),
        secure_cookies=_flag(env, "FURROW_SECURE_COOKIES"),
        compress=_flag(env, "FURROW_COMPRESS", "1"),
        max_rows_per_run=_int(env, "FURROW_MAX_ROWS_PER_RUN", 10_000, minimum=1),
        fetch_allow_hosts=tuple(
            host.strip().lower()
            for host in (env.get("FURROW_FETCH_ALLOW_HOSTS") or "").split(",")
            if host.strip()
        ),
    )
