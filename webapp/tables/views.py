"""Research tables workspace: tables, their columns and rows, inline cell edits, CSV import and
export. Its JSON API is api.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from flask import (
    Response,
    abort,
    flash,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from flask_login import current_user
from sqlalchemy.orm import selectinload
from werkzeug.utils import secure_filename

from webapp.api import BodyInvalid
from webapp.auth.access import json_twin, require_role
from webapp.auth.forms import EmptyForm
from webapp.auth.roles import Role
from webapp.bodies import takes_upload
from webapp.extensions import db
from webapp.ids import record_ids
from webapp.jobs.models import Run
from webapp.jobs.queue import live_runs
from webapp.pagination import MOST_PER_PAGE, Page, count_of, page_number, paginate, per_page
from webapp.problems import Problem, show_on_form
from webapp.rendering import render_page
from webapp.review.audit import history, undoable_groups
from webapp.tables import bp, catalog, importing
from webapp.tables.browsing import OPERATORS, RowView
from webapp.tables.catalog import TableInvalid
from webapp.tables.cells import CellInvalid, display, shown
from webapp.tables.facets import FACET_TYPES, table_facets
from webapp.tables.forms import (
    ConfirmImportForm,
    ImportForm,
    NewColumnForm,
    RenameColumnForm,
    TableForm,
    column_places,
    field_name,
    values_form,
)
from webapp.tables.models import ROW_TARGET, DataTable, TableColumn, TableRow
from webapp.tables.target import ROWS, naming_columns, row_label
from webapp.uploads import CSV_MAX_BYTES, UploadRefused, check_csv_text

bp.add_app_template_filter(display, "cell")
bp.add_app_template_filter(shown, "shown")
bp.add_app_template_global(catalog.column_to_fill, "column_to_fill")

TABLES_PER_PAGE = 25
# What a table view's JSON twin takes; any other key is refused, as the API refuses it.
TWIN_ARGS = ("page", "per_page", "sort", "dir", "col", "op", "q", "f")
# Above this many rows, a table's facets are counted in a request of their own.
FACETS_INLINE_ROWS = 10_000


def table_or_404(table_id: int) -> DataTable:
    return db.get_or_404(DataTable, table_id, description=f"There is no table #{table_id}.")


def row_or_404(table: DataTable, row_id: int) -> TableRow:
    row = db.session.get(TableRow, row_id)
    if row is None or row.table_id != table.id:
        abort(404, description=f"Table “{table.name}” has no row #{row_id}.")
    return row


def column_or_404(table: DataTable, column_id: int) -> TableColumn:
    column = next((c for c in table.columns if c.id == column_id), None)
    if column is None:
        abort(404, description=f"Table “{table.name}” has no column #{column_id}.")
    return column


def tables_page(number: int, size: int) -> tuple[Page, dict[int, int]]:
    query = catalog.tables_query().options(selectinload(DataTable.columns))
    page = paginate(query, number, size)
    return page, catalog.row_counts([t.id for t in page.items])


@bp.get("")
def index():
    page, counts = tables_page(page_number(request.args), TABLES_PER_PAGE)
    return render_page("tables/list.html", page=page, counts=counts)


def render_new(form: TableForm, status: int = 200):
    return render_page("tables/new.html", form=form, failed=status == 422), status


@bp.route("/new", methods=["GET", "POST"])
@require_role(Role.editor)
def new():
    form = TableForm()
    if not form.is_submitted():
        return render_new(form)
    if request.form.get("more"):
        form.columns.append_entry()
        return render_new(form)
    filled = form.filled()
    try:
        table = catalog.create_table(form.name.data, [c.definition() for c in filled], current_user)
    except TableInvalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems, column_places(filled))
        return render_new(form, 422)
    db.session.commit()
    flash(f"Table “{table.name}” is ready: add rows or edit its columns.", "success")
    return redirect(url_for("tables.show", table_id=table.id))


def render_import(form, preview=None, confirm=None, problems=None, status: int = 200):
    """problems: set when a confirmed import failed; those about values, row by row."""
    return render_page(
        "tables/import.html",
        form=form,
        preview=preview,
        confirm=confirm,
        problems=problems,
        head_rows=importing.HEAD_ROWS,
        batch_rows=importing.BATCH_ROWS,
    ), status


def refused_upload(exc: UploadRefused):
    form = ImportForm(formdata=None)
    show_on_form(form, exc.problems)
    return render_import(form, status=422)


def confirm_form(preview, filename: str, **data: Any) -> ConfirmImportForm:
    columns = [
        {"name": c.name, "type": c.type, "options": "\n".join(c.options)} for c in preview.columns
    ]
    name = Path(filename or "").stem.strip()[: catalog.NAME_LIMIT]
    return ConfirmImportForm(formdata=None, data={"name": name, "columns": columns, **data})


@bp.route("/import", methods=["GET", "POST"])
@require_role(Role.editor)
@takes_upload(max_bytes=importing.upload_limit)
def import_csv():
    """The upload, streamed to a file and previewed from its head: a small file is imported in
    the page as before, a large one (up to 50 MB) by a run."""
    form = ImportForm()
    if not form.validate_on_submit():
        return render_import(form, status=422 if form.errors else 200)
    upload = form.file.data
    try:
        token = importing.store_upload(upload.stream)
    except UploadRefused as exc:
        return refused_upload(exc)
    path = importing.stored_path(token)
    preview = importing.preview_file(path)
    if importing.is_small(path, preview):
        text = path.read_text("utf-8-sig")
        path.unlink()
        preview = catalog.preview_csv(text)
        if not preview.can_import:
            return render_import(ImportForm(formdata=None), preview, status=422)
        confirm = confirm_form(preview, upload.filename, csv_text=text)
        return render_import(ImportForm(formdata=None), preview, confirm)
    if not preview.can_import:
        path.unlink()
        return render_import(ImportForm(formdata=None), preview, status=422)
    confirm = confirm_form(preview, upload.filename, upload=token)
    return render_import(ImportForm(formdata=None), preview, confirm)


def confirm_places(confirm: ConfirmImportForm):
    """Where a problem about a column definition shows; a dropped first column has none."""
    entries = [e.form for e in confirm.columns]
    return column_places(entries[1:] if confirm.drop_first.data else entries)


def confirm_large_import(confirm: ConfirmImportForm):
    try:
        run = importing.start_import(
            confirm.upload.data,
            confirm.name.data or "",
            confirm.column_types(),
            bool(confirm.drop_first.data),
            current_user,
        )
    except UploadRefused as exc:
        return refused_upload(exc)
    except TableInvalid as exc:
        db.session.rollback()
        rest = show_on_form(confirm, exc.problems, confirm_places(confirm))
        preview = importing.preview_file(importing.stored_path(confirm.upload.data))
        shown = confirm if preview.can_import else None
        problems = [p for p in rest if p.loc != "file"]
        return render_import(ImportForm(formdata=None), preview, shown, problems, 422)
    db.session.commit()
    table = db.session.get(DataTable, run.params["table_id"])
    flash(f"Created “{table.name}”: its rows are being imported, as shown below.", "info")
    return redirect(url_for("runs.show_run", run_id=run.id))


@bp.post("/import/confirm")
@require_role(Role.editor)
@takes_upload(field_bytes=CSV_MAX_BYTES + 64 * 1024)
def confirm_import():
    confirm = ConfirmImportForm()
    if confirm.upload.data:
        return confirm_large_import(confirm)
    text = confirm.csv_text.data
    if not text:
        abort(400, description="The preview to confirm is missing; upload the file again.")
    try:
        check_csv_text(text)
    except UploadRefused as exc:  # a client put more into the form than an upload may hold
        return refused_upload(exc)
    try:
        table = catalog.import_csv(
            confirm.name.data or "",
            text,
            confirm.column_types(),
            current_user,
            drop_first=bool(confirm.drop_first.data),
        )
    except TableInvalid as exc:
        db.session.rollback()  # all or nothing
        rest = show_on_form(confirm, exc.problems, confirm_places(confirm))
        problems = [p for p in rest if p.loc != "file"]  # the preview lists the file's own
        preview = catalog.preview_csv(text)
        shown = confirm if preview.can_import else None
        return render_import(ImportForm(formdata=None), preview, shown, problems, 422)
    db.session.commit()
    rows = catalog.row_counts([table.id])[table.id]
    flash(f"Imported “{table.name}”: {rows} row(s), {len(table.columns)} column(s).", "success")
    return redirect(url_for("tables.show", table_id=table.id))


def facets_now(table: DataTable, view: RowView, page: Page) -> bool:
    """Whether the facets are counted with the page: not for a large table, whose counts read
    a key of every row per facet; its page asks for them once the rows are shown."""
    if not any(c.type in FACET_TYPES for c in table.columns):
        return True
    rows = catalog.row_counts([table.id])[table.id] if view.filtered else page.total
    return rows <= FACETS_INLINE_ROWS


def import_in_progress(table: DataTable) -> Run | None:
    """The run importing the table's rows, while it is live: the page shows only part yet."""
    return next(
        (r for r in live_runs(importing.TableImport) if r.params.get("table_id") == table.id), None
    )


