"""The `furrow` command: Flask's own commands (db, routes, shell) plus serve, worker and users."""

from __future__ import annotations

import os
import socket
import sys
import time
from importlib import import_module

import click
from flask import Flask, current_app
from flask.cli import FlaskGroup, with_appcontext

from webapp.config import ConfigError
from webapp.workspaces import workspace_commands


def _create_app() -> Flask:
    from webapp import create_app

    # A worker never migrates: it goes without alembic, 11 MB of a process that mostly waits.
    command = click.get_current_context(silent=True)
    migrations = command is None or command.info_name != "worker"
    try:
        return create_app(migrations=migrations)
    except ConfigError as exc:
        click.echo(f"furrow: configuration error: {exc}", err=True)
        sys.exit(2)


class FurrowGroup(FlaskGroup):
    """Flask's group, but listing its commands (`furrow --help`) makes no app: every command is
    on the group itself, and one that needs the app makes it when it runs (`with_appcontext`).
    A command only some extension adds to `app.cli` still runs: get_command looks there last.

    `lazy` commands are imported when they run, not to be listed (Flask-Migrate's `db` brings
    alembic and SQLAlchemy: a quarter of a second)."""

    lazy: dict[str, tuple[str, str, str]] = {  # name: (module, attribute, its line in --help)
        "db": ("flask_migrate.cli", "db", "Perform database migrations."),
    }
    _listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        self._load_plugin_commands()
        return sorted({*click.Group.list_commands(self, ctx), *self.lazy})

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        if name in self.lazy and name not in self.commands:
            module, attribute, short_help = self.lazy[name]
            if self._listing:
                return click.Command(name, short_help=short_help)
            return getattr(import_module(module), attribute)
        return super().get_command(ctx, name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False


@click.group(cls=FurrowGroup, create_app=_create_app, add_version_option=False)
def main() -> None:
    """Furrow: agronomy records, AI proposals with evidence, approved by people."""


def fail(message: str, code: int = 1):
    click.echo(f"furrow: {message}", err=True)
    sys.exit(code)


@click.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=5000, show_default=True, type=click.IntRange(1, 65535))
@click.option("--workers", type=click.IntRange(0, 64), help="RQ workers [FURROW_WORKERS].")
@click.option("--demo", is_flag=True, help="Add the demo data where there is none (`furrow demo`).")
def serve(host: str, port: int, workers: int | None, demo: bool) -> None:
    """Start Redis (embedded unless REDIS_URL), migrate, then web server and workers."""
    from sqlalchemy.exc import OperationalError

    from webapp.config import load_settings
    from webapp.database import failure_line
    from webapp.serve import Supervisor

    try:
        settings = load_settings()
    except ConfigError as exc:
        fail(f"configuration error: {exc}", 2)
    count = settings.workers if workers is None else workers
    try:
        code = Supervisor(settings, host, port, count, demo=demo).run()
    except ConfigError as exc:
        fail(str(exc), 2)
    except OperationalError as exc:
        fail(f"the database is not reachable: {failure_line(exc)}")
    sys.exit(code)


@click.command("worker")
@click.option("--burst", is_flag=True, help="Stop when the queue is empty.")
@with_appcontext
def worker(burst: bool) -> None:
    """Run one RQ worker against REDIS_URL (or this instance's embedded Redis)."""
    import redis
    from rq import Worker

    from webapp.ai.client import warm
    from webapp.heap import settle

    settings = current_app.config["FURROW"]
    # No socket timeout here: the worker blocks on the queue for long stretches.
    connection = redis.Redis.from_url(settings.effective_redis_url, socket_connect_timeout=5)
    where = settings.redis_url or f"the embedded Redis at {settings.embedded_redis_socket}"
    try:
        connection.ping()
    except redis.RedisError as exc:
        fail(f"cannot reach {where}: {exc} (set REDIS_URL, or start `furrow serve`)")
    name = f"furrow-{socket.gethostname()}-{os.getpid()}"
    warm(settings)  # the jobs' work horses are forked from here: they inherit the client
    settle()  # and the collector's settings, and the frozen start-up heap
    try:
        Worker([settings.queue_name], connection=connection, name=name).work(
            burst=burst, logging_level="INFO", with_scheduler=False
        )
    except redis.RedisError as exc:
        # RQ retries a lost connection while it waits for jobs; what can still fail here is its
        # sign-off when stopped while Redis is gone.
        fail(f"stopped without reaching {where}: {exc}")


