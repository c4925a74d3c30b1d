"""Registry review pages. Reviews hold project documents with personal data (owners' names):
every page is for editors and up; verdicts, the overall outcome, undo and deleting a review
are the reviewer role's."""

from __future__ import annotations

from flask import Response, abort, flash, redirect, request, url_for
from flask_login import current_user
from sqlalchemy import select

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.extensions import db, htmx
from webapp.ids import record_id
from webapp.jobs.models import Run
from webapp.jobs.queue import QueueUnavailable
from webapp.library.documents import max_upload_bytes
from webapp.pagination import count_of, page_number, paginate
from webapp.problems import Invalid, show_on_form
from webapp.registry import bp, page_data, review_state, rounds, words
from webapp.registry import documents as docs
from webapp.registry.api import document_or_404, review_or_404
from webapp.registry.checklist import (
    REGISTRATION,
    ChecklistInvalid,
    StructuredField,
    bundled,
    read_checklist,
)
from webapp.registry.discovery import TYPE_LABELS, DocumentType
from webapp.registry.evidence import Passage
from webapp.registry.forms import (
    DateStyleForm,
    EntryForm,
    NewReviewForm,
    OutcomeForm,
    TypeForm,
    UploadForm,
    VerdictForm,
)
from webapp.registry.models import Review
from webapp.registry.pages import PageKind
from webapp.registry.runs import latest_runs, live_run, start_review_run
from webapp.registry.target import OUTCOMES, VERDICTS, review_decisions
from webapp.rendering import render_page
from webapp.review.audit import undoable_groups
from webapp.uploads import UploadRefused, read_bytes

PER_PAGE = 25
CHECKLIST_MAX_BYTES = 2 * 1024 * 1024
CHECK_LEVELS = {"pass": "none", "warning": "warning", "fail": "error"}  # their colours


@bp.context_processor
def registry_words() -> dict:
    """The words the registry pages show for stored keys."""
    return {
        "filters": page_data.FILTERS,
        "short": page_data.short,
        "status_label": words.status_label,
        "field_label": words.field_label,
        "check_label": words.check_label,
        "check_levels": CHECK_LEVELS,
        "check_status_labels": words.CHECK_STATUS_LABELS,
        "validation_labels": words.VALIDATION_LABELS,
        "kind_labels": words.KIND_LABELS,
        "type_labels": {t.value: label for t, label in TYPE_LABELS.items()},
        "verdict_words": VERDICTS,
        "outcome_words": OUTCOMES,
        "deleted_document": words.DELETED_DOCUMENT,
    }


@bp.get("")
@require_role(Role.editor)
def index():
    query = select(Review).order_by(Review.created_at.desc(), Review.id.desc())
    page = paginate(query, page_number(request.args), PER_PAGE)
    runs = latest_runs([r.id for r in page.items])
    return render_page("registry/index.html", page=page, runs=runs)


def render_new(form: NewReviewForm, status: int = 200):
    return render_page("registry/new.html", form=form), status


@bp.route("/new", methods=["GET", "POST"])
@require_role(Role.editor)
@takes_upload()
def new():
    # A link may choose the bundled checklist (the review page's suggestion does).
    form = NewReviewForm(bundled_checklist=request.args.get("bundled_checklist", REGISTRATION))
    if not form.validate_on_submit():
        return render_new(form, 422 if form.errors else 200)
    upload = form.checklist.data
    try:
        if not (upload and upload.filename):
            checklist = bundled(form.bundled_checklist.data)
        else:
            data = read_bytes(upload.stream, CHECKLIST_MAX_BYTES)
            if len(data) > CHECKLIST_MAX_BYTES:
                raise ChecklistInvalid("The checklist file is larger than 2 MB.", loc="checklist")
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                raise ChecklistInvalid(
                    "The checklist is not UTF-8 text.", loc="checklist"
                ) from None
            checklist = read_checklist(text)
        review = review_state.create_review(form.name.data, checklist, current_user)
    except ChecklistInvalid as exc:
        chosen = exc.problems[0].loc == "bundled_checklist"
        (form.bundled_checklist if chosen else form.checklist).errors = [
            p.message for p in exc.problems
        ]
        return render_new(form, 422)
    except Invalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems)
        return render_new(form, 422)
    db.session.commit()
    flash(f"Review “{review.name}” is ready: upload the project's documents.", "success")
    return redirect(url_for("registry.show", review_id=review.id))


