import io

from sqlalchemy import func, select

from tests.support.tables import run_here
from tests.tables.test_csv_import import confirm_form, hidden, upload
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.tables import catalog, importing
from webapp.tables.importing import TableImport
from webapp.tables.models import DataTable, TableRow

ROWS = 3_500


def plots_csv(rows: int = ROWS, bad_lines: tuple[int, ...] = ()) -> str:
    """A trial's plots, pandas-style: an unnamed index column first."""
    lines = [",Plot,Yield,Soil"]
    for n in range(rows):
        value = "n/a" if n + 2 in bad_lines else f"{n % 90 / 10 + 1}"
        lines.append(f"{n},P{n:05d},{value},{'Loam' if n % 2 else 'Sand'}")
    return "\n".join(lines) + "\n"


def large_form(page: str, **types: str) -> dict[str, str]:
    form = confirm_form(page, **types)
    assert form.pop("csv_text") == ""  # the rows stay on the server
    form["upload"] = hidden(page, "upload")
    return form


def imported(table: DataTable) -> list[dict]:
    query = select(TableRow).where(TableRow.table_id == table.id).order_by(TableRow.position)
    return [row.by_name(table.columns) for row in db.session.scalars(query)]


def test_a_large_file_is_imported_by_a_run_in_batches(client_as, idle_queue, monkeypatch):
    monkeypatch.setattr(importing, "IN_PAGE_ROWS", 1_000)
    editor = client_as("editor")
    preview = upload(editor, plots_csv(), name="plots.csv")
    page = preview.get_data(as_text=True)
    assert preview.status_code == 200
    assert "3,500 row(s) and 4 column(s)" in page
    assert "guessed from the first 1,000 rows" in page
    form = large_form(page)
    form["drop_first"] = "y"
    confirmed = editor.submit("/tables/import/confirm", form, page="/tables/import")
    assert confirmed.status_code == 302
    run = db.session.scalars(select(Run)).one()
    assert confirmed.headers["Location"] == f"/runs/{run.id}"
    assert run.kind == "table_import" and run.total == 2  # 2,000 rows a batch
    stored = importing.imports_dir() / f"{run.params['token']}.csv"
    assert stored.is_file()
    table_page = f"/tables/{run.params['table_id']}"
    notice = "The rows are being imported: 0 of 2 batches of the file are in"
    assert notice in editor.get(table_page).get_data(as_text=True)

    run_here(run, TableImport())
    assert run.status == "succeeded"
    assert "being imported" not in editor.get(table_page).get_data(as_text=True)
    table = db.session.get(DataTable, run.params["table_id"])
    assert [c.name for c in table.columns] == ["Plot", "Yield", "Soil"]  # column 1 dropped
    rows = imported(table)
    assert len(rows) == ROWS
    assert rows[0] == {"Plot": "P00000", "Yield": 1, "Soil": "Sand"}
    assert rows[-1] == {"Plot": f"P{ROWS - 1:05d}", "Yield": 8.9, "Soil": "Loam"}
    assert not stored.exists()  # removed once the last batch is in
    shown = editor.get(f"/runs/{run.id}").get_data(as_text=True)
    assert "<strong>Imported 3,500 row(s).</strong>" in shown and "Rows 1–2,000" in shown
    assert f'href="/tables/{table.id}">Open the table “plots”' in shown


def test_rows_whose_values_do_not_fit_are_left_out_and_named(client_as, idle_queue, monkeypatch):
    monkeypatch.setattr(importing, "IN_PAGE_ROWS", 1_000)
    editor = client_as("editor")
    page = upload(editor, plots_csv(bad_lines=(2_500,))).get_data(as_text=True)
    form = large_form(page)  # column 1 kept
    editor.submit("/tables/import/confirm", form, page="/tables/import")
    run = run_here(db.session.scalars(select(Run)).one(), TableImport())
    assert run.status == "succeeded"
    table = db.session.get(DataTable, run.params["table_id"])
    assert table.columns[0].name == "column 1" and table.columns[0].type == "number"
    assert len(imported(table)) == ROWS - 1
    shown = editor.get(f"/runs/{run.id}").get_data(as_text=True)
    assert 'class="flash flash-warning" id="verdict"' in shown and "1 row(s) were refused" in shown
    assert "Line 2,500, Yield: Give a number, not &#39;n/a&#39;." in shown


