"""The culture form: it only collects input; webapp.cultures.domain decides what is valid."""

from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField, FileRequired
from wtforms import (
    BooleanField,
    HiddenField,
    SelectField,
    SelectMultipleField,
    StringField,
    TextAreaField,
    widgets,
)
from wtforms.fields.choices import SelectChoice
from wtforms.validators import InputRequired

from webapp.cultures.fields import DEFINITIONS, ENUM_ALIASES, NUMERIC_FIELDS

LABELS = {
    "name": "Name",
    "variety": "Variety",
    "crop_family": "Crop family",
    "reference_crop": "Reference crop",
    "cultivation_types": "Cultivation types",
    "nutrient_demand": "Nutrient demand",
    "growth_duration_days": "Growth duration",
    "harvest_duration_days": "Harvest duration",
    "propagation_duration_days": "Propagation duration",
    "harvest_method": "Harvest method (the yield's context)",
    "expected_yield": "Expected yield",
    "distance_within_row_cm": "Distance within the row",
    "row_spacing_cm": "Row spacing",
    "sowing_depth_cm": "Sowing depth",
    "seed_rate_value": "Seed rate",
    "seed_rate_unit": "Seed rate unit",
    "thousand_kernel_weight_g": "Thousand-kernel weight",
    "seed_packages": "Seed packages",
    "notes": "Notes (Markdown)",
    "structured_sources": "Sources",
    "fertilizer_plan": "Fertilizer plan",
}
CHOICE_LABELS = {
    "per_plant": "kg per plant",
    "per_sqm": "kg per m²",
    "pre_cultivation": "pre-cultivation (transplant)",
    "direct_sowing": "direct sowing",
    "g_per_m2": "g per m²",
    "g_per_lfm": "g per running metre",
    "seeds_per_m2": "seeds per m²",
    "seeds_per_lfm": "seeds per running metre",
    "seeds_per_plant": "seeds per plant",
}


def unit_of(field: str) -> str:
    if field == "expected_yield":
        return "kg per plant or per m², by harvest method"
    return NUMERIC_FIELDS.get(field, "")


def hint(field: str) -> str:
    """What a number field means and its unit, under its input."""
    unit = unit_of(field)
    meaning = DEFINITIONS.get(field, "")
    return f"{meaning} In {unit}." if meaning and unit else meaning or unit


def _choices(field: str, blank: bool = True) -> list[SelectChoice]:
    options = [SelectChoice("", "—")] if blank else []
    return options + [SelectChoice(v, CHOICE_LABELS.get(v, v)) for v in ENUM_ALIASES[field]]


def _number(field: str) -> StringField:
    return StringField(LABELS[field], description=hint(field), render_kw={"inputmode": "decimal"})


class CultureForm(FlaskForm):
    name = StringField(LABELS["name"])
    variety = StringField(LABELS["variety"])
    crop_family = StringField(LABELS["crop_family"])
    reference_crop = StringField(
        LABELS["reference_crop"],
        description="The reference-library crop this is; left empty, it is found from the name.",
    )
    cultivation_types = SelectMultipleField(
        LABELS["cultivation_types"],
        choices=_choices("cultivation_types", blank=False),
        option_widget=widgets.CheckboxInput(),
        widget=widgets.ListWidget(prefix_label=False),
        validate_choice=False,
    )
    nutrient_demand = SelectField(LABELS["nutrient_demand"], choices=_choices("nutrient_demand"))
    growth_duration_days = _number("growth_duration_days")
    harvest_duration_days = _number("harvest_duration_days")
    propagation_duration_days = _number("propagation_duration_days")
    harvest_method = SelectField(LABELS["harvest_method"], choices=_choices("harvest_method"))
    expected_yield = _number("expected_yield")
    distance_within_row_cm = _number("distance_within_row_cm")
    row_spacing_cm = _number("row_spacing_cm")
    sowing_depth_cm = _number("sowing_depth_cm")
    seed_rate_value = _number("seed_rate_value")
    seed_rate_unit = SelectField(LABELS["seed_rate_unit"], choices=_choices("seed_rate_unit"))
    thousand_kernel_weight_g = _number("thousand_kernel_weight_g")
    notes = TextAreaField(LABELS["notes"], render_kw={"rows": 6})
    save_anyway = BooleanField("Save anyway: I checked the values flagged as implausible")

    def values(self) -> dict[str, object]:
        return {
            name: field.data
            for name, field in self._fields.items()
            if name not in ("csrf_token", "save_anyway")
        }


class ImportForm(FlaskForm):
    file = FileField(
        "CSV file",
        validators=[FileRequired("Choose a CSV file."), FileAllowed(["csv"], "Only .csv files.")],
        description="The export's columns; name is required. Nothing is stored before you "
        "confirm the preview.",
    )


class ConfirmImportForm(FlaskForm):
    csv_text = HiddenField(validators=[InputRequired()])
    save_anyway = BooleanField("Import anyway: I checked the values flagged as implausible")
