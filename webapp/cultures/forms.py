"""The culture form: it only collects input; webapp.cultures.domain decides what is valid."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from wtforms import BooleanField, HiddenField
from wtforms.validators import InputRequired

from webapp.cultures.fields import FIELDS, LABELS, hint
from webapp.review.spec_forms import form_field

# The fields' labels are named here too: the culture review target (enrichment.py) reads them.
__all__ = ["LABELS", "ConfirmImportForm", "CultureForm", "ImportForm"]

# The fields a person edits on the form; sources and seed packages come from enrichment.
FORM_FIELDS = tuple(
    spec for spec in FIELDS if spec.name not in ("seed_packages", "structured_sources")
)


class CultureFormBase(FlaskForm):
    def culture_fields(self) -> list:
        """The form's inputs for culture fields, in the fields' order."""
        return [self[spec.name] for spec in FORM_FIELDS]

    def values(self) -> dict[str, object]:
        return {spec.name: self[spec.name].data for spec in FORM_FIELDS}


CultureForm = type(
    "CultureForm",
    (CultureFormBase,),
    {
        **{spec.name: form_field(spec, hint(spec.name)) for spec in FORM_FIELDS},
        "save_anyway": BooleanField("Save anyway: I checked the values flagged as implausible"),
    },
)


class ImportForm(FlaskForm):
    file = FileField(
        "CSV or OpenFarmPlanner file",
        validators=[
            FileRequired("Choose a CSV file."),
            FileAllowed(["csv", "json"], "Only .csv files or OpenFarmPlanner's .json export."),
        ],
        description="A CSV with the columns listed below, in English, German or French (commas, "
        "semicolons or tabs; the name column is required), or OpenFarmPlanner's JSON export of "
        "cultures. A row whose name and variety match a culture updates it. Nothing is stored "
        "before you confirm the preview.",
    )


class ConfirmImportForm(FlaskForm):
    csv_text = HiddenField(validators=[InputRequired()])
    save_anyway = BooleanField("Import anyway: I checked the values flagged as implausible")
