"""A row is named by its key columns and a column by its name, wherever a review lists them."""

from sqlalchemy import select

from tests.support.tables import make_table
from webapp.extensions import db
from webapp.review.targets import target_for
from webapp.tables.models import ROW_TARGET, TableRow
from webapp.tables.target import naming_columns, row_label

COLUMNS = [("key", "crop", "text"), ("c", "country", "select"), ("y", "Year", "number")]


def test_a_row_is_named_by_its_text_select_and_year_columns():
    cells = {"key": "Wheat", "c": "Kenya", "y": 2014, "n": 4.7}
    columns = [*COLUMNS, ("n", "yield", "number")]
    assert naming_columns(columns, "") == ["key", "c", "y"]
    assert row_label(cells, naming_columns(columns, ""), 7) == "Wheat · Kenya · 2014"
    # The column being filled never names its row; an empty row is named by its number.
    assert row_label(cells, naming_columns(columns, "key"), 7) == "Kenya · 2014"
    assert row_label({}, naming_columns(columns, ""), 7) == "Row 7"


def test_the_review_core_names_rows_and_columns_as_people_do(app):
    table = make_table(
        "Crop production",
        [("Crop", "text"), ("Country", "text"), ("Year", "number"), ("Yield", "number")],
        [
            {"Crop": "Wheat", "Country": "Kenya", "Year": 2014},
            {"Crop": "Wheat", "Country": "Kenya", "Year": 2015},
        ],
    )
    rows = target_for(ROW_TARGET)
    ids = db.session.scalars(select(TableRow.id).where(TableRow.table_id == table.id)).all()
    names = rows.names(ids)
    assert sorted(names.values()) == ["Wheat · Kenya · 2014", "Wheat · Kenya · 2015"]
    yield_column = table.column_named("Yield")
    assert rows.field_label(yield_column.key) == "Yield"
    assert rows.field_label("999999") == "999999"