def test_an_unnamed_first_column_is_offered_in_the_page_import(client_as):
    editor = client_as("editor")
    page = upload(editor, plots_csv(rows=5)).get_data(as_text=True)
    assert "Leave out “column 1”" in page
    kept = confirm_form(page)
    kept["name"] = "Kept"
    assert editor.submit("/tables/import/confirm", kept, page="/tables/import").status_code == 302
    dropped = {**confirm_form(page), "name": "Dropped", "drop_first": "y"}
    assert (
        editor.submit("/tables/import/confirm", dropped, page="/tables/import").status_code == 302
    )
    tables = {t.name: t for t in db.session.scalars(select(DataTable))}
    assert [c.name for c in tables["Kept"].columns] == ["column 1", "Plot", "Yield", "Soil"]
    assert [c.name for c in tables["Dropped"].columns] == ["Plot", "Yield", "Soil"]
    assert imported(tables["Dropped"])[4] == {"Plot": "P00004", "Yield": 1.4, "Soil": "Sand"}


def test_uploads_too_large_or_not_utf8_are_refused_and_nothing_is_kept(client_as, monkeypatch):
    editor = client_as("editor")
    latin = upload(editor, "Sorte;Ertrag\nMöhre;3\n".encode("latin-1"))
    assert latin.status_code == 422
    assert "The file is not UTF-8 text. Save it as CSV (UTF-8)." in latin.get_data(as_text=True)
    monkeypatch.setattr(importing, "MAX_BYTES", 1024)
    monkeypatch.setattr(importing, "TOO_LARGE", "The file is larger than 1 KB; split it.")
    big = upload(editor, "a\n" + "x\n" * 600)
    assert big.status_code == 422
    assert "The file is larger than 1 KB; split it." in big.get_data(as_text=True)
    assert list(importing.imports_dir().glob("*.csv")) == []
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 0


def test_a_body_above_the_limit_is_refused_before_it_is_read(client_as, monkeypatch):
    monkeypatch.setattr(importing, "MAX_BYTES", 1024)
    editor = client_as("editor")
    response = editor.post(
        "/tables/import",
        data={
            "csrf_token": editor.csrf_token("/tables/import"),
            "file": (io.BytesIO(b"a\n" + b"x" * 200_000), "big.csv"),
        },
        content_type="multipart/form-data",
    )
    assert response.status_code == 413
    assert "The upload is larger than the 65 KB this server accepts." in response.get_data(
        as_text=True
    )


def test_an_import_takes_more_than_the_configured_upload_limit(app, client_as, monkeypatch):
    """The import page's own limit (50 MB) holds, not the upload limit every other page has."""
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 1024)
    editor = client_as("editor")
    response = upload(editor, "Plot,Yield\n" + "P1,1.5\n" * 1000)
    assert response.status_code == 200
    assert "Create the table" in response.get_data(as_text=True)


def test_a_confirm_for_an_upload_that_is_gone_says_so(client_as):
    editor = client_as("editor")
    form = {"name": "x", "upload": "0" * 32, "columns-0-name": "a", "columns-0-type": "text"}
    response = editor.submit("/tables/import/confirm", form, page="/tables/import")
    assert response.status_code == 422
    assert "The upload is gone; upload the file again." in response.get_data(as_text=True)
    forged = {**form, "upload": "../secret_key"}
    assert editor.submit("/tables/import/confirm", forged, page="/tables/import").status_code == 422


def test_the_preview_scan_finds_where_each_batch_starts(tmp_path):
    path = tmp_path / "rows.csv"
    path.write_text('\ufeffa;b\n1;"two\nlines"\n\n3;4\n5;6\n', encoding="utf-8")
    with path.open("rb") as handle:
        preview = catalog.scan_csv(catalog.LineSource(handle), ";", keep_rows=1, batch_rows=2)
    assert preview.total == 3 and [c.name for c in preview.columns] == ["a", "b"]
    assert preview.rows == [{"a": "1", "b": "two\nlines"}] and preview.partial
    (first, _), (second, line_before) = preview.batches
    assert first == len("\ufeffa;b\n".encode())
    # A record's line is the one it ends on, as the preview names lines.
    assert importing.read_batch(path, ";", first, 1)[:2] == [
        (3, ["1", "two\nlines"]),
        (5, ["3", "4"]),
    ]
    assert importing.read_batch(path, ";", second, line_before) == [(6, ["5", "6"])]
