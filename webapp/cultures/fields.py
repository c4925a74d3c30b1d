"""A culture's fields, written once: FIELDS is the one list the form, the validation in
domain.py, CSV/JSON import and export, the API, the provider's instructions, rules.read_values
and the pages' labels and units come from. Adding a field is one spec here, its model column
and a migration."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from webapp.numbers import format_number
from webapp.reference.library import library
from webapp.review.fields import Choice, FieldSpec, Kind, by_name

DAYS = {"kind": Kind.integer, "unit": "days", "minimum": 0, "maximum": 3650, "enrichable": True}
# A person's "none of the library's crops": stored as it is, so the name is not matched again.
NO_CROP = "none"
# Whether a person chose the reference crop: audited with it, so an undo gives back both.
CHOSEN = "reference_crop_chosen"
SPACING = {"kind": Kind.number, "unit": "cm", "minimum": 0, "maximum": 10_000, "enrichable": True}

FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("name", "Name", Kind.text, max_length=120, required="A culture needs a name."),
    FieldSpec("variety", "Variety", Kind.text, max_length=120),
    FieldSpec(
        "crop_family",
        "Crop family",
        Kind.text,
        max_length=80,
        enrichable=True,
        help="The botanical family.",
    ),
    FieldSpec(
        "reference_crop",
        "Reference crop",
        Kind.choice,
        help="The reference-library crop this is, its figures the ones suggested; left empty, "
        "it is found from the name. “No reference crop” says none of the library's applies.",
        choices=(
            Choice(NO_CROP, "No reference crop", ("no crop",)),
            *(
                Choice(crop.id, crop.label(), tuple(crop.names.values()))
                for crop in library().crops
            ),
        ),
    ),
    FieldSpec(
        "cultivation_types",
        "Cultivation types",
        Kind.choices,
        enrichable=True,
        help="How the crop is established: transplanted (pre-cultivation) or direct-sown.",
        choices=(
            Choice(
                "pre_cultivation",
                "pre-cultivation (transplant)",
                (
                    *("pre cultivation", "precultivation", "transplant", "transplanting"),
                    *("transplanted", "anzucht", "vorkultur", "jungpflanzen", "pflanzung"),
                    *("gepflanzt", "plantation", "repiquage", "repiqué", "préculture"),
                    *("semis en pépinière", "育苗", "定植"),
                ),
            ),
            Choice(
                "direct_sowing",
                "direct sowing",
                (
                    *("direct sowing", "direct seeding", "direct seed", "direct sown"),
                    *("direktsaat", "direktsaat ins freiland", "direkt gesät", "aussaat"),
                    *("semis direct", "semis en place", "直播", "直まき"),
                ),
            ),
        ),
    ),
    FieldSpec(
        "nutrient_demand",
        "Nutrient demand",
        Kind.choice,
        enrichable=True,
        help="The crop's nitrogen demand class: low, medium or high.",
        choices=(
            Choice(
                "low",
                aliases=(
                    *("niedrig", "gering", "schwach", "schwachzehrer"),
                    *("faible", "bas", "basse", "少", "低"),
                ),
            ),
            Choice(
                "medium",
                aliases=(
                    *("moderate", "mittel", "mittelzehrer"),
                    *("moyen", "moyenne", "modéré", "modérée", "中"),
                ),
            ),
            Choice(
                "high",
                aliases=(
                    *("hoch", "stark", "starkzehrer"),
                    *("élevé", "élevée", "eleve", "fort", "forte", "多", "高"),
                ),
            ),
        ),
    ),
    FieldSpec(
        "growth_duration_days",
        "Growth duration",
        help="Days from planting out to the first harvest (from sowing, for a direct-sown "
        "crop). Not the whole season: the harvest period comes after it.",
        **DAYS,
    ),
    FieldSpec(
        "harvest_duration_days",
        "Harvest duration",
        help="Days from the first to the last harvest.",
        **DAYS,
    ),
    FieldSpec(
        "propagation_duration_days",
        "Propagation duration",
        help="Days from sowing to planting out, for a transplanted crop.",
        **DAYS,
    ),
    FieldSpec(
        "harvest_method",
        "Harvest method (the yield's context)",
        Kind.choice,
        enrichable=True,
        help="The yield's context: per plant or per m².",
        choices=(
            Choice(
                "per_plant",
                "per plant",
                (
                    *("per plant", "plant", "kg/plant", "kg per plant"),
                    *("pro pflanze", "je pflanze", "per pflanze", "kg/pflanze"),
                    *("par plante", "par pied", "kg par plante", "株あたり"),
                ),
            ),
            Choice(
                "per_sqm",
                "per m²",
                (
                    *("per sqm", "per m2", "per m²", "per square meter", "per square metre"),
                    *("area", "per area", "kg/m2", "kg/m²"),
                    *("pro m2", "pro m²", "pro qm", "je m²", "je qm", "pro quadratmeter"),
                    *("kg/qm", "par m²", "par m2", "au m²", "par mètre carré"),
                    *("㎡あたり", "m2あたり"),
                ),
            ),
        ),
    ),
    FieldSpec(
        "expected_yield",
        "Expected yield",
        Kind.number,
        unit="kg",
        minimum=0,
        maximum=99_999_999.99,  # Numeric(10, 2)
        decimals=2,
        enrichable=True,
        help="What one cycle harvests, per plant or per m² as the harvest method says.",
    ),
    FieldSpec(
        "distance_within_row_cm",
        "Distance within the row",
        help="Distance between plants within a row.",
        **SPACING,
    ),
    FieldSpec("row_spacing_cm", "Row spacing", help="Distance between rows.", **SPACING),
    FieldSpec(
        "sowing_depth_cm",
        "Sowing depth",
        Kind.number,
        unit="cm",
        minimum=0,
        maximum=100,
        enrichable=True,
        help="How deep seed is sown.",
    ),
    FieldSpec(
        "seed_rate_value",
        "Seed rate",
        Kind.number,
        minimum=0,
        maximum=10_000_000,
        enrichable=True,
        help="Seed per area, per running metre or per plant, in the seed-rate unit.",
    ),
    FieldSpec(
        "seed_rate_unit",
        "Seed rate unit",
        Kind.choice,
        enrichable=True,
        help="The unit of the seed rate.",
        choices=(
            Choice(
                "g_per_m2",
                "g per m²",
                (
                    *("g/m2", "g/m²", "g per m2", "g per sqm", "grams per square meter"),
                    *("g/qm", "g pro m²", "g par m²"),
                ),
            ),
            Choice(
                "g_per_lfm",
                "g per running metre",
                (
                    *("g/lfm", "g per lfm", "g/m row", "g per metre of row", "g per meter of row"),
                    *("g pro lfm", "g pro laufmeter", "g par mètre linéaire"),
                ),
            ),
            Choice(
                "seeds_per_m2",
                "seeds per m²",
                (
                    *("seeds/m2", "seeds/m²", "seeds per m2", "korn/m²", "körner/m²"),
                    *("korn pro m²", "samen/m²", "grains/m²", "graines/m²", "graines par m²"),
                    "pcs per m2",
                ),
            ),
            Choice(
                "seeds_per_lfm",
                "seeds per running metre",
                (
                    *("seeds/lfm", "seeds per lfm", "seeds/m row", "seeds per meter of row"),
                    *("korn/lfm", "körner/lfm", "korn pro lfm", "graines par mètre linéaire"),
                    *("seeds/m", "seeds per m"),
                ),
            ),
            Choice(
                "seeds_per_plant",
                "seeds per plant",
                (
                    *("seeds/plant", "seeds per plant", "korn je pflanze", "körner pro pflanze"),
                    *("graines par plante", "pcs per plant"),
                ),
            ),
        ),
    ),
    FieldSpec(
        "thousand_kernel_weight_g",
        "Thousand-kernel weight",
        Kind.number,
        unit="g",
        minimum=0,
        maximum=5_000,
        enrichable=True,
        help="The weight of 1,000 seeds (TKG).",
    ),
    FieldSpec(
        "seed_packages",
        "Seed packages",
        Kind.records,
        enrichable=True,
        help="Package sizes seed sellers offer, in g or seeds.",
        item_label="package",
        items=(
            FieldSpec(
                "size_value",
                "Size",
                Kind.number,
                minimum=0,
                minimum_excluded=True,
                required="Give a size above 0 in g or seeds.",
            ),
            FieldSpec(
                "size_unit",
                "Size unit",
                Kind.choice,
                choices=(Choice("g"), Choice("seeds")),
                required="Give the size in g or seeds.",
            ),
            FieldSpec("evidence_text", "Evidence", Kind.long_text),
        ),
    ),
    FieldSpec("notes", "Notes (Markdown)", Kind.long_text),
    FieldSpec(
        "structured_sources",
        "Sources",
        Kind.records,
        item_label="source",
        items=(
            FieldSpec("title", "title", Kind.long_text),
            FieldSpec("url", "url", Kind.url),
            FieldSpec("claim_summary", "claim_summary", Kind.long_text),
            FieldSpec("retrieved_at", "retrieved_at", Kind.long_text),
        ),
    ),
)
SPECS = by_name(FIELDS)
CULTURE_FIELDS = tuple(SPECS)  # the order the API, exports and imports use
ENRICHABLE_FIELDS = tuple(spec.name for spec in FIELDS if spec.enrichable)
# The audit trail also names saves of a fertilizer plan.
LABELS = {
    **{spec.name: spec.label for spec in FIELDS},
    CHOSEN: "Reference crop chosen by a person",
    "fertilizer_plan": "Fertilizer plan",
}
CHOICE_LABELS = {choice.value: choice.shown for spec in FIELDS for choice in spec.choices}

# Views of FIELDS for the model's instructions and the rules.
NUMERIC_FIELDS = {spec.name: spec.unit for spec in FIELDS if spec.is_numeric}
DEFINITIONS = {spec.name: spec.help for spec in FIELDS if spec.enrichable}
ENUM_ALIASES = {
    spec.name: {choice.value: choice.aliases for choice in spec.choices}
    for spec in FIELDS
    if spec.kind in (Kind.choice, Kind.choices)
}

# The unit (as Pint reads it) a seed rate is in, by its seed-rate unit; and a yield's, by
# harvest method.
SEED_RATE_UNITS = {
    "g_per_m2": "g/m²",
    "g_per_lfm": "g/lfm",
    "seeds_per_m2": "seeds/m²",
    "seeds_per_lfm": "seeds/lfm",
    "seeds_per_plant": "seeds/plant",
}
YIELD_UNITS = {"per_plant": "kg/plant", "per_sqm": "kg/m²"}


def _get(culture: Any, field: str) -> Any:
    """A field's value from a culture's values or a Culture."""
    return culture.get(field) if isinstance(culture, Mapping) else getattr(culture, field, None)


def unit_of(field: str, culture: Any = None) -> str:
    """The unit a field's value is shown in; a yield's and a seed rate's depend on the
    culture's harvest method and seed-rate unit, when the culture is given."""
    spec = SPECS.get(field)
    if spec is None:
        return ""
    if culture is not None and field in ("expected_yield", "seed_rate_value"):
        context = "harvest_method" if field == "expected_yield" else "seed_rate_unit"
        chosen = _get(culture, context)
        if chosen:
            if field == "expected_yield":
                return YIELD_UNITS.get(chosen, SPECS[context].shown_choice(chosen))
            return SPECS[context].shown_choice(chosen)
        return "kg (no harvest method: context unknown)" if spec.unit else ""
    return spec.unit