def render_review(review: Review, status: int = 200, **forms):
    checks = review_state.checks(review)
    rows = page_data.requirement_rows(review, review_state.verdicts(review), checks)
    shown = page_data.chosen_filter(request.args.get("show"))
    entries = page_data.history(review)
    run = live_run(review)
    latest = db.session.get(Run, review.run_id) if review.run_id else None
    outcome = review_state.outcome(review)
    context = {
        "review": review,
        "docs_pages": {d.id: [p.kind.value for p in docs.pages(d)] for d in review.documents},
        "chosen_styles": review_state.chosen_styles(review),
        "style_choices": DateStyleForm().date_style.choices,
        "rows": [r for r in rows if shown in r.filters],
        "counts": page_data.filter_counts(rows),
        "shown": shown,
        "checks": checks,
        "history": entries,
        "undoable": undoable_groups([e.change for e in entries], review_decisions.undo_sources),
        "run": run,
        "latest": latest,
        "outcome": outcome,
        "upload_form": forms.get("upload_form") or UploadForm(),
        "outcome_form": forms.get("outcome_form")
        or OutcomeForm(data={"outcome": outcome.value} if outcome else None),
        "form": EmptyForm(),
        "assess_error": forms.get("assess_error"),
        "suggestion": rounds.suggestion(review),
        "switch_error": forms.get("switch_error"),
        "entry_form": forms.get("entry_form") or EntryForm(formdata=None).limit_to(asked(review)),
        "entry_refused": "entry_form" in forms,
        "readable": readable(review),
        "by_page": BY_PAGE,
    }
    return render_page("registry/review.html", **context), status


def asked(review: Review) -> list[StructuredField]:
    """Every field the review's checklist asks for, in the fields' order."""
    wanted = {f for r in review.methodology.requirements for f in r.asked}
    return [f for f in StructuredField if f in wanted]


@bp.post("/<int:review_id>/fields")
@require_role(Role.editor)
def enter_review_field(review_id: int):
    """A field entered from the review page: from a document and a page typed."""
    review = review_or_404(review_id)
    form = EntryForm().limit_to(asked(review))
    if not form.validate_on_submit() or not enter_from(review, form, by_page=True):
        return render_review(review_or_404(review_id), 422, entry_form=form)
    flash(f"{words.field_label(form.field.data)}: {form.value.data} entered.", "success")
    return redirect(url_for("registry.show", review_id=review.id, _anchor="checks"))


@bp.get("/<int:review_id>")
@require_role(Role.editor)
def show(review_id: int):
    return render_review(review_or_404(review_id))


@bp.get("/<int:review_id>/progress")
@require_role(Role.editor)
def progress(review_id: int):
    """The live run's progress, polled by htmx; once the run has ended the page reloads to
    show what it found."""
    review = review_or_404(review_id)
    run = live_run(review)
    if run is None:
        return Response(status=204, headers={"HX-Refresh": "true"})
    return render_page("registry/_progress.html", review=review, run=run)


@bp.post("/<int:review_id>/documents")
@require_role(Role.editor)
@takes_upload()
def upload(review_id: int):
    review = review_or_404(review_id)
    form = UploadForm()
    files = [f for f in request.files.getlist("files") if f and f.filename]
    if not files:
        form.files.errors = ["Choose one or more files to upload."]
        return render_review(review, 422, upload_form=form)
    added, refused = [], []
    for upload in files:
        try:
            data = read_bytes(upload.stream, max_upload_bytes())
            added.append(docs.add_document(review, upload.filename, data, current_user).filename)
        except UploadRefused as exc:
            refused.append(f"{upload.filename}: {exc} Nothing was kept of it.")
    db.session.commit()
    if refused:
        form.files.errors = refused
        if added:
            flash(f"Added {', '.join(added)}.", "success")
        return render_review(review, 422, upload_form=form)
    flash(f"Added {', '.join(added)}. Assess the review to read them.", "success")
    return redirect(url_for("registry.show", review_id=review.id, _anchor="documents"))


