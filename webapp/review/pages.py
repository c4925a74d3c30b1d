"""The review pages every workspace shares, served for any registered target: a run's review
(its progress while it works, then its suggestions a page at a time), apply or reject of the
suggestions a person ticked, apply or reject of all of them (or of the records a page chose)
after a page that says what it will do, and undo of a group of changes. A workspace says how
its rows look (RunKind.review_looks, its detail partial) and where to come back to (`back`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from flask import abort, flash, redirect, request, url_for
from flask_login import current_user
from markupsafe import Markup
from sqlalchemy import select

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.extensions import db
from webapp.ids import record_id, record_ids
from webapp.jobs.kinds import RunKind, found_nothing
from webapp.jobs.models import Run
from webapp.links import is_site_path, with_args
from webapp.pagination import Page, page_number, paginate_list
from webapp.rendering import render_page
from webapp.review import bp, rejections, service
from webapp.review.looks import RowLook, Unproposed
from webapp.review.models import Suggestion
from webapp.review.targets import ReviewTarget, target_for
from webapp.review.views import reviewed_run_or_404
from webapp.review.vocabulary import NOTHING, level_filter, review_filter
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
    """The choice a request makes; None when a page's selection ticked nothing. Records a page
    chose (ticked, or every match of its own filter) are decided whole: there a ?level= picked
    the records (a queue of cultures with warnings), and applying all valid of a culture
    listed "with errors" applies its valid fields. Otherwise ?level= picks the suggestions."""
    level = level_filter(request.values.get("level"))
    back = back_from_form() or with_args(kind.review_url(run) or "/", level=level)
    if request.values.get("all_matching"):
        matched = kind.matching(run, request.values)
        return Choice(level, None, back) if matched is None else Choice(None, matched, back)
    ticked = record_ids(request.values.getlist("record"))
    if ticked:
        return Choice(None, ticked, back)
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


def labelled(target: ReviewTarget, fields: Iterable[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """(record, field) pairs as people call the field, each record's labels read once."""
    by_record: dict[int, list[str]] = {}
    for target_id, field in fields:
        by_record.setdefault(target_id, []).append(field)
    return {
        (target_id, field): label
        for target_id, mine in by_record.items()
        for field, label in target.labels_of(target_id, mine).items()
    }


def records_of(suggestions: Sequence, target: ReviewTarget, most: int = 20) -> list[dict]:
    """The first suggestions as links people read: the record's name and the field's label."""
    shown = suggestions[:most]
    names = target.names({s.target_id for s in shown})
    labels = labelled(target, [(s.target_id, s.field) for s in shown])
    return [
        {
            "name": names.get(s.target_id, f"{target.label} {s.target_id}"),
            "field": labels[s.target_id, s.field],
            "url": target.url(s.target_id),
        }
        for s in shown
    ]


def across(count: int, records: int, noun: str, target: ReviewTarget) -> str:
    """“4 field(s) across 2 culture(s)”; “112 row(s)” where each record has one."""
    said = f"{count:,} {noun}"
    if 1 < records < count:
        said += f" across {records:,} {target.label.lower()}(s)"
    return said


def looks_of(
    run: Run, kind: RunKind, target: ReviewTarget, suggestions: Sequence[Suggestion]
) -> dict[int, RowLook]:
    """How each suggestion's row reads: as its kind says, else its record's name and its
    field's label."""
    looks = kind.review_looks(run, list(suggestions))
    rest = [s for s in suggestions if s.id not in looks]
    names = target.names({s.target_id for s in rest})
    labels = labelled(target, [(s.target_id, s.field) for s in rest])
    for s in rest:
        name = names.get(s.target_id, f"{target.label} {s.target_id}")
        looks[s.id] = RowLook(f"{name}: {labels[s.target_id, s.field]}")
    return looks


def unproposed(run: Run, kind: RunKind, number: int, per_page: int) -> Page:
    """The items a run proposed nothing for, by name, unless its kind says otherwise: those
    that failed, and those whose result says why they found nothing."""
    names = kind.item_names(run)
    items = []
    for key in run.items:
        why = run.item_errors.get(key) or found_nothing(run.results.get(key))
        if why:
            items.append(Unproposed(names.get(key, key), why))
    return paginate_list(items, number, per_page)


@bp.get("/runs/<int:run_id>")
def run_review(run_id: int):
    """A live run's progress, polled (the rows swap in when it ends); an ended run's
    suggestions a page at a time, at one ?level= (or the items it proposed nothing for), with
    counts over all of them."""
    run, kind, target = reviewed_run_or_404(run_id)
    level = review_filter(request.args.get("level"))
    number = page_number(request.args)
    status = None
    context: dict = {}
    if run.is_live:
        context = kind.live_context(run)
    else:
        listed_rows = level != NOTHING
        shown = service.review_page(run, level if listed_rows else None, number, listed_rows)
        # Counted only, unless they are the page's rows.
        size = 0 if listed_rows else service.REVIEW_PAGE_SIZE
        # The items proposed nothing for, by why, when the kind knows: each a filter of its own.
        statuses = kind.unproposed_counts(run)
        asked = request.args.get("status")
        status = asked if not listed_rows and asked in statuses else None
        nothing = kind.unproposed(run, number, size, status) or unproposed(run, kind, number, size)
        undo = request.args.get("undo", "")
        context = {
            "shown": shown,
            "nothing": nothing,
            "nothing_total": sum(statuses.values()) if statuses else nothing.total,
            "statuses": statuses,
            "looks": looks_of(run, kind, target, shown.page.items),
            "undo_group": undo if undo.isalnum() else "",
        }
    here = url_for(
        "review.run_review",
        run_id=run.id,
        level=level,
        status=status,
        page=number if number > 1 else None,
    )
    return render_page(
        "review/run.html",
        "live",
        run=run,
        kind=kind,
        target=target,
        level=level,
        status=status,
        here=here,
        form=EmptyForm(),
        **context,
    )


