"""Importing cultures from a page: the file, its preview, and the confirmed import."""

from __future__ import annotations

from flask import Response, abort, flash, redirect, request, url_for
from flask_login import current_user

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.cultures import bp
from webapp.cultures.fields import CULTURE_FIELDS, LABELS
from webapp.cultures.forms import ConfirmImportForm, ImportForm
from webapp.cultures.headers import LANGUAGES, header, headers
from webapp.cultures.importing import import_rows, preview_file
from webapp.exports import csv_text
from webapp.extensions import db
from webapp.problems import Invalid, show_on_form
from webapp.rendering import render_page
from webapp.uploads import CSV_MAX_BYTES, UploadRefused, check_csv_text, read_csv


def render_import(form, preview=None, confirm=None, status: int = 200):
    return render_page(
        "cultures/import.html",
        form=form,
        preview=preview,
        confirm=confirm,
        labels=LABELS,
        fields=CULTURE_FIELDS,
        languages=LANGUAGES,
        header=header,
    ), status


@bp.route("/import", methods=["GET", "POST"])
@require_role(Role.editor)
@takes_upload()
def import_csv():
    form = ImportForm()
    if not form.validate_on_submit():
        return render_import(form, status=422 if form.errors else 200)
    try:
        text = read_csv(form.file.data, CSV_MAX_BYTES)
    except Invalid as exc:
        show_on_form(form, exc.problems)
        return render_import(form, status=422)
    preview = preview_file(text)
    confirm = ConfirmImportForm(formdata=None, csv_text=text) if preview.can_import else None
    return render_import(ImportForm(formdata=None), preview, confirm, 200 if confirm else 422)


@bp.get("/import/template.csv")
@require_role(Role.editor)
def import_template():
    """An empty file with every column, named in ?lang= (en, de or fr)."""
    language = request.args.get("lang", "en")
    if language not in LANGUAGES:
        abort(404, description=f"There is no template in “{language}”: en, de or fr.")
    disposition = f"attachment; filename=furrow-cultures-template-{language}.csv"
    return Response(
        csv_text(headers(language), []),
        mimetype="text/csv",
        headers={"Content-Disposition": disposition},
    )


@bp.post("/import/confirm")
@require_role(Role.editor)
@takes_upload(field_bytes=CSV_MAX_BYTES + 64 * 1024)
def confirm_import():
    confirm = ConfirmImportForm()
    if not confirm.validate_on_submit():
        abort(400, description="The preview to confirm is missing; upload the file again.")
    try:
        check_csv_text(confirm.csv_text.data, CSV_MAX_BYTES)
    except UploadRefused as exc:  # a client put more into the form than an upload may hold
        form = ImportForm(formdata=None)
        show_on_form(form, exc.problems)
        return render_import(form, status=422)
    preview = preview_file(confirm.csv_text.data)
    if not preview.can_import:
        return render_import(ImportForm(formdata=None), preview, None, 422)
    if preview.implausible_rows and not confirm.save_anyway.data:
        flash("Nothing was imported: tick “Import anyway” to keep the flagged values.", "error")
        return render_import(ImportForm(formdata=None), preview, confirm, 422)
    counts = import_rows(preview, current_user)
    db.session.commit()
    flash(
        f"Imported: {counts['create']} created, {counts['update']} updated, "
        f"{counts['unchanged']} unchanged.",
        "success",
    )
    return redirect(url_for("cultures.index"))
