"""The home page, the workspaces' entry pages, and the health check."""

from __future__ import annotations

import redis
from flask import jsonify
from sqlalchemy import select, text

from webapp.auth.access import public
from webapp.auth.forms import EmptyForm
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.jobs.queue import job_queue
from webapp.main import bp
from webapp.rendering import render_page


@bp.route("/")
def home():
    recent = db.session.scalars(select(Run).order_by(Run.id.desc()).limit(5)).all()
    return render_page("main/home.html", recent=recent, form=EmptyForm())


@bp.route("/healthz")
@public
def healthz():
    checks: dict[str, str] = {}
    try:
        db.session.execute(text("SELECT 1"))
        checks["database"] = "ok"
    except Exception as exc:
        db.session.rollback()
        checks["database"] = f"error: {type(exc).__name__}"
    try:
        job_queue().redis.ping()
        checks["redis"] = "ok"
    except redis.RedisError as exc:
        checks["redis"] = f"error: {type(exc).__name__}"
    down = [name for name, value in checks.items() if value != "ok"]
    return jsonify(status="degraded" if down else "ok", down=down, **checks), 503 if down else 200
