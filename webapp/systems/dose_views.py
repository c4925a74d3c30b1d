"""The IFT reference-dose table: which table the calculator reads, and importing a full one from
CSV (checked first: its row count and every bad line, nothing stored until it reads cleanly)."""

from __future__ import annotations

from flask import flash, redirect, request, url_for
from flask_login import current_user
from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired

from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.extensions import db
from webapp.problems import Invalid
from webapp.rendering import render_page
from webapp.systems import bp
from webapp.systems.calculators.ift import (
    DoseCoverage,
    ReferenceDoses,
    bundled_reference_doses,
)
from webapp.systems.doses import (
    DOSES_MAX_BYTES,
    current_import,
    import_doses,
    imported_summary,
    read_dose_file,
    read_table,
    systems_dose_coverage,
)
from webapp.uploads import size_text

PREVIEW_ROWS = 10
SHOWN_PROBLEMS = 50
SHOWN_MISSING = 20


class DoseImportForm(FlaskForm):
    file = FileField(
        "Reference-dose CSV",
        validators=[
            FileRequired("Choose a CSV file."),
            FileAllowed(["csv", "txt"], "Only .csv files."),
        ],
        description=(
            "Comma, semicolon or tab; UTF-8 or Windows-1252; at most "
            f"{size_text(DOSES_MAX_BYTES)}. Columns by Furrow's names (product, crop, target, "
            "dose, unit, source) or the ministry's, as its IFT service exports a campaign's "
            "table (Code_AMM, Culture, Cible, Dose_ref, Unite_dose_ref, ID_campagne) or as "
            "Agrosyst holds it (code_amm, culture_maa, groupe_cible_maa, dose_ref_maa, "
            "unit_dose_ref_maa, campagne)."
        ),
    )
    names = FileField(
        "Product names CSV (optional)",
        validators=[FileAllowed(["csv", "txt"], "Only .csv files.")],
        description=(
            "The ministry's dose table gives AMM numbers only: its list of products per "
            "campaign (Nom_produit, AMM) lets the calculator find them by the names people write."
        ),
    )


def render_doses(form: DoseImportForm, status: int = 200, **more):
    found = current_import()
    coverage = sum((c for _, c in systems_dose_coverage()), DoseCoverage())
    return render_page(
        "systems/doses.html",
        form=form,
        current=found,
        bundled=len(bundled_reference_doses()),
        max_size=size_text(DOSES_MAX_BYTES),
        shown_problems=SHOWN_PROBLEMS,
        coverage=coverage,
        missing=coverage.missing.most_common(SHOWN_MISSING),
        **more,
    ), status


@bp.get("/doses")
def doses():
    return render_doses(DoseImportForm())


def _sample(table: ReferenceDoses) -> list:
    rows = [row for rows in table.by_product.values() for row in rows]
    return list(dict.fromkeys(rows))[:PREVIEW_ROWS]


@bp.post("/doses")
@require_role(Role.editor)
@takes_upload()
def import_dose_table():
    form = DoseImportForm()
    if not form.validate_on_submit():
        return render_doses(form, 422)
    upload = form.file.data
    filename = upload.filename or "reference doses"
    try:
        text = read_dose_file(upload)
        names = form.names.data
        named = (read_dose_file(names), names.filename or "product names") if names else None
        if not request.form.get("save"):  # "Check the file": read it, store nothing
            table = read_table(text, filename, named[0] if named else None)
            return render_doses(
                form,
                checked=filename,
                count=len(table),
                without_dose=table.without_dose,
                sample=_sample(table),
            )
        stored, table = import_doses(text, filename, current_user, named)
    except Invalid as exc:
        db.session.rollback()  # nothing is stored
        return render_doses(form, 422, problems=exc.problems, checked=filename)
    db.session.commit()
    flash(
        f"Imported {imported_summary(stored, table)}: the IFT calculator now uses this table.",
        "success",
    )
    return redirect(url_for("systems.doses"))