@bp.post("/<int:review_id>/documents/<int:document_id>/type")
@require_role(Role.editor)
def set_type(review_id: int, document_id: int):
    review = review_or_404(review_id)
    document = document_or_404(review, document_id)
    form = TypeForm()
    if not form.validate_on_submit():
        flash("Choose one of the listed kinds of document.", "error")
        return redirect(url_for("registry.show", review_id=review.id, _anchor="documents"))
    docs.set_type(document, form.document_type.data)
    db.session.commit()
    kind = TYPE_LABELS[DocumentType(document.document_type)]
    flash(f"{document.filename} is a {kind.lower()} now; assess again to use it.", "success")
    return redirect(url_for("registry.show", review_id=review.id, _anchor="documents"))


@bp.post("/<int:review_id>/documents/<int:document_id>/date-style")
@require_role(Role.editor)
def set_date_style(review_id: int, document_id: int):
    """A person says how a document writes its dates: its ambiguous dates are read that way."""
    review = review_or_404(review_id)
    document = document_or_404(review, document_id)
    back = url_for("registry.show", review_id=review.id, _anchor="documents")
    form = DateStyleForm()
    if not form.validate_on_submit():
        flash("Choose day first, month first, or as its text shows.", "error")
        return redirect(back)
    review_state.set_date_style(review, document, form.date_style.data, current_user)
    db.session.commit()
    chosen = {c.value: c.label for c in form.date_style.choices}[form.date_style.data]
    flash(f"Dates in {document.filename}: {chosen}.", "success")
    return redirect(back)


@bp.route("/<int:review_id>/documents/<int:document_id>/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_document(review_id: int, document_id: int):
    review = review_or_404(review_id)
    document = document_or_404(review, document_id)
    back = url_for("registry.show", review_id=review.id, _anchor="documents")
    if request.method == "GET":
        return confirm(
            f"Delete {document.filename}",
            f"Delete {document.filename} from the review “{review.name}”? Values entered from "
            "it lose their source. This cannot be undone.",
            url_for("registry.delete_document", review_id=review.id, document_id=document.id),
            "Delete the document",
            back,
        )
    stored = [document.stored_name]
    review.documents.remove(document)
    db.session.flush()
    review_state.refresh(review)
    db.session.commit()
    docs.remove_files(stored)
    flash(f"Deleted {document.filename}.", "success")
    return redirect(back)


def confirm(title: str, question: str, action: str, button: str, back: str):
    return render_page(
        "tables/confirm.html",
        form=EmptyForm(),
        hidden=[],
        title=title,
        question=question,
        action=action,
        button=button,
        back=back,
    )


@bp.post("/<int:review_id>/assess")
@require_role(Role.editor)
def assess(review_id: int):
    review = review_or_404(review_id)
    try:
        run = start_review_run(review, current_user)
    except (Invalid, QueueUnavailable) as exc:
        db.session.rollback()
        return render_review(review_or_404(review_id), 422, assess_error=str(exc))
    flash(f"Assessing “{review.name}”: run #{run.id}.", "success")
    return redirect(url_for("registry.show", review_id=review.id, _anchor="assess"))


@bp.post("/<int:review_id>/checklist")
@require_role(Role.editor)
def switch_checklist(review_id: int):
    """Move the review to the other bundled checklist, as its documents suggest."""
    review = review_or_404(review_id)
    name = request.form.get("bundled_checklist", "")
    try:
        rounds.switch_checklist(review, name)
    except Invalid as exc:
        db.session.rollback()
        return render_review(review_or_404(review_id), 422, switch_error=exc.message)
    db.session.commit()
    flash(f"The review uses {rounds.label(name)} now: assess it to find its evidence.", "success")
    return redirect(url_for("registry.show", review_id=review.id))


@bp.post("/<int:review_id>/outcome")
@require_role(Role.reviewer)
def set_outcome(review_id: int):
    review = review_or_404(review_id)
    form = OutcomeForm()
    if not form.validate_on_submit():
        return render_review(review, 422, outcome_form=form)
    try:
        review_state.set_outcome(review, form.outcome.data, form.comment.data, current_user)
    except Invalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems)
        return render_review(review, 422, outcome_form=form)
    db.session.commit()
    flash(f"Overall outcome: {OUTCOMES[form.outcome.data]}.", "success")
    return redirect(url_for("registry.show", review_id=review.id))


