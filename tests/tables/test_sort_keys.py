"""The cells' sort keys stay in step with every write of cells, and a page read through them
holds the rows the cells' own values put there."""

import importlib.util
import io
import itertools
from pathlib import Path

from alembic.migration import MigrationContext
from alembic.operations import Operations
from sqlalchemy import delete, insert, select

from tests.support.tables import make_table, run_here
from webapp.extensions import db
from webapp.review import service
from webapp.review.models import Suggestion
from webapp.tables import catalog, importing
from webapp.tables.browsing import RowView
from webapp.tables.importing import TableImport
from webapp.tables.models import DataTable, TableCellKey, TableRow
from webapp.tables.runs import start_enrichment
from webapp.tables.sort_keys import TEXT_KEY_CHARS, cell_key

COLUMNS = [
    {"name": "Variety", "type": "text"},
    {"name": "Yield", "type": "number"},
    {"name": "Organic", "type": "boolean"},
    {"name": "Soil", "type": "select", "options": ["sand", "loam", "clay"]},
]


def stored_keys(table) -> set[tuple]:
    key = TableCellKey
    query = (
        select(key.row_id, key.column_id, key.position, key.number, key.text)
        .join(TableRow, TableRow.id == key.row_id)
        .where(TableRow.table_id == table.id)
    )
    return {tuple(found) for found in db.session.execute(query)}


def assert_in_step(table) -> set[tuple]:
    """The stored keys are those of the rows' cells as they are now."""
    db.session.expire_all()
    wanted = set()
    for row in db.session.scalars(select(TableRow).where(TableRow.table_id == table.id)):
        for column_key, value in row.cells.items():
            if (key := cell_key(value)) is not None:
                wanted.add((row.id, int(column_key), row.position, *key))
    stored = stored_keys(table)
    assert stored == wanted
    return stored


def test_a_cells_key_is_its_number_or_its_lowered_text():
    assert cell_key(None) is None and cell_key("") is None
    assert cell_key(7) == (7.0, None) and cell_key(2.5) == (2.5, None)
    assert cell_key(True) == (1.0, None) and cell_key(False) == (0.0, None)
    assert cell_key("Éclair Loam") == (None, "éclair loam")
    assert cell_key("x" * 2000) == (None, "x" * TEXT_KEY_CHARS)


def test_added_rows_and_edited_cells_keep_their_keys(app):
    table = catalog.create_table("Trial", COLUMNS, None)
    ids = catalog.add_rows(
        table,
        [
            {"Variety": "Bussard", "Yield": 9, "Organic": True, "Soil": "loam"},
            {"Variety": "aron", "Yield": "10.5"},
        ],
        None,
    )
    db.session.commit()
    assert len(assert_in_step(table)) == 6
    first, second = (db.session.get(TableRow, i) for i in ids)
    variety, yield_ = table.column_named("Variety"), table.column_named("Yield")
    catalog.set_cell(first, yield_, "12", None)
    catalog.set_cell(second, variety, "Aron Rouge", None)
    catalog.set_cell(first, variety, "", None)
    db.session.commit()
    keys = assert_in_step(table)
    assert (first.id, yield_.id, first.position, 12.0, None) in keys
    assert (second.id, variety.id, second.position, None, "aron rouge") in keys
    assert not any(row_id == first.id and column == variety.id for row_id, column, *_ in keys)


def test_a_csv_imported_in_the_page_has_its_keys(app):
    table = catalog.import_csv("Plots", "Plot,Yield\nA,1\nb,\nC,3\n", {}, None)
    db.session.commit()
    assert len(assert_in_step(table)) == 5


def test_deleting_a_column_or_rows_removes_their_keys(app):
    table = catalog.create_table("Trial", COLUMNS, None)
    ids = catalog.add_rows(table, [{"Variety": f"v{n}", "Yield": n} for n in range(4)], None)
    db.session.commit()
    yield_ = table.column_named("Yield")
    catalog.delete_column(yield_)
    catalog.delete_rows(table, ids[:1])
    db.session.commit()
    keys = assert_in_step(table)
    assert {(row_id, column) for row_id, column, *_ in keys} == {
        (row_id, table.column_named("Variety").id) for row_id in ids[1:]
    }


def test_an_import_run_writes_each_batchs_keys(app, idle_queue, monkeypatch, make_user):
    monkeypatch.setattr(importing, "BATCH_ROWS", 4)
    lines = ["Plot,Yield,Soil"] + [f"P{n},{n % 3},{'Loam' if n % 2 else ''}" for n in range(10)]
    token = importing.store_upload(io.BytesIO("\n".join(lines).encode()))
    run = importing.start_import(token, "Plots", {}, False, make_user("editor"))
    db.session.commit()
    run_here(run, TableImport())
    assert run.status == "succeeded" and run.total == 3
    table = db.session.get(DataTable, run.params["table_id"])
    assert len(assert_in_step(table)) == 10 + 10 + 5


def test_apply_and_its_undo_keep_the_keys(app, make_user, idle_queue):
    table = make_table(
        "Orders",
        [("Item", "text"), ("Price", "number"), ("Qty", "number"), ("Total", "number")],
        [
            {"Item": "seed", "Price": 2.5, "Qty": 4},
            {"Item": "tray", "Price": 3, "Qty": 2, "Total": 1},
        ],
    )
    assert len(assert_in_step(table)) == 7
    user = make_user("editor")
    run = run_here(
        start_enrichment(table, "Total", "computation", {"formula": "{Price} * {Qty}"}, None, user)
    )
    suggestions = list(db.session.scalars(select(Suggestion.id).filter_by(run_id=run.id)))
    result = service.apply(suggestions, user)
    db.session.commit()
    total = table.column_named("Total").id
    assert {k[3] for k in assert_in_step(table) if k[1] == total} == {10.0, 6.0}
    assert service.undo(result.group, user).changed_since == []
    db.session.commit()
    assert {k[3] for k in assert_in_step(table) if k[1] == total} == {1.0}


