"""The review pages every workspace shares, served for any registered target: apply or
reject all valid suggestions of a run (or of the records a page chose), each after a page that
says what it will do; and undo of a group of changes. A workspace's pages link here and say
where to come back to (`back`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from flask import abort, flash, redirect, request, url_for
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db
from webapp.ids import record_ids
from webapp.jobs.kinds import RunKind
from webapp.jobs.models import Run
from webapp.links import is_site_path, with_args
from webapp.rendering import render_page
from webapp.review import bp, service
from webapp.review.targets import ReviewTarget, target_for
from webapp.review.views import reviewed_run_or_404
from webapp.review.vocabulary import level_filter
from webapp.text import listed

# What a confirm page does not carry into its form from the request that asked for it.
NOT_CARRIED = ("csrf_token", "confirmed")
# How many refusals an apply names one by one (flashes travel in the session cookie).
REFUSALS_NAMED = 5


def back_from_form() -> str | None:
    """The page a form says to return to, if it is one of this site's."""
    back = request.values.get("back")
    return back if is_site_path(back) else None


@dataclass(frozen=True)
class Choice:
    """What a person chose to apply or reject: the run's suggestions at a level, of the
    records a page ticked (or matched), and the page to return to."""

    level: str | None
    records: list[int] | None  # None: every record of the run
    back: str

    @property
    def carried(self) -> list[tuple[str, str]]:
        return [
            (k, v)
            for k in request.values
            if k not in NOT_CARRIED
            for v in request.values.getlist(k)
            if v
        ]


def choice_of(run: Run, kind: RunKind) -> Choice | None:
    """The choice a request makes; None when a page's selection ticked nothing."""
    level = level_filter(request.values.get("level"))
    back = back_from_form() or with_args(kind.review_url(run) or "/", level=level)
    if request.values.get("all_matching"):
        return Choice(level, kind.matching(run, request.values), back)
    ticked = record_ids(request.values.getlist("record"))
    if ticked:
        return Choice(level, ticked, back)
    return None if request.values.get("selection") else Choice(level, None, back)


def decided_run(run_id: int) -> tuple[Run, RunKind, ReviewTarget, Choice]:
    run, kind, target = reviewed_run_or_404(run_id)
    if run.is_live:
        abort(409, description="The run is still working; review it once it has finished.")
    choice = choice_of(run, kind)
    if choice is None:
        abort(redirect_with(f"Select at least one {target.label.lower()}.", "warning"))
    return run, kind, target, choice


def redirect_with(message: str, category: str):
    flash(message, category)
    return redirect(back_from_form() or url_for("main.home"))


def records_of(suggestions: Sequence, target: ReviewTarget, most: int = 20) -> list[dict]:
    """The first suggestions as links people read: the record's name and the field's label."""
    names = target.names({s.target_id for s in suggestions[:most]})
    return [
        {
            "name": names.get(s.target_id, f"{target.label} {s.target_id}"),
            "field": target.field_label(s.field),
            "url": target.url(s.target_id),
        }
        for s in suggestions[:most]
    ]


def across(count: int, records: int, noun: str, target: ReviewTarget) -> str:
    """“4 field(s) across 2 culture(s)”; “112 row(s)” where each record has one."""
    said = f"{count:,} {noun}"
    if 1 < records < count:
        said += f" across {records:,} {target.label.lower()}(s)"
    return said


