"""Ids and places typed into the tables' forms: what names no row, suggestion or place ("²",
which str.isdigit takes and int() refuses, thirty digits, "-1") gets a clear answer and
changes nothing, never a server error."""

import pytest
from sqlalchemy import func, select

from tests.support.app import HTMX
from tests.support.tables import orders_table, run_here
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Suggestion
from webapp.tables.models import DataTable, TableRow
from webapp.tables.runs import start_enrichment

BAD_IDS = ["²", "٣", "1" * 30, "-1"]
FORMULA = "{Price} * {Qty}"


@pytest.fixture
def orders(app):
    return orders_table()


def row_ids(table: DataTable) -> dict[str, int]:
    item = table.column_named("Item").key
    return {row.cells[item]: row.id for row in db.session.scalars(select(TableRow))}


def column_names(table_id: int) -> list[str]:
    db.session.expire_all()
    return [c.name for c in db.session.get(DataTable, table_id).columns]


def test_deleting_rows_by_ids_that_name_none_deletes_nothing(client_as, orders):
    editor = client_as("editor")
    page = f"/tables/{orders.id}"
    for bad in BAD_IDS:
        for confirmed in ({}, {"confirmed": "1"}):
            answer = editor.submit(
                f"{page}/rows/delete", {"row": bad, **confirmed}, page=page, follow_redirects=True
            )
            assert answer.status_code == 200, bad
            assert "Select at least one row." in answer.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(TableRow)) == 2
    # a row's own id beside them is deleted alone
    seed = row_ids(orders)["seed"]
    answer = editor.submit(
        f"{page}/rows/delete",
        {"row": [*BAD_IDS, str(seed)], "confirmed": "1"},
        page=page,
        follow_redirects=True,
    )
    assert "Deleted 1 row(s)." in answer.get_data(as_text=True)
    assert list(row_ids(orders)) == ["tray"]


def test_a_column_moved_to_no_place_stays_and_a_place_is_bounded(client_as, orders):
    editor = client_as("editor")
    page = f"/tables/{orders.id}/columns"
    qty = orders.column_named("Qty")
    for bad in [*BAD_IDS, "", "1.5"]:
        answer = editor.submit(f"{page}/{qty.id}/move", {"to": bad}, page=page)
        assert answer.status_code == 400, bad
        assert "Move a column left, right or to a position." in answer.get_data(as_text=True)
    assert column_names(orders.id) == ["Item", "Price", "Qty", "Total"]
    # a place counts from 0, and one past the last column is the last
    assert editor.submit(f"{page}/{qty.id}/move", {"to": "0"}, page=page).status_code == 302
    assert column_names(orders.id) == ["Qty", "Item", "Price", "Total"]
    assert editor.submit(f"{page}/{qty.id}/move", {"to": "9" * 9}, page=page).status_code == 302
    assert column_names(orders.id) == ["Item", "Price", "Total", "Qty"]


def test_enriching_rows_named_by_no_id_starts_nothing(client_as, orders, idle_queue):
    editor = client_as("editor")
    form = {"column": "Total", "strategy": "computation", "formula": FORMULA}
    token = editor.csrf_token(f"/tables/{orders.id}")
    for bad in BAD_IDS:
        answer = editor.post(
            f"/tables/{orders.id}/enrich",
            data={**form, "row": bad, "csrf_token": token},
            headers=HTMX,
        )
        assert answer.status_code == 422, bad
        assert "Choose at least one row of this table." in answer.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(Run)) == 0


def test_applying_or_rejecting_rows_named_by_no_id_decides_nothing(
    client_as, make_user, orders, idle_queue
):
    run = run_here(
        start_enrichment(orders, "Total", "computation", {"formula": FORMULA}, None, make_user())
    )
    reviewer = client_as("reviewer")
    run_url = f"/review/runs/{run.id}"
    total = orders.column_named("Total").key
    for bad in BAD_IDS:
        applied = reviewer.submit(
            f"{run_url}/apply",
            {"suggestion": bad, f"value-{bad}": "7", "reconfirm": bad},
            page=run_url,
            follow_redirects=True,
        )
        assert applied.status_code == 200, bad
        assert "Choose the rows to apply." in applied.get_data(as_text=True)
        rejected = reviewer.submit(
            f"{run_url}/reject", {"suggestion": bad}, page=run_url, follow_redirects=True
        )
        assert rejected.status_code == 200, bad
        assert "Choose the rows to reject." in rejected.get_data(as_text=True)
    db.session.expire_all()
    assert not any(total in row.cells for row in db.session.scalars(select(TableRow)))
    # a suggestion's own id beside them is applied alone, with its proposed value
    seed = row_ids(orders)["seed"]
    suggestion = db.session.scalar(select(Suggestion.id).filter_by(run_id=run.id, target_id=seed))
    applied = reviewer.submit(
        f"{run_url}/apply",
        {"suggestion": [*BAD_IDS, str(suggestion)], "reconfirm": BAD_IDS}
        | {f"value-{bad}": "7" for bad in BAD_IDS},
        page=run_url,
        follow_redirects=True,
    )
    assert "Applied Total of seed." in applied.get_data(as_text=True)
    db.session.expire_all()
    assert db.session.get(TableRow, seed).cells[total] == 10
    assert total not in db.session.get(TableRow, row_ids(orders)["tray"]).cells