def render_table(table: DataTable, number: int, add_form=None, status: int = 200):
    view = RowView.from_args(table, request.args)
    page = catalog.rows_page(table, number, view=view)
    return render_page(
        "tables/table.html",
        "rows",
        table=table,
        importing=import_in_progress(table),
        view=view,
        operators=OPERATORS,
        facets=table_facets(table, view) if facets_now(table, view, page) else None,
        page=page,
        add_form=add_form or values_form(table.columns, prefix="add"),
    ), status


@bp.get("/<int:table_id>")
def show(table_id: int):
    return render_table(table_or_404(table_id), page_number(request.args))


def view_or_refuse(table: DataTable, args, more: Sequence[Problem] = ()) -> RowView:
    """The view args ask for; BodyInvalid (422, each problem located in the query) when any
    of it, or of more, does not fit: a JSON answer refuses rather than leaves out."""
    view, problems = RowView.read(table, args)
    if problems or more:
        raise BodyInvalid(
            [replace(p, loc=f"query.{p.loc}") for p in [*problems, *more]],
            summary="The rows cannot be sorted or filtered as asked.",
        )
    return view


def rows_json(table: DataTable, rows) -> list[dict[str, Any]]:
    """Rows as JSON answers them: each cell typed under its column's name."""
    return [{"id": row.id, "values": row.by_name(table.columns)} for row in rows]