@bp.route("/<int:review_id>/delete", methods=["GET", "POST"])
@require_role(Role.reviewer)
def delete(review_id: int):
    review = review_or_404(review_id)
    if request.method == "GET":
        return confirm(
            f"Delete {review.name}",
            f"Delete the review “{review.name}” with its {len(review.documents)} document(s), "
            "their files, its evidence and verdicts? This cannot be undone.",
            url_for("registry.delete", review_id=review.id),
            "Delete the review",
            url_for("registry.show", review_id=review.id),
        )
    if live_run(review) is not None:
        flash("The review is being assessed; wait for its run to end, then delete it.", "error")
        return redirect(url_for("registry.show", review_id=review.id))
    name = review.name
    stored = review_state.delete_review(review)
    db.session.commit()
    docs.remove_files(stored)
    flash(f"Deleted the review “{name}” and its documents.", "success")
    return redirect(url_for("registry.index"))


def passage_form(passage: Passage, fields: list) -> EntryForm:
    """The form to enter a field from one passage, filled with the first of the requirement's
    fields the passage states (the model's reading), for the reviewer to confirm or correct."""
    carried = passage.fields
    stated = next((f.value for f in fields if carried.get(f.value)), None)
    data = {"field": stated, "value": carried[stated]} if stated else None
    return EntryForm(formdata=None, data=data).limit_to(fields)


# The form that enters a field from a document and a page typed, with no passage: how a
# reviewer states a value no passage was found for.
BY_PAGE = "by-page"


def readable(review: Review) -> list:
    """The documents a value can be entered from: those read, each with its number of pages."""
    return [(d, len(docs.pages(d))) for d in review.documents if d.pages is not None]


def enter_from(review: Review, form: EntryForm, by_page: bool) -> bool:
    """Enter the form's value from its document and page; False, with the problems on the
    form and the session rolled back, when the review refuses it."""
    # A page that is no page number is kept as sent, for the message to name it.
    page = count_of(form.page.data or "") or form.page.data
    given = {"value": form.value.data, "document": record_id(form.document.data), "page": page}
    try:
        review_state.enter_fields(review, {form.field.data: given}, current_user)
    except Invalid as exc:
        db.session.rollback()
        show_entry_problems(form, exc.problems, by_page)
        return False
    db.session.commit()
    return True


def render_requirement(review: Review, requirement_id: str, status: int = 200, **forms):
    record = review_state.requirement(review, requirement_id)
    wanted = review.methodology.requirement(requirement_id)
    if record is None or wanted is None:
        abort(404, description=f"The checklist has no requirement {requirement_id}.")
    ids = [r.requirement_id for r in review.requirements]
    at = ids.index(requirement_id)
    fields = [f.value for f in wanted.asked]
    entered = [e for e in review_state.entered(review) if e.field in wanted.asked]
    documents = {d.id: d.filename for d in review.documents}
    verdict = review_state.verdicts(review).get(requirement_id)
    checks = [c for c in review_state.checks(review) if c["field"] in fields]
    structured = {f.value for f in wanted.structured_fields}
    passages = page_data.passages(review, record)
    context = {
        "review": review,
        "record": record,
        "requirement": wanted,
        "passages": passages,
        "fields": fields,
        "entered": {f: [e for e in entered if e.field == f] for f in fields},
        # The reviewer's value that replaces the model's, by (field, document id).
        "superseding": {(e.field.value, e.document_id): e for e in entered},
        "documents": documents,
        "checks": checks,
        "failed": [c for c in checks if c["status"] == "fail" and c["field"] in structured],
        "verdict": verdict,
        "previous": ids[at - 1] if at > 0 else None,
        "next": ids[at + 1] if at + 1 < len(ids) else None,
        "verdict_form": forms.get("verdict_form")
        or VerdictForm(data={"verdict": verdict.value} if verdict else None),
        "entry_form": forms.get("entry_form"),
        "entry_at": forms.get("entry_at"),
        "entries": [passage_form(p, wanted.asked) for p in passages],
        "page_entry_form": EntryForm(formdata=None).limit_to(wanted.asked),
        "readable": readable(review),
        "by_page": BY_PAGE,
        "notice": forms.get("notice"),
    }
    return render_page("registry/requirement.html", "body", **context), status


@bp.get("/<int:review_id>/requirements/<requirement_id>")
@require_role(Role.editor)
def requirement(review_id: int, requirement_id: str):
    return render_requirement(review_or_404(review_id), requirement_id)


