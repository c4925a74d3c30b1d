"""The fertilizer form collects input; form_document turns it into the request document and
webapp.fertilizer.request decides what is valid."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, BinaryIO

from flask_wtf import FlaskForm
from flask_wtf.file import FileAllowed, FileField
from wtforms import SelectField, StringField, TextAreaField
from wtforms.fields.choices import SelectChoice

from webapp.fertilizer.duev import previous_crops
from webapp.fertilizer.request import typed_number
from webapp.fertilizer.soil import CLASS_WORDS, CLASSES, K_INDICES, P_INDICES, TEXTURE_LABELS
from webapp.numbers import NumberInvalid
from webapp.problems import Invalid, Problem
from webapp.uploads import UploadRefused, read_text

MAX_PROFILE_BYTES = 512 * 1024


def soil_choices(indices: tuple[str, ...]) -> list[SelectChoice]:
    """Not tested, the RB209 indices (UK) and the VDLUFA classes (Germany)."""
    return [
        SelectChoice("", "not tested"),
        *(SelectChoice(i, f"index {i} (RB209)") for i in indices),
        *(SelectChoice(c, f"class {c}, {CLASS_WORDS[c]} (VDLUFA)") for c in CLASSES),
    ]


TEXTURE_CHOICES = [SelectChoice("", "not given")] + [
    SelectChoice(key, label) for key, label in TEXTURE_LABELS.items()
]
SNS_CHOICES = [SelectChoice("", "not given")] + [SelectChoice(str(i)) for i in range(7)]
NUMBER_FIELDS = {
    "target_yield": "target_yield",
    "growth_period_days": "growth_period_days",
    "mean_daily_gdd": "mean_daily_gdd",
    "nmin": "nmin",
    "humus_pct": "humus_pct",
    "organic_n_last_year": "organic_n_last_year",
    "organic_n": "organic",
    "organic_p": "organic",
    "organic_k": "organic",
}


class PlanForm(FlaskForm):
    profile_file = FileField(
        "Crop profile file",
        validators=[FileAllowed(["json"], "Only .json crop profiles.")],
        description="JSON, as agrr crop or furrow crop export writes it.",
    )
    profile_json = TextAreaField("…or paste the crop profile", render_kw={"rows": 4})
    culture = SelectField("…or pick a culture", choices=[], validate_choice=False)
    target_yield = StringField("Target yield", description="kg/m²")
    region = StringField(
        "Region",
        description="picks the method: Germany → DüV + VDLUFA; England, Wales, Northern"
        " Ireland → RB209; elsewhere → a published extension recommendation",
    )
    soil_texture = SelectField("Soil texture", choices=TEXTURE_CHOICES, default="")
    soil_p = SelectField("Soil P (test result)", choices=soil_choices(P_INDICES), default="")
    soil_k = SelectField("Soil K (test result)", choices=soil_choices(K_INDICES), default="")
    nmin = StringField(
        "Soil mineral N (Nmin)",
        description="kg N/ha in 0–90 cm, measured at the start of growth (DüV)",
    )
    sns_index = SelectField(
        "SNS index", choices=SNS_CHOICES, default="", description="RB209 soil nitrogen supply, 0–6"
    )
    humus_pct = StringField("Humus", description="% of the soil (DüV: above 4 % less N)")
    previous_crop = SelectField(
        "Previous crop (DüV Tabelle 7)",
        choices=[SelectChoice("", "not given"), *(SelectChoice(c) for c in previous_crops())],
        default="",
    )
    organic_n_last_year = StringField(
        "Organic N last year", description="kg N/ha of organic fertilizer on last year's crops"
    )
    growth_period_days = StringField("Growth period", description="days")
    mean_daily_gdd = StringField(
        "Mean daily heat sum",
        description="°C·day per day at your site; with the profile's stage GDD it sets the season",
    )
    organic_n = StringField("Organic N", description="g/m², already applied")
    organic_p = StringField("Organic P", description="g/m², already applied")
    organic_k = StringField("Organic K", description="g/m², already applied")
    provider = SelectField("Provider", choices=[])


def read_upload(upload: BinaryIO) -> str:
    """An uploaded crop profile's text; an Invalid on the file field says why not."""
    try:
        return read_text(
            upload,
            MAX_PROFILE_BYTES,
            too_large="The file is larger than {limit}; no crop profile is.",
            advice="Save it as UTF-8 JSON.",
        )
    except UploadRefused as refused:
        raise Invalid(str(refused), code=refused.code, loc="profile_file") from None


def parse_profile_text(text: str, field: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise Invalid(f"This is not JSON: {exc}", code="not_json", loc=field) from exc


def _number(value: str, field: str) -> float | int | None:
    try:
        number = typed_number(value)
    except NumberInvalid as refused:
        message = f"Give a number, not {value!r}." if refused.code == "not_a_number" else refused
        raise Invalid(str(message), code=refused.code, loc=field) from None
    if number is not None and field == "growth_period_days" and number.is_integer():
        return int(number)
    return number


def form_document(values: Mapping[str, str], profile: Any) -> dict[str, Any]:
    """The request document from the form's text values and the chosen profile; an Invalid
    names every input that is not a number."""
    numbers, problems = {}, []
    for field in NUMBER_FIELDS:
        try:
            numbers[field] = _number(values.get(field, ""), field)
        except Invalid as exc:
            problems += exc.problems
    if problems:
        raise Invalid(problems)
    organic = [numbers[f"organic_{e}"] for e in "npk"]
    document: dict[str, Any] = {
        "crop_profile": profile,
        "target_yield": numbers["target_yield"],
        "growth_period_days": numbers["growth_period_days"],
        "mean_daily_gdd": numbers["mean_daily_gdd"],
        "soil_p": values.get("soil_p") or None,
        "soil_k": values.get("soil_k") or None,
        "soil_texture": values.get("soil_texture") or None,
        "nmin": numbers["nmin"],
        "humus_pct": numbers["humus_pct"],
        "organic_n_last_year": numbers["organic_n_last_year"],
        "sns_index": int(values["sns_index"]) if values.get("sns_index", "").isdigit() else None,
        "previous_crop": values.get("previous_crop") or None,
        "growth_period_basis": values.get("growth_period_basis") or None,
        "region": (values.get("region") or "").strip() or None,
    }
    if any(v is not None for v in organic):
        document["organic"] = dict(zip("NPK", (v or 0.0 for v in organic), strict=True))
    return {key: value for key, value in document.items() if value is not None}


def labelled(form: PlanForm, details: Mapping[str, str]) -> list[Problem]:
    """A request's problems as the form shows them: under the input each came from, named
    by its label ("Organic N must not be negative"), never by a request key. Problems inside
    the crop profile keep their JSON path: that is where to look in the JSON."""
    problems = []
    for key, text in details.items():
        if key == "organic":
            for part in text.split("; "):
                where, _, rest = part.partition(" ")
                field = f"organic_{where.rpartition('.')[2].lower()}"
                field = field if field in NUMBER_FIELDS else "organic_n"
                problems.append(Problem(f"{form[field].label.text} {rest}", field))
            continue
        field = form_field_of(key)
        name = key if field == "profile_json" else form[field].label.text
        problems.append(Problem(f"{name}: {text}", field))
    return problems


def form_field_of(key: str) -> str:
    """The form field that shows a request key's problem."""
    if key.startswith("crop_profile"):
        return "profile_json"
    if key == "organic":
        return "organic_n"
    return key if key in PlanForm.__dict__ or key in NUMBER_FIELDS else "profile_json"
