"""The farm-systems forms: importing a file, and one value of the grid."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from wtforms import HiddenField, StringField
from wtforms.validators import DataRequired, Length

IMPORT_MAX_BYTES = 5 * 1024 * 1024


class ImportForm(FlaskForm):
    farm = StringField(
        "Farm",
        validators=[DataRequired("Name the farm."), Length(max=200)],
        description="An existing farm's name adds the system to it; a new name creates the farm.",
    )
    region = StringField("Region", validators=[Length(max=200)])
    name = StringField(
        "System name",
        validators=[Length(max=200)],
        description="Left empty, the file's title names it.",
    )
    file = FileField(
        "itinera JSON file",
        validators=[
            FileRequired("Choose a JSON file."),
            FileAllowed(["json"], "Only .json files."),
        ],
        description="An itinera export (or one from Furrow), UTF-8, at most 5 MB.",
    )


class ValueForm(FlaskForm):
    """One cell: the step, the intervention (empty for the step's own value) and the key."""

    step = HiddenField()
    intervention = HiddenField()
    key = HiddenField()
    value = StringField("Value")
