"""The review pages every workspace shares, served for any registered target: undo of a group
of changes. A workspace's pages link here and say where to come back to (`back`)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.extensions import db
from webapp.links import is_site_path
from webapp.review import bp, service


def back_from_form() -> str | None:
    """The page a form says to return to, if it is one of this site's."""
    back = request.values.get("back")
    return back if is_site_path(back) else None


@bp.post("/undo/<group>")
@require_role(Role.reviewer)
def undo(group: str):
    """Undo one group of changes across every record it changed, unless one changed since;
    which groups may be undone is the targets' to say (ReviewTarget.owns), here once."""
    back = back_from_form()
    found = service.undoable_group(group)
    if found is None:
        flash("There was nothing to undo.", "warning")
        return redirect(back or url_for("main.home"))
    result = service.undo(group, current_user)
    db.session.commit()
    if result.changed_since_in:
        changed = service.undone_in_words(result.changed_since_in)
        flash(f"Nothing was undone: these changed since — {changed}.", "error")
    elif result.restored_in:
        flash(f"Undone — {service.undone_in_words(result.restored_in)}.", "success")
    else:
        flash("There was nothing to undo.", "warning")
    return redirect(back or found.target.back_url(found.ids) or url_for("main.home"))