def posted_suggestions(run: Run, field: str) -> list[int]:
    """The run's own suggestions among a form's ids, in the order given."""
    wanted = record_ids(request.form.getlist(field))
    if not wanted:
        return []
    query = select(Suggestion.id).where(Suggestion.run_id == run.id, Suggestion.id.in_(wanted))
    mine = set(db.session.scalars(query))
    return [i for i in wanted if i in mine]


def ticked(run_id: int, verb: str) -> tuple[Run, RunKind, ReviewTarget, str, list[int]]:
    """The run a review form posted to, the page to return to, and the run's own suggestions
    it ticked; back with a word when it ticked none."""
    run, kind, target = reviewed_run_or_404(run_id)
    back = back_from_form() or kind.review_url(run) or url_for("main.home")
    chosen = posted_suggestions(run, "suggestion")
    if not chosen:
        flash(f"Choose the {kind.suggestion_noun.removesuffix('(s)')}s to {verb}.", "warning")
        abort(redirect(back))
    return run, kind, target, back, chosen


def named_records(target: ReviewTarget, ids: Sequence[int]) -> str:
    names = target.names(set(ids))
    return listed(sorted({names.get(i, f"{target.label} {i}") for i in ids}))


def applied_in_words(result: service.ApplyResult, kind: RunKind, target: ReviewTarget) -> str:
    """“Total of seed”, “3 field(s) of Carrot: a, b and c”, “12 row(s): a, b … and 7 more”."""
    records = [a.target_id for a in result.applied]
    if len(set(records)) > 1:
        said = across(len(result.applied), len(set(records)), kind.suggestion_noun, target)
        return f"{said}: {named_records(target, records)}"
    labels = target.field_labels(records[0], result.applied_fields)
    if len(labels) == 1:
        return f"{labels[0]} of {named_records(target, records)}"
    return f"{len(labels)} field(s) of {named_records(target, records)}: {listed(labels)}"


@bp.post("/runs/<int:run_id>/apply")
@require_role(Role.reviewer)
def apply_selected(run_id: int):
    """Apply the suggestions a person ticked (with the values they typed over, and the changed
    ones they re-confirmed) as one undoable group; back to the page, which offers its undo."""
    run, kind, target, back, chosen = ticked(run_id, "apply")
    edits = {
        suggestion_id: value
        for key, value in request.form.items()
        if key.startswith("value-") and (suggestion_id := record_id(key.removeprefix("value-")))
    }
    result = service.apply(
        chosen,
        current_user,
        posted_suggestions(run, "reconfirm"),
        edits={i: edits[i] for i in chosen if i in edits},
    )
    db.session.commit()
    if result.applied:
        said = applied_in_words(result, kind, target)
        flash(f"Applied {said}.{' ' + kind.applied_note if kind.applied_note else ''}", "success")
    elif not result.refused:
        flash("Nothing was applied.", "warning")
    flash_refusals(result.refused)
    return redirect(with_args(back, undo=result.group))


@bp.app_template_global("undo_label")
def undo_label(group: str) -> str:
    """What a page's "Undo this …" takes back: a rejection or an apply."""
    found = service.undoable_group(group) if group.isalnum() else None
    rejection = found is not None and found.target.kind == rejections.SUGGESTION_TARGET
    return "Undo this rejection" if rejection else "Undo this apply"


@bp.post("/runs/<int:run_id>/reject")
@require_role(Role.reviewer)
def reject_selected(run_id: int):
    """Reject the open suggestions a person ticked, at once: they see what they ticked."""
    _run, kind, target, back, chosen = ticked(run_id, "reject")
    done = rejections.reject(chosen, current_user)
    db.session.commit()
    if done.ids:
        records = list(
            db.session.scalars(select(Suggestion.target_id).where(Suggestion.id.in_(done.ids)))
        )
        said = across(len(done.ids), len(set(records)), kind.suggestion_noun, target)
        flash(f"Rejected {said}: {named_records(target, records)}.", "info")
        return redirect(with_args(back, undo=done.group))
    flash("Nothing was rejected: those are decided already.", "warning")
    return redirect(back)


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
    done = rejections.reject([s.id for s in still_open], current_user)
    db.session.commit()
    if done.ids:
        rejected = set(done.ids)
        records = len({s.target_id for s in still_open if s.id in rejected})
        flash(f"Rejected {across(len(done.ids), records, 'suggestion(s)', target)}.", "info")
        return redirect(with_args(choice.back, undo=done.group))
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
    labels = labelled(target, [(r.target_id, r.field) for r in refused])
    if len(set(labels.values())) == 1:
        return f"{next(iter(labels.values()))} of {listed(sorted(name))}"
    said = [labels[r.target_id, r.field] for r in refused]
    return listed([f"{n}: {label}" for n, label in zip(name, said, strict=True)])


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
        said = f"Undone — {service.undone_in_words(result.restored_in)}."
        # One line, and where the whole of it is read: the record's history.
        history = found.target.history_url(min(found.ids)) if len(found.ids) == 1 else None
        link = Markup('{} <a href="{}">History</a>').format(said, history) if history else said
        flash(link, "success")
    else:
        flash("There was nothing to undo.", "warning")
    return redirect(back or found.target.back_url(found.ids) or url_for("main.home"))
