"""Furrow: a web workbench where AI proposes values for agronomy records and people approve them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from webapp.config import Settings, load_settings

if TYPE_CHECKING:
    from flask import Flask

ROOT = Path(__file__).resolve().parent.parent


def create_app(settings: Settings | None = None, *, migrations: bool = True) -> Flask:
    """Build the app from settings (read from the environment when not given); without
    migrations, for a process that never migrates (the web's, a worker's), alembic is not
    imported (11 MB)."""
    from flask import Flask  # not with the package: the PDF sandbox's child imports webapp

    from webapp.cli import register_commands
    from webapp.compression import init_compression
    from webapp.contract import configure_contract
    from webapp.errors import register_error_handlers

    settings = settings or load_settings()
    app = Flask(
        __name__,
        instance_path=str(settings.instance_path),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(settings.as_flask_config())
    configure_proxies(app, settings)
    configure_contract(app)
    init_extensions(app, migrations)
    init_compression(app, settings.compress)
    init_job_queue(app, settings)
    register_blueprints(app)
    register_error_handlers(app)
    register_commands(app)
    register_request_hooks(app)
    configure_templates(app)
    return app


def create_core_app(settings: Settings | None = None) -> Flask:
    """The app without its pages: the database (and its migrations) and the job queue.
    `furrow serve`'s supervisor migrates and sweeps with it, so it never holds the pages' modules
    (a third of the memory of a process that does)."""
    from flask import Flask

    settings = settings or load_settings()
    app = Flask(__name__, instance_path=str(settings.instance_path))
    app.config.from_mapping(settings.as_flask_config())
    init_database(app)
    init_job_queue(app, settings)
    return app


def configure_proxies(app: Flask, settings: Settings) -> None:
    from werkzeug.middleware.proxy_fix import ProxyFix

    if settings.trusted_proxies:
        # Behind N proxies, take the client address and scheme from their X-Forwarded-* headers.
        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]


def init_extensions(app: Flask, migrations: bool) -> None:
    from webapp.extensions import csrf, htmx, login_manager

    init_database(app, migrations)
    csrf.init_app(app)
    login_manager.init_app(app)
    htmx.init_app(app)


def init_database(app: Flask, migrations: bool = True) -> None:
    from webapp.database import configure_sqlite
    from webapp.extensions import db

    db.init_app(app)
    if migrations:
        from flask_migrate import Migrate

        Migrate(app, db, directory=str(ROOT / "migrations"), render_as_batch=True)
    with app.app_context():
        configure_sqlite(db.engine)


def init_job_queue(app: Flask, settings: Settings) -> None:
    from webapp.jobs.queue import JobQueue

    app.extensions["furrow.jobs"] = JobQueue.for_settings(settings)


def register_blueprints(app: Flask) -> None:
    """Every package's blueprints, as webapp.workspaces lists them."""
    from webapp.workspaces import WORKSPACES

    for workspace in WORKSPACES:
        for blueprint in workspace.blueprints():
            app.register_blueprint(blueprint)


def configure_templates(app: Flask) -> None:
    """The filters and names every template may use; the navigation reads WORKSPACES."""
    from webapp.auth.roles import Role
    from webapp.jobs.models import RunStatus
    from webapp.links import is_safe_link
    from webapp.markdown import render_markdown
    from webapp.numbers import display_number, format_number
    from webapp.review.targets import partner_field
    from webapp.review.vocabulary import Confidence
    from webapp.workspaces import WORKSPACES

    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["num"] = format_number
    # What people read of a measured value (3 significant figures); exports keep it whole.
    app.jinja_env.filters["figures"] = display_number
    app.jinja_env.filters["confidence_level"] = lambda score: Confidence.from_score(score).value
    app.jinja_env.tests["safe_link"] = is_safe_link
    app.jinja_env.globals.update(
        workspaces=WORKSPACES, RunStatus=RunStatus, Role=Role, partner_field=partner_field
    )


def register_request_hooks(app: Flask) -> None:
    from flask import request

    from webapp.api import BodyInvalid
    from webapp.auth.access import enforce_login_and_csrf
    from webapp.bodies import configure_bodies

    configure_bodies(app)
    app.before_request(enforce_login_and_csrf)

    @app.before_request
    def refuse_nul_in_the_address():
        # Nothing Furrow stores or searches may hold a NUL, and PostgreSQL's text cannot: an
        # address with one, in its path or its query string, is refused before any view reads it.
        args = request.args.items(multi=True)
        if "\x00" in request.path or any("\x00" in key + value for key, value in args):
            raise BodyInvalid("The address may not contain a NUL character (%00).")

    @app.after_request
    def security_headers(response):
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("Referrer-Policy", "same-origin")
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self'; "
            "script-src 'self'; frame-ancestors 'none'",
        )
        return response