@click.command("sweep")
@click.option("--every", type=float, help="Repeat every N seconds [FURROW_SWEEP_SECONDS].")
@click.option("--once", is_flag=True, help="One pass, then exit.")
@with_appcontext
def sweep_command(every: float | None, once: bool) -> None:
    """Mark runs whose job or worker is gone as failed; hard-stop overdue cancels.

    `furrow serve` does this itself; run it as its own service when web and workers are separate.
    """
    from webapp.jobs.sweeper import SweepSkipped, sweep

    interval = every or current_app.config["FURROW"].sweep_seconds
    while True:
        try:
            report = sweep()
            if report.lost or report.queue_lost or report.hard_cancelled:
                click.echo(
                    f"lost: {report.lost} queue_lost: {report.queue_lost} "
                    f"hard-cancelled: {report.hard_cancelled}"
                )
        except SweepSkipped as exc:
            if once:
                fail(str(exc))
            click.echo(f"furrow: sweep skipped, {exc}", err=True)
        if once:
            return
        time.sleep(interval)


@click.command("demo")
@with_appcontext
def demo_command() -> None:
    """Load the demo cultures and farm system where there are none (`make run` does this)."""
    from webapp.workspaces import load_demo_data

    for line in load_demo_data():
        click.echo(line)


@click.group("users")
def users_cli() -> None:
    """Manage accounts."""


@users_cli.command("create")
@click.argument("email")
@click.option("--role", default="viewer", show_default=True, help="viewer|editor|reviewer|admin")
@click.option("--name", default="", help="Display name.")
@click.option("--password", envvar="FURROW_PASSWORD", help="Else FURROW_PASSWORD, else a prompt.")
@with_appcontext
def create_user_command(email: str, role: str, name: str, password: str | None) -> None:
    """Create an account."""
    from webapp.auth.accounts import AccountError, create_user
    from webapp.auth.roles import Role
    from webapp.extensions import db

    try:
        parsed_role = Role.parse(role)
    except ValueError as exc:
        fail(str(exc), 2)
    if not password:
        if not sys.stdin.isatty():
            fail("no password: pass --password, set FURROW_PASSWORD, or run in a terminal", 2)
        password = click.prompt("Password", hide_input=True, confirmation_prompt=True)
    try:
        user = create_user(email, password, parsed_role, name)
    except AccountError as exc:
        fail(str(exc), 2)
    db.session.commit()
    click.echo(f"created {user.email} ({user.role.name})")


@users_cli.command("token")
@click.argument("email")
@click.option("--name", default="command line", show_default=True, help="What the token is for.")
@with_appcontext
def token_command(email: str, name: str) -> None:
    """Make a new API token; the token is the last line printed, shown only this once."""
    from webapp.auth.models import ApiToken, User
    from webapp.extensions import db

    user = User.by_email(email)
    if user is None:
        fail(f"no account for {email}", 2)
    if not user.active:
        fail(f"the account {user.email} is disabled", 2)
    _token, secret = ApiToken.issue(user, name)
    db.session.commit()
    click.echo(f"API token for {user.email} ({user.role.name}); it is not shown again:")
    click.echo(secret)


@users_cli.command("list")
@with_appcontext
def list_users_command() -> None:
    """List accounts."""
    from sqlalchemy import select

    from webapp.auth.models import User
    from webapp.extensions import db

    for user in db.session.scalars(select(User).order_by(User.email)):
        state = "active" if user.active else "disabled"
        click.echo(f"{user.email}\t{user.role.name}\t{state}")


def app_commands() -> list[click.Command]:
    """The commands that run in the app: on the group (listed without it) and on `app.cli`."""
    commands = [serve, worker, sweep_command, users_cli, demo_command]
    for module in workspace_commands():
        commands.extend(module.commands)
    return commands


def register_commands(app: Flask) -> None:
    for command in app_commands():
        app.cli.add_command(command)


for _command in app_commands():
    main.add_command(_command)
# Those need neither app nor database.
for _module in workspace_commands():
    for _command in getattr(_module, "app_free_commands", ()):
        main.add_command(_command)
