"""Furrow: a web workbench where AI proposes values for agronomy records and people approve them."""

from __future__ import annotations

from pathlib import Path

from flask import Flask
from werkzeug.middleware.proxy_fix import ProxyFix

from webapp.config import Settings, load_settings

ROOT = Path(__file__).resolve().parent.parent


def create_app(settings: Settings | None = None) -> Flask:
    """Build the app from settings (read from the environment when not given)."""
    settings = settings or load_settings()
    app = Flask(
        __name__,
        instance_path=str(settings.instance_path),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_mapping(settings.as_flask_config())
    if settings.trusted_proxies:
        # Behind N proxies, take the client address and scheme from their X-Forwarded-* headers.
        n = settings.trusted_proxies
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=n, x_proto=n, x_host=n)  # type: ignore[method-assign]
    init_extensions(app, settings)
    register_blueprints(app)
    register_request_hooks(app)
    return app


def init_extensions(app: Flask, settings: Settings) -> None:
    from webapp.database import configure_sqlite
    from webapp.extensions import csrf, db, htmx, login_manager, migrate
    from webapp.jobs.queue import JobQueue

    db.init_app(app)
    migrate.init_app(app, db, directory=str(ROOT / "migrations"))
    csrf.init_app(app)
    login_manager.init_app(app)
    htmx.init_app(app)
    with app.app_context():
        configure_sqlite(db.engine)
    app.extensions["furrow.jobs"] = JobQueue.for_settings(settings)


def register_blueprints(app: Flask) -> None:
    from webapp import api
    from webapp.auth import admin_views
    from webapp.auth import views as auth_views
    from webapp.cli import register_commands
    from webapp.cultures import views as culture_views
    from webapp.errors import register_error_handlers
    from webapp.fertilizer import views as fertilizer_views
    from webapp.jobs import views as run_views
    from webapp.library import views as library_views
    from webapp.main import views as main_views
    from webapp.review import views as review_views
    from webapp.tables import enrich_views
    from webapp.tables import views as table_views

    for blueprint in (
        main_views.bp,
        auth_views.bp,
        admin_views.bp,
        run_views.bp,
        run_views.api,
        culture_views.bp,
        culture_views.api,
        fertilizer_views.bp,
        fertilizer_views.api,
        library_views.bp,
        library_views.api,
        table_views.bp,
        table_views.api,
        enrich_views.runs_api,
        review_views.api,
        api.bp,
    ):
        app.register_blueprint(blueprint)
    register_error_handlers(app)
    register_commands(app)


def register_request_hooks(app: Flask) -> None:
    from webapp.auth.access import enforce_login_and_csrf
    from webapp.auth.roles import Role
    from webapp.jobs.models import RunStatus
    from webapp.main.views import WORKSPACES
    from webapp.markdown import render_markdown
    from webapp.numbers import format_number
    from webapp.review.vocabulary import Confidence

    app.before_request(enforce_login_and_csrf)
    app.jinja_env.filters["markdown"] = render_markdown
    app.jinja_env.filters["num"] = format_number
    app.jinja_env.filters["confidence_level"] = lambda score: Confidence.from_score(score).value
    app.jinja_env.globals.update(workspaces=WORKSPACES, RunStatus=RunStatus, Role=Role)

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
