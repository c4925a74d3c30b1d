"""Research-table forms: they only collect input; webapp.tables.catalog decides what is valid."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    SelectField,
    StringField,
    TextAreaField,
)
from wtforms.fields.choices import SelectChoice
from wtforms.fields.core import Field

from webapp.tables.cells import COLUMN_TYPES
from webapp.tables.models import TableColumn

TYPE_LABELS = {
    "text": "text",
    "number": "number",
    "boolean": "yes / no",
    "select": "select (one of the options)",
    "url": "web address",
}
BOOLEAN_CHOICES = [SelectChoice("", "—"), SelectChoice("true", "yes"), SelectChoice("false", "no")]


class ColumnForm(Form):
    """One column's definition; a row of the new-table and import forms."""

    name = StringField("Column name")
    type = SelectField(
        "Type", choices=[SelectChoice(t, TYPE_LABELS[t]) for t in COLUMN_TYPES], default="text"
    )
    unit = StringField("Unit", description="Number columns only, e.g. kg/ha.")
    options = TextAreaField(
        "Options", description="Select columns only: one option per line.", render_kw={"rows": 2}
    )

    def is_blank(self) -> bool:
        return not any((f.data or "").strip() for f in (self.name, self.unit, self.options))

    def definition(self) -> dict[str, Any]:
        return {
            "name": self.name.data,
            "type": self.type.data,
            "unit": self.unit.data,
            "options": (self.options.data or "").splitlines(),
        }

    def places(self, loc: str = "") -> dict[str, Field]:
        """Where the catalog's problems about this column show (loc "columns.<index>" for a
        column of a list): under their input, or under its name."""
        inputs = {f"{loc}.{name}" if loc else name: self[name] for name in self._fields}
        return {loc or "columns": self.name, **inputs}


def column_places(columns: Sequence[ColumnForm]) -> dict[str, Field]:
    """The places of a list of column rows; index i is the i-th definition given."""
    return {
        k: v for i, column in enumerate(columns) for k, v in column.places(f"columns.{i}").items()
    }


class NewColumnForm(FlaskForm, ColumnForm):
    """The add-column form of the columns page: the same fields, with a CSRF token."""


class TableForm(FlaskForm):
    name = StringField("Table name")
    columns = FieldList(FormField(ColumnForm), min_entries=3)

    def filled(self) -> list[ColumnForm]:
        """The column rows a person filled in; empty ones are left over from the page."""
        return [entry.form for entry in self.columns if not entry.form.is_blank()]


class RenameColumnForm(FlaskForm):
    name = StringField("New name")


class ImportForm(FlaskForm):
    file = FileField(
        "CSV file",
        validators=[
            FileRequired("Choose a CSV file."),
            FileAllowed(["csv", "tsv", "txt"], "Only .csv, .tsv or .txt files."),
        ],
        description="UTF-8, at most 50 MB; the first line names the columns. Files over 5 MB or "
        "10,000 rows are imported in the background, with a progress bar. Comma, semicolon "
        "and tab delimiters are recognised.",
    )


class ConfirmImportForm(FlaskForm):
    name = StringField("Table name")
    csv_text = HiddenField()  # a small file's text, imported in the page
    upload = HiddenField()  # a large file's stored name, imported by a run
    drop_first = BooleanField(
        "Leave out “column 1”",
        description="The first column has no name: a spreadsheet's or pandas' row numbers, "
        "most likely.",
    )
    columns = FieldList(FormField(ColumnForm))

    def column_types(self) -> dict[str, tuple[str, list[str], str]]:
        return {
            entry.form.name.data: (
                entry.form.type.data,
                (entry.form.options.data or "").splitlines(),
                entry.form.unit.data,
            )
            for entry in self.columns
        }


def field_name(column: TableColumn) -> str:
    return f"c{column.id}"


def value_field(column: TableColumn) -> Field:
    """The input for one cell: a choice for yes/no and select columns, else a text box."""
    label = column.label
    if column.type == "boolean":
        return SelectField(label, choices=BOOLEAN_CHOICES, validate_choice=False)
    if column.type == "select":
        choices = [SelectChoice("", "—"), *(SelectChoice(o) for o in column.options)]
        return SelectField(label, choices=choices, validate_choice=False)
    inputmode = {"number": "decimal", "url": "url"}.get(column.type)
    return StringField(label, render_kw={"inputmode": inputmode} if inputmode else None)


def values_form(
    columns: Sequence[TableColumn], prefix: str = "", data: dict[str, str] | None = None
) -> FlaskForm:
    """A form with one field per column, named <prefix>-c<column id>; the prefix keeps the
    inputs of several open cell editors and the add-row form apart. (Its CSRF field takes the
    prefix too, so templates put the plain csrf_token input in the form themselves.)"""
    fields = {field_name(c): value_field(c) for c in columns}
    form_class = type("ValuesForm", (FlaskForm,), fields)
    return form_class(prefix=prefix, data=data)
