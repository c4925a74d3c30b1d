import csv
import io

import pytest
from sqlalchemy import event, insert, select

from webapp.extensions import db
from webapp.review.models import Change
from webapp.tables import catalog
from webapp.tables.catalog import TableInvalid
from webapp.tables.cells import CellInvalid
from webapp.tables.models import ROW_TARGET, DataTable, TableColumn, TableRow

COLUMNS = [
    {"name": "Variety", "type": "text"},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Organic", "type": "boolean"},
    {"name": "Soil", "type": "select", "options": ["sand", "loam", "clay"]},
    {"name": "Source", "type": "url"},
]


def make_table(name="Wheat trial", columns=COLUMNS, user=None) -> DataTable:
    table = catalog.create_table(name, columns, user)
    db.session.commit()
    return table


def problems(exc: pytest.ExceptionInfo[TableInvalid]) -> list[dict]:
    return [p.to_dict() for p in exc.value.problems]


def test_a_table_is_created_with_typed_columns_in_order(app):
    table = make_table()
    assert [(c.name, c.type, c.position) for c in table.columns] == [
        ("Variety", "text", 0),
        ("Yield", "number", 1),
        ("Organic", "boolean", 2),
        ("Soil", "select", 3),
        ("Source", "url", 4),
    ]
    assert table.columns[1].unit == "t/ha"
    assert table.columns[3].options == ["sand", "loam", "clay"]


def test_table_names_are_unique_case_insensitively_and_limited(app):
    make_table("Öl trial")
    with pytest.raises(TableInvalid) as exc:
        catalog.create_table("  öL TRIAL ", COLUMNS, None)
    assert problems(exc) == [
        {
            "field": "name",
            "message": "There is already a table named “öL TRIAL”.",
            "loc": "name",
            "code": "name_invalid",
        }
    ]
    for bad, message in (("", "Give the table a name."), ("x" * 121, "limited to 120")):
        with pytest.raises(TableInvalid) as exc:
            catalog.create_table(bad, COLUMNS, None)
        assert message in exc.value.problems[0].message
    assert catalog.create_table("x" * 120, COLUMNS, None).name == "x" * 120


def test_every_column_problem_is_reported_at_once_with_its_place(app):
    with pytest.raises(TableInvalid) as exc:
        catalog.create_table(
            "Trial",
            [
                {"name": "Yield", "type": "number", "unit": "u" * 33},
                {"name": "yield", "type": "decimal"},
                {"name": "Soil", "type": "select", "options": []},
                {"name": "Variety", "type": "text", "unit": "kg"},
                {"name": "", "type": "text"},
                "not an object",
            ],
            None,
        )
    assert [(p.field, p.index, p.column, p.message) for p in exc.value.problems] == [
        ("unit", 0, "Yield", "A unit is limited to 32 characters."),
        ("name", 1, "yield", "There is already a column named “yield”."),
        ("type", 1, "yield", "Choose a type: text, number, boolean, select, url."),
        ("options", 2, "Soil", "A select column needs at least one option."),
        ("unit", 3, "Variety", "Only number columns have a unit."),
        ("name", 4, None, "Give the column a name."),
        ("columns", 5, None, "Give each column as an object with a name and a type."),
    ]
    with pytest.raises(TableInvalid) as exc:
        catalog.create_table("Trial", [], None)
    assert exc.value.problems[0].message == "Give the table at least one column."
    assert db.session.scalar(select(DataTable.id)) is None


def test_options_are_kept_only_for_select_columns_without_duplicates(app):
    table = make_table(
        columns=[
            {"name": "Soil", "type": "select", "options": ["sand", " Sand ", "", "loam"]},
            {"name": "Note", "type": "text", "options": ["ignored"]},
        ]
    )
    assert table.columns[0].options == ["sand", "loam"]
    assert table.columns[1].options == []