# Ties, case, empties, negatives and a boolean; text in letters alone, so every collation
# orders it as Python does.
VALUES = [
    {"Variety": "bussard", "Yield": 9, "Organic": True, "Soil": "loam"},
    {"Variety": "Aron", "Yield": 10.5, "Organic": False, "Soil": "sand"},
    {"Variety": "capo", "Yield": 100, "Soil": "loam"},
    {"Variety": "Dekan", "Organic": True, "Soil": "clay"},
    {"Yield": -2, "Soil": "loam"},
    {"Variety": "aron", "Yield": 9, "Organic": False},
    {"Variety": "BUSSARD", "Yield": 0},
    {"Variety": "ELIXER", "Organic": True, "Soil": "sand"},
    {},
    {"Variety": "dekan", "Yield": 9, "Soil": "clay"},
    {"Variety": "xenon", "Yield": 1e6, "Organic": False, "Soil": "loam"},
]
FILTERS = [
    ("", "", ""),
    ("Yield", "gt", "5"),
    ("Yield", "lt", "9"),
    ("Yield", "eq", "9"),
    ("Yield", "eq", "many"),
    ("Yield", "empty", ""),
    ("Variety", "eq", "ARON"),
    ("Variety", "gt", "c"),
    ("Variety", "lt", "Dekan"),
    ("Variety", "contains", "SS"),
    ("Variety", "empty", ""),
    ("Organic", "eq", "yes"),
    ("Organic", "eq", "no"),
    ("Soil", "eq", "Loam"),
    ("Soil", "empty", ""),
]


def expected(values, sort, descending, column, op, wanted):
    """The rows' places in order, as the cells' own values give it."""

    def value(n, name):
        return values[n].get(name)

    def comparable(n, name):
        found = value(n, name)
        if isinstance(found, str):
            return found.lower()
        return float(found)

    def matches(n):
        if not column:
            return True
        found = value(n, column)
        if op == "empty":
            return found is None
        if found is None:
            return False
        if op == "contains":
            return wanted.lower() in found.lower()
        if column == "Organic":
            return found is (wanted == "yes")
        if column == "Yield":
            try:
                target = float(wanted)
            except ValueError:
                return False
        else:
            target = wanted.lower()
        mine = comparable(n, column)
        return {"eq": mine == target, "gt": mine > target, "lt": mine < target}[op]

    kept = [n for n in range(len(values)) if matches(n)]
    if not sort:
        return kept
    filled = [n for n in kept if value(n, sort) is not None]
    empty = [n for n in kept if value(n, sort) is None]
    filled.sort(key=lambda n: comparable(n, sort), reverse=descending)
    # sort is stable and reverse keeps equal items in their order: ties stay in table order
    return filled + empty


def test_pages_read_through_the_keys_hold_the_rows_the_values_put_there(app):
    table = catalog.create_table("Trial", COLUMNS, None)
    ids = catalog.add_rows(table, VALUES, None)
    db.session.commit()
    place = {row_id: n for n, row_id in enumerate(ids)}
    sorts = [("", False)] + [
        (name, descending)
        for name in ("Variety", "Yield", "Organic", "Soil")
        for descending in (False, True)
    ]
    for (sort, descending), (column, op, wanted) in itertools.product(sorts, FILTERS):
        args = {
            "sort": table.column_named(sort).key if sort else "",
            "dir": "desc" if descending else "",
        }
        if column:
            args |= {"col": table.column_named(column).key, "op": op, "q": wanted}
        view = RowView.from_args(table, args)
        want = expected(VALUES, sort, descending, column, op, wanted)
        for per_page in (2, 3, 50):
            first = catalog.rows_page(table, 1, per_page, view)
            pages = [first] + [
                catalog.rows_page(table, n, per_page, view) for n in range(2, first.pages + 1)
            ]
            got = [place[row.id] for page in pages for row in page.items]
            assert got == want, (sort, descending, column, op, wanted, per_page)
            assert first.total == len(want)
        exported = [place[row.id] for row in db.session.scalars(view.query(table))]
        assert exported == want, (sort, descending, column, op, wanted)


def test_the_migration_writes_the_keys_of_rows_stored_before_it(app):
    path = next(Path("migrations/versions").glob("*_table_cell_keys_*.py"))
    spec = importlib.util.spec_from_file_location("cell_keys_revision", path)
    revision = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(revision)
    table = catalog.create_table("Trial", COLUMNS, None)
    catalog.add_rows(table, VALUES, None)
    db.session.execute(delete(TableCellKey))
    stale = {"9999": "a deleted column's value"}
    db.session.execute(insert(TableRow), [{"table_id": table.id, "position": 99, "cells": stale}])
    context = MigrationContext.configure(db.session.connection())
    with Operations.context(context):
        revision.backfill()
    db.session.commit()
    assert (
        db.session.scalars(select(TableCellKey).where(TableCellKey.column_id == 9999)).all() == []
    )
    db.session.execute(delete(TableRow).where(TableRow.position == 99))
    assert len(assert_in_step(table)) == 31