def shown(field: str, culture: Any) -> str:
    """A culture's value as the pages show it: choices by their labels, numbers with their
    unit, seed packages with theirs; "—" when empty."""
    return shown_value(field, _get(culture, field), culture)


SHORT = 160  # the history shows long text and source lists cut to this


def shown_value(field: str, value: Any, culture: Any = None) -> str:
    """A value of a culture's field as people read it (the history's old and new values too):
    choices by their labels ("per m²"), numbers without trailing zeros and with their unit
    ("7 kg/m²", in the culture's context), sources counted and named."""
    spec = SPECS.get(field)
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if spec is None:
        return str(value)
    if field == "reference_crop":
        return crop_name(value)
    if spec.kind is Kind.choice:
        return spec.shown_choice(value)
    if spec.kind is Kind.choices:
        return ", ".join(spec.shown_choice(item) for item in value)
    if field == "seed_packages":
        return ", ".join(f"{_number(p['size_value'])} {p['size_unit']}" for p in value)
    if field == "structured_sources":
        titles = "; ".join(s.get("title") or s.get("url") or "" for s in value)
        return _cut(f"{len(value)} source(s): {titles}")
    if spec.is_numeric:
        return f"{_number(value)} {unit_of(field, culture)}".rstrip()
    return _cut(str(value))


def _number(value: Any) -> Any:
    """30.0 as 30 and a stored Decimal ("7.00", as the audit trail keeps it) as 7."""
    if isinstance(value, str):
        try:
            value = Decimal(value)
        except InvalidOperation:
            return value
    if isinstance(value, Decimal):
        return f"{value.normalize():f}"
    return format_number(value)


def crop_name(crop_id: str | None) -> str:
    """A reference crop by its name ("Dry bean"), not its key; a key the library does not
    know as it is."""
    if crop_id == NO_CROP:
        return "No reference crop"
    crop = library().get(crop_id) if crop_id else None
    return crop.name() if crop else crop_id or "—"


def _cut(text: str) -> str:
    return text if len(text) <= SHORT else text[: SHORT - 1] + "…"


def hint(field: str) -> str:
    """What a field means and its unit, under its input."""
    spec = SPECS[field]
    return f"{spec.help} In {spec.unit}." if spec.help and spec.unit else spec.help or spec.unit