@bp.get("/<int:table_id>.json")
@json_twin
def show_json(table_id: int):
    """The table page's JSON twin: the rows of the same view's page, each cell typed under its
    column's name, with the count, the sort and filters as understood and the pages around.
    What does not fit is refused (422, as the API refuses it) rather than left out."""
    table = table_or_404(table_id)
    keys = ", ".join(TWIN_ARGS)
    unknown = [
        Problem(f"The view takes no {key!r}: its keys are {keys}.", key)
        for key in request.args
        if key not in TWIN_ARGS
    ]
    view = view_or_refuse(table, request.args, unknown)
    size = per_page(request.args, catalog.PER_PAGE, MOST_PER_PAGE)
    page = catalog.rows_page(table, page_number(request.args), size, view)
    args = dict(view.as_args(), per_page=size if size != catalog.PER_PAGE else None)

    def page_link(number: int) -> str:
        return url_for("tables.show_json", table_id=table.id, page=number, **args)

    return jsonify(
        table={"id": table.id, "name": table.name, "columns": [c.to_dict() for c in table.columns]},
        **view.to_dict(),
        **page.as_json("rows", rows_json(table, page.items)),
        next=page_link(page.number + 1) if page.number < page.pages else None,
        previous=page_link(min(page.number, page.pages + 1) - 1) if page.number > 1 else None,
        html=url_for("tables.show", table_id=table.id, page=page.number, **view.as_args()),
    )


@bp.get("/<int:table_id>/facets")
def facets(table_id: int):
    """A large table's facets, asked for by its page once the rows are shown."""
    table = table_or_404(table_id)
    view = RowView.from_args(table, request.args)
    found = table_facets(table, view)
    return render_template("tables/_facets.html", table=table, view=view, facets=found)


@bp.get("/<int:table_id>/export.<fmt>")
def export(table_id: int, fmt: str):
    """The rows the table page shows with the same ?sort= and filter, all of them."""
    table = table_or_404(table_id)
    view = RowView.from_args(table, request.args)
    if fmt == "csv":
        body, mimetype = catalog.export_csv(table, view), "text/csv"
    elif fmt == "json":
        body = json.dumps(catalog.export_json(table, view), ensure_ascii=False, indent=2)
        mimetype = "application/json"
    else:
        abort(404)
    filename = f"{secure_filename(table.name) or f'table-{table.id}'}.{fmt}"
    disposition = f"attachment; filename={filename}"
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": disposition})


