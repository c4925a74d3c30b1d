"""The lots page: how a seed lot looks, and the button that starts a lookup. Its review is the
core's run page."""

from __future__ import annotations

from flask import redirect
from flask_login import current_user
from sqlalchemy import select

from tests.example_workspace import bp
from tests.example_workspace.models import SeedLot
from tests.example_workspace.rules import LABELS, UNITS
from tests.example_workspace.runs import WeightLookup, start_lookup
from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db
from webapp.rendering import render_page


@bp.get("")
def index():
    lots = db.session.scalars(select(SeedLot).order_by(SeedLot.name))
    return render_page(
        "seed_lots/index.html", lots=list(lots), labels=LABELS, units=UNITS, form=EmptyForm()
    )


@bp.post("/lookup")
@require_role(Role.editor)
def lookup():
    run = start_lookup(current_user)
    db.session.commit()
    return redirect(WeightLookup().review_url(run))
