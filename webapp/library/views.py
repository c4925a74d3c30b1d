"""Library pages (documents, upload, search) and their JSON API."""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Annotated

from flask import flash, jsonify, redirect, request, url_for
from flask_login import current_user
from pydantic import Field

from webapp.auth.access import require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.contract import Paging, QueryModel, accepts
from webapp.extensions import db
from webapp.jobs.queue import QueueUnavailable
from webapp.library import api, bp
from webapp.library.documents import (
    PER_PAGE,
    add_document,
    documents_query,
    extraction_run,
    passage_counts,
    read_upload,
    start_extraction,
    to_dict,
)
from webapp.library.forms import UploadForm
from webapp.library.models import EXTRACTING, Document, is_search_index
from webapp.library.search import Passage, highlight, query_terms, search_passages
from webapp.pagination import count_of, page_number, paginate, per_page
from webapp.problems import Invalid
from webapp.rendering import render_page
from webapp.uploads import UploadRefused

RESULTS = 20
API_MAX_LIMIT = 50
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")


@bp.record_once
def hide_search_index_from_autogenerate(state) -> None:
    """`furrow db migrate` compares the database with the models; keep it from proposing to
    drop the full-text index, which only the migration knows (see models.is_search_index)."""
    migrate = state.app.extensions.get("migrate")
    if migrate is None:
        return
    previous = migrate.configure_args.get("include_name")

    def include_name(name: str | None, type_: str, parent_names: dict) -> bool:
        if is_search_index(name, type_):
            return False
        return previous(name, type_, parent_names) if previous else True

    migrate.configure_args["include_name"] = include_name


def document_or_404(document_id: int) -> Document:
    return db.get_or_404(Document, document_id, description=f"There is no document #{document_id}.")


def search(query: str, limit: int) -> list[Passage]:
    results = search_passages(query, limit)
    db.session.commit()  # keeps the reference passages the search may have had to add
    return results


@bp.get("")
def index():
    q = request.args.get("q", "").strip()
    terms = query_terms(q)
    hits = [(p, highlight(p.snippet, terms)) for p in search(q, RESULTS)]
    page = paginate(documents_query(), page_number(request.args), PER_PAGE)
    return render_page(
        "library/index.html",
        "results",
        q=q,
        hits=hits,
        page=page,
        counts=passage_counts(page.items),
    )


def render_upload(form: UploadForm, status: int = 200):
    return render_page("library/upload.html", form=form), status


@bp.route("/upload", methods=["GET", "POST"])
@require_role(Role.editor)
@takes_upload()
def upload():
    form = UploadForm()
    if not form.validate_on_submit():
        return render_upload(form, 422 if form.errors else 200)
    try:
        document = add_document(*read_upload(form.file.data), form.title.data, current_user)
    except UploadRefused as exc:
        db.session.rollback()
        form.file.errors.append(f"{exc} Nothing was stored.")
        return render_upload(form, 422)
    db.session.commit()
    if document.status == EXTRACTING:
        try:
            start_extraction(document, current_user)
        except QueueUnavailable as exc:
            flash(f"{document.title} is stored, but its text cannot be read yet: {exc}", "error")
            return redirect(url_for("library.document", document_id=document.id))
        flash(f"{document.title} is stored; its text is being read.", "success")
    else:
        flash(f"{document.title} is in the library.", "success")
    return redirect(url_for("library.document", document_id=document.id))


@bp.get("/documents/<int:document_id>")
def document(document_id: int):
    """The document; while its PDF is read, the page polls the extraction run (htmx renders
    the "body" block alone) until the text is there or the reason it is not."""
    found = document_or_404(document_id)
    return render_page(
        "library/document.html",
        "body",
        document=found,
        run=extraction_run(found) if found.kind == "pdf" else None,
        passages=passage_counts([found]).get(found.id, 0),
        paragraphs=[p.strip() for p in _PARAGRAPH_BREAK.split(found.text) if p.strip()],
        form=EmptyForm(),
    )


@bp.post("/documents/<int:document_id>/delete")
@require_role(Role.reviewer)
def delete(document_id: int):
    found = document_or_404(document_id)
    db.session.delete(found)
    db.session.commit()
    flash(f"{found.title} was deleted from the library.", "success")
    return redirect(url_for("library.index"))


# JSON API: the same rules as the pages.


class SearchQuery(QueryModel):
    q: Annotated[str, Field(max_length=500)] = ""
    limit: str = "10"  # read below (bounded), so a limit that is no count is invalid_limit


@api.get("/search")
@accepts(query=SearchQuery, summary="Passages of the library that match the words.")
def api_search():
    limit = count_of(request.args.get("limit", "10"))
    if limit is None or limit > API_MAX_LIMIT:
        message = f"`limit` must be a whole number from 1 to {API_MAX_LIMIT}."
        raise Invalid(message, code="invalid_limit", loc="limit")
    results = search(request.args.get("q", ""), limit)
    return jsonify(results=[asdict(p) for p in results])


@api.get("/documents")
@accepts(query=Paging, summary="The library's documents, paged.")
def api_documents():
    page = paginate(documents_query(), page_number(request.args), per_page(request.args, PER_PAGE))
    counts = passage_counts(page.items)
    return jsonify(page.as_json("documents", [to_dict(d, counts.get(d.id, 0)) for d in page.items]))


@api.post("/documents")
@require_role(Role.editor)
@takes_upload()
@accepts(answers={201: "Stored."}, summary="Upload a document (multipart: file, title).")
def api_upload():
    try:
        document = add_document(
            *read_upload(request.files.get("file")),
            request.form.get("title"),
            current_user,
        )
    except UploadRefused as exc:
        # Answered as any Invalid, saying that nothing was kept.
        raise UploadRefused(exc.code, f"{exc} Nothing was stored.") from exc
    db.session.commit()
    if document.status == EXTRACTING:
        start_extraction(document, current_user)  # 503 when the queue is away
    return jsonify(to_dict(document, len(document.passages))), 201