@bp.route("/runs/<int:run_id>/apply-all", methods=["GET", "POST"])
@require_role(Role.reviewer)
def apply_all(run_id: int):
    """Every valid suggestion chosen, in one undoable apply: what it will apply and what it
    leaves out, and why, is said first; applied only once confirmed."""
    run, kind, target, choice = decided_run(run_id)
    plan = service.plan_apply(service.chosen_suggestions(run, choice.level, choice.records))
    if not request.form.get("confirmed"):
        return render_page(
            "review/decide_all.html",
            action="apply",
            run=run,
            kind=kind,
            target=target,
            choice=choice,
            plan=plan,
            ready=across(
                len(plan.ready),
                len({s.target_id for s in plan.ready}),
                kind.suggestion_noun,
                target,
            ),
            stale=records_of(plan.stale, target),
            form=EmptyForm(),
        )
    result = service.apply([s.id for s in plan.ready], current_user, skip_invalid=True)
    # A value changed since the run waits for a person's re-confirm, out of every apply-all.
    service.hold_for_reconfirm([s.id for s in plan.stale])
    db.session.commit()
    if result.applied:
        count = len({a.target_id for a in result.applied})
        said = across(len(result.applied), count, kind.suggestion_noun, target)
        flash(f"Applied {said}.{' ' + kind.applied_note if kind.applied_note else ''}", "success")
    else:
        flash("Nothing was applied: no valid suggestion is left to apply.", "warning")
    flash_refusals(result.refused)
    if skipped := plan.left_out(kind.reconfirm_where):
        flash(skipped, "info")
    return redirect(with_args(choice.back, undo=result.group))


@bp.route("/runs/<int:run_id>/reject-all", methods=["GET", "POST"])
@require_role(Role.reviewer)
def reject_all(run_id: int):
    """Every open suggestion chosen, rejected once confirmed."""
    run, kind, target, choice = decided_run(run_id)
    suggestions = service.chosen_suggestions(run, choice.level, choice.records)
    still_open = [s for s in suggestions if s.status in service.REJECTABLE]
    records = len({s.target_id for s in still_open})
    # What a person ticked on the page they see is rejected at once; a rejection reaching
    # past it (every match, every page, the whole run) asks first.
    ticked = choice.records is not None and not request.values.get("all_matching")
    if request.method == "GET" or not (request.form.get("confirmed") or ticked):
        return render_page(
            "review/decide_all.html",
            action="reject",
            run=run,
            kind=kind,
            target=target,
            choice=choice,
            count=len(still_open),
            ready=across(len(still_open), records, "suggestion(s)", target),
            form=EmptyForm(),
        )
    rejected = set(service.reject([s.id for s in still_open], current_user))
    db.session.commit()
    if rejected:
        records = len({s.target_id for s in still_open if s.id in rejected})
        flash(f"Rejected {across(len(rejected), records, 'suggestion(s)', target)}.", "info")
    else:
        flash("Nothing was rejected: no suggestion is left open.", "warning")
    return redirect(choice.back)


def flash_refusals(refused: Sequence[service.Refusal]) -> None:
    """What an apply refused and why, one message a reason naming its records (a field's
    label once when every one is the same field); past a few reasons, a count."""
    by_reason: dict[str, list[service.Refusal]] = {}
    for refusal in refused:
        by_reason.setdefault(refusal.message, []).append(refusal)
    for reason, mine in list(by_reason.items())[:REFUSALS_NAMED]:
        flash(f"Not applied — {named_refusals(mine)}: {reason}", "error")
    rest = sum(len(mine) for mine in list(by_reason.values())[REFUSALS_NAMED:])
    if rest:
        flash(f"… and {rest:,} more not applied, for other reasons.", "error")


def named_refusals(refused: Sequence[service.Refusal]) -> str:
    """“Per ha of Plot 011 and Plot 012”, or “Pea: Yield, Bean: Spacing”."""
    target = target_for(refused[0].target_type)
    if target is None:
        return listed([r.field for r in refused])
    names = target.names({r.target_id for r in refused})
    name = [names.get(r.target_id, f"{target.label} {r.target_id}") for r in refused]
    labels = {f: target.field_label(f) for f in {r.field for r in refused}}
    if len(labels) == 1:
        return f"{labels.popitem()[1]} of {listed(sorted(name))}"
    return listed([f"{n}: {labels[r.field]}" for n, r in zip(name, refused, strict=True)])


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