@bp.post("/<int:table_id>/rows")
@require_role(Role.editor)
def add_row(table_id: int):
    """One row from the add-row form; an empty form adds a blank row to fill in place."""
    table = table_or_404(table_id)
    form = values_form(table.columns, prefix="add")
    try:
        (row_id,) = catalog.add_rows(
            table, [{c.name: form[field_name(c)].data for c in table.columns}], current_user
        )
    except TableInvalid as exc:
        db.session.rollback()
        places = {f"rows.0.{c.name}": form[field_name(c)] for c in table.columns}
        show_on_form(form, exc.problems, places)
        return render_table(table, page_number(request.form), form, 422)
    db.session.commit()
    flash("Added a row.", "success")
    rows = catalog.row_counts([table.id])[table.id]
    last = -(-rows // catalog.PER_PAGE)
    return redirect(url_for("tables.show", table_id=table.id, page=last, _anchor=f"row-{row_id}"))


@bp.post("/<int:table_id>/rows/delete")
@require_role(Role.editor)
def delete_rows(table_id: int):
    """First a confirmation with the count; confirmed, the selected rows are deleted."""
    table = table_or_404(table_id)
    ids = sorted(record_ids(request.form.getlist("row")))
    number = page_number(request.form)
    back = url_for("tables.show", table_id=table.id, page=number)
    if not ids:
        flash("Select at least one row.", "warning")
        return redirect(back)
    if not request.form.get("confirmed"):
        return render_page(
            "tables/confirm.html",
            form=EmptyForm(),
            title=f"Delete rows of {table.name}",
            question=f"Delete {len(ids)} selected row(s) of “{table.name}”? "
            "Their values are gone for good; the audit trail keeps their changes.",
            action=url_for("tables.delete_rows", table_id=table.id),
            hidden=[("row", i) for i in ids] + [("page", number), ("confirmed", "1")],
            button=f"Delete {len(ids)} row(s)",
            back=back,
        )
    deleted = catalog.delete_rows(table, ids)
    db.session.commit()
    flash(f"Deleted {deleted} row(s).", "success")
    return redirect(back)


@bp.get("/<int:table_id>/rows/<int:row_id>/history")
def row_history(table_id: int, row_id: int):
    table = table_or_404(table_id)
    row = row_or_404(table, row_id)
    changes = history((ROW_TARGET,), row.id)
    back = url_for("tables.row_history", table_id=table.id, row_id=row.id)
    return render_page(
        "tables/row_history.html",
        table=table,
        row=row,
        label=row_label(
            row.cells or {},
            naming_columns(((c.key, c.name, c.type) for c in table.columns), ""),
            row.id,
        ),
        changes=changes,
        names={c.key: c.name for c in table.columns},
        # Each apply that can still be undone, undone from here (an apply may span many rows).
        undoable=undoable_groups(changes, ROWS.undo_sources)
        if current_user.can(Role.reviewer)
        else [],
        back=back,
    )


# Inline cell editing: htmx swaps the cell's <td> between _cell.html and _cell_edit.html.


def cell_form(row: TableRow, column: TableColumn):
    return values_form(
        [column], prefix=f"edit-{row.id}", data={field_name(column): display(row.value(column))}
    )


def cell_of(table_id: int, row_id: int, column_id: int) -> tuple[TableRow, TableColumn]:
    table = table_or_404(table_id)
    return row_or_404(table, row_id), column_or_404(table, column_id)


@bp.get("/<int:table_id>/rows/<int:row_id>/cells/<int:column_id>")
def cell(table_id: int, row_id: int, column_id: int):
    row, column = cell_of(table_id, row_id, column_id)
    return render_template("tables/_cell.html", row=row, column=column)


@bp.get("/<int:table_id>/rows/<int:row_id>/cells/<int:column_id>/edit")
@require_role(Role.editor)
def edit_cell(table_id: int, row_id: int, column_id: int):
    row, column = cell_of(table_id, row_id, column_id)
    return render_template(
        "tables/_cell_edit.html", row=row, column=column, form=cell_form(row, column)
    )


@bp.post("/<int:table_id>/rows/<int:row_id>/cells/<int:column_id>")
@require_role(Role.editor)
def save_cell(table_id: int, row_id: int, column_id: int):
    row, column = cell_of(table_id, row_id, column_id)
    form = cell_form(row, column)
    field = form[field_name(column)]
    try:
        saved = catalog.set_cell(row, column, field.data, current_user)
    except CellInvalid as exc:
        show_on_form(form, exc.problems, {"": field})
        return render_template("tables/_cell_edit.html", row=row, column=column, form=form), 422
    db.session.commit()
    return render_template(
        "tables/_cell.html", row=row, column=column, note=saved.note, warning=saved.warning
    )


# Columns


def render_columns(table: DataTable, new_form=None, renamed=None, status: int = 200):
    rename_forms = {
        c.id: RenameColumnForm(formdata=None, prefix=f"rename-{c.id}", name=c.name)
        for c in table.columns
    }
    if renamed is not None:
        rename_forms[renamed[0]] = renamed[1]
    return render_page(
        "tables/columns.html",
        table=table,
        new_form=new_form or NewColumnForm(formdata=None),
        rename_forms=rename_forms,
    ), status


@bp.get("/<int:table_id>/columns")
@require_role(Role.editor)
def columns(table_id: int):
    return render_columns(table_or_404(table_id))


@bp.post("/<int:table_id>/columns")
@require_role(Role.editor)
def add_column(table_id: int):
    table = table_or_404(table_id)
    form = NewColumnForm()
    definition = form.definition()
    try:
        column = catalog.add_column(
            table,
            definition["name"],
            definition["type"],
            definition["unit"],
            definition["options"],
        )
    except TableInvalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems, form.places())
        return render_columns(table, new_form=form, status=422)
    db.session.commit()
    flash(f"Added the column “{column.name}”.", "success")
    return redirect(url_for("tables.columns", table_id=table.id))