def test_columns_are_added_renamed_moved_and_deleted(app):
    table = make_table()
    soil, source = table.columns[3], table.columns[4]
    (row_id,) = catalog.add_rows(table, [{"Variety": "Aron", "Soil": "loam"}], None)

    added = catalog.add_column(table, "Protein", "number", "%")
    assert (added.position, added.unit) == (5, "%")
    with pytest.raises(TableInvalid, match="already a column named “protein”"):
        catalog.add_column(table, "protein")

    catalog.rename_column(soil, "Soil type")
    with pytest.raises(TableInvalid, match="already a column named “Variety”"):
        catalog.rename_column(soil, "Variety")
    catalog.rename_column(soil, "soil TYPE")  # its own name in other letters is fine

    catalog.move_column(added, "left")
    catalog.move_column(table.columns[0], 2)
    catalog.move_column(source, -5)  # clamped to the first place
    db.session.commit()
    db.session.expire_all()
    table = db.session.get(DataTable, table.id)
    names = [c.name for c in table.columns]
    assert names == ["Source", "Yield", "Organic", "Variety", "soil TYPE", "Protein"]
    assert [c.position for c in table.columns] == [0, 1, 2, 3, 4, 5]
    with pytest.raises(TableInvalid):
        catalog.move_column(table.columns[0], "sideways")

    soil = table.column_named("soil type")
    catalog.delete_column(soil)
    db.session.commit()
    db.session.expire_all()
    row = db.session.get(TableRow, row_id)
    assert soil.key not in row.cells and row.by_name(table.columns)["Variety"] == "Aron"
    assert [c.position for c in table.columns] == [0, 1, 2, 3, 4]


def test_rows_are_added_all_or_nothing_with_every_problem_named(app):
    table = make_table()
    good = {"Variety": "Aron", "Yield": "7,5", "Organic": "ja", "soil": "LOAM"}
    with pytest.raises(TableInvalid) as exc:
        catalog.add_rows(
            table,
            [good, {"Yield": "lots", "Soil": "peat"}, {"Colour": "red"}, ["not", "a", "row"]],
            None,
        )
    assert problems(exc) == [
        {
            "row": 1,
            "column": "Yield",
            "message": "Give a number, not 'lots'.",
            "loc": "rows.1.Yield",
            "code": "value_invalid",
        },
        {
            "row": 1,
            "column": "Soil",
            "message": "Choose one of the options (sand, loam, clay).",
            "loc": "rows.1.Soil",
            "code": "value_invalid",
        },
        {
            "row": 2,
            "column": "Colour",
            "message": "There is no column named “Colour”.",
            "loc": "rows.2.Colour",
            "code": "value_invalid",
        },
        {
            "row": 3,
            "message": "Give the row as an object of column name: value.",
            "loc": "rows.3",
            "code": "row_invalid",
        },
    ]
    assert db.session.scalar(select(TableRow.id)) is None

    ids = catalog.add_rows(table, [good, {}], None)
    db.session.commit()
    first, blank = (db.session.get(TableRow, i) for i in ids)
    assert first.by_name(table.columns) == {
        "Variety": "Aron",
        "Yield": 7.5,
        "Organic": True,
        "Soil": "loam",
        "Source": None,
    }
    assert blank.cells == {} and blank.position == first.position + 1


def test_added_values_are_audited_as_changes_from_empty(app, make_user):
    user = make_user("editor")
    table = make_table()
    (row_id,) = catalog.add_rows(table, [{"Variety": "Aron", "Yield": "7"}], user)
    db.session.commit()
    changes = db.session.scalars(select(Change).where(Change.target_id == row_id)).all()
    assert {(c.field, c.old_value, c.new_value, c.source) for c in changes} == {
        (table.columns[0].key, None, "Aron", "manual"),
        (table.columns[1].key, None, 7, "manual"),
    }
    assert all(c.target_type == ROW_TARGET and c.user_id == user.id for c in changes)


def test_every_cell_change_is_recorded_and_an_unchanged_value_is_not(app, make_user):
    user = make_user("editor")
    table = make_table()
    (row_id,) = catalog.add_rows(table, [{"Yield": "7"}], None)
    db.session.commit()
    row = db.session.get(TableRow, row_id)
    variety, yield_ = table.columns[0], table.columns[1]

    def changes():
        query = (
            select(Change)
            .where(Change.target_type == ROW_TARGET, Change.target_id == row_id)
            .order_by(Change.id)
        )
        return [(c.field, c.old_value, c.new_value) for c in db.session.scalars(query)]

    added = [(yield_.key, None, 7)]  # the row came with its value
    assert changes() == added
    assert catalog.set_cell(row, yield_, "7.0", user).changed is False
    assert catalog.set_cell(row, variety, "  ", user).changed is False
    assert changes() == added

    assert catalog.set_cell(row, yield_, "8,25", user).changed is True
    assert catalog.set_cell(row, variety, "Aron", user).changed is True
    assert catalog.set_cell(row, variety, "Aron ", user).changed is False
    assert catalog.set_cell(row, yield_, "", user).changed is True
    db.session.commit()
    assert changes() == [
        *added,
        (yield_.key, 7, 8.25),
        (variety.key, None, "Aron"),
        (yield_.key, 8.25, None),
    ]
    db.session.expire_all()
    assert db.session.get(TableRow, row_id).cells == {variety.key: "Aron"}
    with pytest.raises(CellInvalid):
        catalog.set_cell(row, yield_, "seven", user)
    assert len(changes()) == 4