def after_requirement_change(review: Review, requirement_id: str, notice: str):
    """htmx swaps the page's body in place; a plain form goes back to the page."""
    if htmx:
        return render_requirement(review, requirement_id, notice=notice)
    flash(notice, "success")
    return redirect(
        url_for("registry.requirement", review_id=review.id, requirement_id=requirement_id)
    )


@bp.post("/<int:review_id>/requirements/<requirement_id>/fields")
@require_role(Role.editor)
def enter_field(review_id: int, requirement_id: str):
    review = review_or_404(review_id)
    wanted = review.methodology.requirement(requirement_id)
    if wanted is None:
        abort(404, description=f"The checklist has no requirement {requirement_id}.")
    form = EntryForm().limit_to(wanted.asked)
    # The snippet the form was sent from (or BY_PAGE), to show its errors there.
    at = request.form.get("at")
    if not form.validate_on_submit() or not enter_from(review, form, by_page=at == BY_PAGE):
        review = review_or_404(review_id)
        return render_requirement(review, requirement_id, 422, entry_form=form, entry_at=at)
    label = words.field_label(form.field.data)
    return after_requirement_change(review, requirement_id, f"{label}: {form.value.data} entered.")


@bp.post("/<int:review_id>/requirements/<requirement_id>/fields/remove")
@require_role(Role.editor)
def remove_field(review_id: int, requirement_id: str):
    """Take back one entered value (a document may state several; one was wrong)."""
    review = review_or_404(review_id)
    if review.methodology.requirement(requirement_id) is None:
        abort(404, description=f"The checklist has no requirement {requirement_id}.")
    key = request.form.get("key", "")
    removed = next((e for e in review_state.entered(review) if e.key == key), None)
    try:
        review_state.remove_entry(review, key, current_user)
    except Invalid as exc:
        db.session.rollback()
        flash(exc.problems[0].message, "error")
        return redirect(
            url_for("registry.requirement", review_id=review.id, requirement_id=requirement_id)
        )
    db.session.commit()
    said = f"{words.field_label(removed.field)}: {removed.value} removed."  # found: not refused
    return after_requirement_change(review, requirement_id, said)


def show_entry_problems(form: EntryForm, problems: list, by_page: bool) -> None:
    """A passage's form shows every problem by its value (its document and page are the
    passage's); the by-page form shows a document's or a page's problem by what was typed."""
    form.value.errors, form.document.errors, form.page.errors = [], [], []
    for problem in problems:
        place = (problem.loc or "").rpartition(".")[2] if by_page else "value"
        getattr(form, place if place in ("document", "page") else "value").errors.append(
            problem.message
        )


@bp.post("/<int:review_id>/requirements/<requirement_id>/verdict")
@require_role(Role.reviewer)
def verdict(review_id: int, requirement_id: str):
    review = review_or_404(review_id)
    form = VerdictForm()
    if not form.validate_on_submit():
        return render_requirement(review, requirement_id, 422, verdict_form=form)
    try:
        review_state.decide_requirement(
            review, requirement_id, form.verdict.data, form.comment.data, current_user
        )
    except Invalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems)
        return render_requirement(review, requirement_id, 422, verdict_form=form)
    db.session.commit()
    words = VERDICTS[form.verdict.data]
    return after_requirement_change(review, requirement_id, f"{requirement_id}: {words}.")


PAGE_KIND_WORDS = {
    PageKind.contents: "Table of contents: never used as evidence.",
    PageKind.no_text: "No text layer: nothing on this page can be read or cited.",
}


@bp.get("/<int:review_id>/documents/<int:document_id>/pages/<int:number>")
@require_role(Role.editor)
def page(review_id: int, document_id: int, number: int):
    review = review_or_404(review_id)
    document = document_or_404(review, document_id)
    pages = docs.pages(document)
    if not 1 <= number <= len(pages):
        if document.pages is None:
            abort(404, description=f"{document.filename} is not read yet: assess the review.")
        abort(404, description=f"{document.filename} has no page {number}.")
    shown = pages[number - 1]
    q = request.args.get("q", "")
    return render_page(
        "registry/page.html",
        review=review,
        document=document,
        page=shown,
        pages=len(pages),
        marked=page_data.highlight(shown.text, q),
        q=q,
        most_words=page_data.MOST_PASSAGE_WORDS,
        most_chars=page_data.MOST_PASSAGE_CHARS,
        most_marks=page_data.MOST_MARKS,
        kind_words=PAGE_KIND_WORDS.get(shown.kind),
    )