@bp.post("/<int:table_id>/columns/<int:column_id>/rename")
@require_role(Role.editor)
def rename_column(table_id: int, column_id: int):
    table = table_or_404(table_id)
    column = column_or_404(table, column_id)
    form = RenameColumnForm(prefix=f"rename-{column.id}")
    try:
        catalog.rename_column(column, form.name.data or "")
    except TableInvalid as exc:
        db.session.rollback()
        show_on_form(form, exc.problems)
        return render_columns(table, renamed=(column_id, form), status=422)
    db.session.commit()
    flash(f"Renamed the column to “{column.name}”.", "success")
    return redirect(url_for("tables.columns", table_id=table.id))


@bp.post("/<int:table_id>/columns/<int:column_id>/move")
@require_role(Role.editor)
def move_column(table_id: int, column_id: int):
    table = table_or_404(table_id)
    column = column_or_404(table, column_id)
    to = request.form.get("to", "")
    # A place counts from 0; count_of reads a few ASCII digits only, so "²", "-1" or thirty
    # digits stay text, which move_column refuses.
    place = 0 if to == "0" else count_of(to)
    try:
        catalog.move_column(column, to if place is None else place)
    except TableInvalid as exc:
        abort(400, description=str(exc))
    db.session.commit()
    return redirect(url_for("tables.columns", table_id=table.id, _anchor=f"column-{column.id}"))


@bp.route("/<int:table_id>/columns/<int:column_id>/delete", methods=["GET", "POST"])
@require_role(Role.editor)
def delete_column(table_id: int, column_id: int):
    table = table_or_404(table_id)
    column = column_or_404(table, column_id)
    if request.method == "GET":
        return render_page(
            "tables/confirm.html",
            form=EmptyForm(),
            title=f"Delete the column {column.name}",
            question=f"Delete the column “{column.name}” of “{table.name}” and its value in "
            "every row? The audit trail keeps the changes made to it.",
            action=url_for("tables.delete_column", table_id=table.id, column_id=column.id),
            hidden=[],
            button="Delete the column",
            back=url_for("tables.columns", table_id=table.id),
        )
    catalog.delete_column(column)
    db.session.commit()
    flash(f"Deleted the column “{column.name}”.", "success")
    return redirect(url_for("tables.columns", table_id=table.id))


@bp.route("/<int:table_id>/delete", methods=["GET", "POST"])
@require_role(Role.reviewer)
def delete(table_id: int):
    table = table_or_404(table_id)
    if request.method == "GET":
        rows = catalog.row_counts([table.id])[table.id]
        return render_page(
            "tables/confirm.html",
            form=EmptyForm(),
            title=f"Delete {table.name}",
            question=f"Delete the table “{table.name}” with its {len(table.columns)} column(s) "
            f"and {rows} row(s)? This cannot be undone.",
            action=url_for("tables.delete", table_id=table.id),
            hidden=[],
            button="Delete the table",
            back=url_for("tables.show", table_id=table.id),
        )
    catalog.delete_table(table)
    db.session.commit()
    flash(f"Deleted the table “{table.name}”.", "success")
    return redirect(url_for("tables.index"))