def insert_rows(table: DataTable, count: int) -> None:
    """Many rows in one statement, as a large import makes them."""
    key = table.columns[0].key
    db.session.execute(
        insert(TableRow),
        [
            {"table_id": table.id, "position": n, "cells": {key: f"row {n + 1}"}}
            for n in range(count)
        ],
    )
    db.session.commit()


def test_a_page_of_ten_thousand_rows_takes_a_count_a_limited_query_and_its_rows(app):
    table = make_table(columns=[{"name": "Label", "type": "text"}])
    insert_rows(table, 10_000)
    assert table.columns  # loaded now, so only the page's own queries are counted below
    statements: list[str] = []

    def record(conn, cursor, statement, *args):
        statements.append(statement)

    event.listen(db.engine, "before_cursor_execute", record)
    try:
        page = catalog.rows_page(table, 137)
    finally:
        event.remove(db.engine, "before_cursor_execute", record)
    assert (page.total, page.pages, page.per_page) == (10_000, 200, 50)
    labels = [row.by_name(table.columns)["Label"] for row in page.items]
    assert labels == [f"row {n}" for n in range(6801, 6851)]
    assert len(statements) == 3
    count, limited, rows = statements
    assert "COUNT(" in count.upper() and "LIMIT" in limited.upper()
    # the page's ids are sorted and skipped (from the end: page 137 of 200 is nearer it), then
    # only those rows are read, with their cells
    assert limited.upper().startswith("SELECT TABLE_ROWS.ID \nFROM")
    assert "POSITION DESC" in limited.upper()
    assert "IN (" in rows.upper() and "LIMIT" not in rows.upper()
    last = catalog.rows_page(table, 200)
    assert last.items[-1].by_name(table.columns)["Label"] == "row 10000"
    assert catalog.rows_page(table, 201).items == []


def test_rows_keep_their_order_when_others_are_deleted(app):
    table = make_table(columns=[{"name": "Label", "type": "text"}])
    ids = catalog.add_rows(table, [{"Label": str(n)} for n in range(5)], None)
    other = make_table("Other", columns=[{"name": "Label", "type": "text"}])
    (other_row,) = catalog.add_rows(other, [{"Label": "x"}], None)
    assert catalog.delete_rows(table, [ids[1], ids[3], other_row]) == 2
    catalog.add_rows(table, [{"Label": "5"}], None)
    db.session.commit()
    page = catalog.rows_page(table, 1)
    assert [r.by_name(table.columns)["Label"] for r in page.items] == ["0", "2", "4", "5"]
    assert db.session.get(TableRow, other_row) is not None


def test_exports_give_columns_with_types_and_rows_by_name(app):
    table = make_table()
    catalog.add_rows(
        table,
        [
            {"Variety": "Aron, early", "Yield": "7.5", "Organic": "no", "Source": "example.org/a"},
            {"Variety": "Bussard", "Yield": "8"},
        ],
        None,
    )
    db.session.commit()
    rows = list(csv.reader(io.StringIO(catalog.export_csv(table))))
    assert rows == [
        ["Variety", "Yield", "Organic", "Soil", "Source"],
        ["Aron, early", "7.5", "false", "", "https://example.org/a"],
        ["Bussard", "8", "", "", ""],
    ]
    data = catalog.export_json(table)
    assert data["name"] == "Wheat trial"
    assert data["columns"][1] | {"id": None} == {
        "id": None,
        "name": "Yield",
        "type": "number",
        "unit": "t/ha",
        "options": [],
        "position": 1,
    }
    assert data["rows"][1] == {
        "Variety": "Bussard",
        "Yield": 8,
        "Organic": None,
        "Soil": None,
        "Source": None,
    }


def test_deleting_a_table_takes_its_columns_and_rows(app):
    table = make_table()
    catalog.add_rows(table, [{"Variety": "Aron"}], None)
    db.session.commit()
    catalog.delete_table(table)
    db.session.commit()
    assert db.session.scalar(select(TableColumn.id)) is None
    assert db.session.scalar(select(TableRow.id)) is None
