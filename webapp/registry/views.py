"""Registry review pages. Reviews hold project documents with personal data (owners' names):
every page is for editors and up."""

from __future__ import annotations

from flask import request
from sqlalchemy import select

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.pagination import page_number, paginate
from webapp.registry import bp
from webapp.registry.models import Review
from webapp.registry.run import latest_runs
from webapp.rendering import render_page

PER_PAGE = 25


@bp.get("")
@require_role(Role.editor)
def index():
    query = select(Review).order_by(Review.created_at.desc(), Review.id.desc())
    page = paginate(query, page_number(request.args), PER_PAGE)
    runs = latest_runs([r.id for r in page.items])
    return render_page("registry/index.html", page=page, runs=runs)
