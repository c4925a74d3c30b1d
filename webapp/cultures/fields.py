"""The culture fields a provider may suggest: their units, allowed values and spoken aliases."""

from __future__ import annotations

import re
import unicodedata

# Unit of each numeric field, shown next to every number.
NUMERIC_FIELDS: dict[str, str] = {
    "growth_duration_days": "days",
    "harvest_duration_days": "days",
    "propagation_duration_days": "days",
    "expected_yield": "kg",
    "distance_within_row_cm": "cm",
    "row_spacing_cm": "cm",
    "sowing_depth_cm": "cm",
    "seed_rate_value": "",
    "thousand_kernel_weight_g": "g",
}

# What each field means, written once: the README's field table, the form's hints and the
# model's instructions say the same, and the reference library's facts are matched to it.
DEFINITIONS: dict[str, str] = {
    "growth_duration_days": "Days from planting out to the first harvest (from sowing, for a "
    "direct-sown crop). Not the whole season: the harvest period comes after it.",
    "harvest_duration_days": "Days from the first to the last harvest.",
    "propagation_duration_days": "Days from sowing to planting out, for a transplanted crop.",
    "harvest_method": "The yield's context: per plant or per m².",
    "expected_yield": "What one cycle harvests, per plant or per m² as the harvest method says.",
    "distance_within_row_cm": "Distance between plants within a row.",
    "row_spacing_cm": "Distance between rows.",
    "sowing_depth_cm": "How deep seed is sown.",
    "seed_rate_value": "Seed per area, per running metre or per plant, in the seed-rate unit.",
    "seed_rate_unit": "The unit of the seed rate.",
    "thousand_kernel_weight_g": "The weight of 1,000 seeds (TKG).",
    "nutrient_demand": "The crop's nitrogen demand class: low, medium or high.",
    "cultivation_types": "How the crop is established: transplanted (pre-cultivation) or "
    "direct-sown.",
    "seed_packages": "Package sizes seed sellers offer, in g or seeds.",
    "crop_family": "The botanical family.",
}

# What a field can hold at all (not what is plausible: the rules judge that).
LIMITS: dict[str, tuple[float, float]] = {
    "growth_duration_days": (0, 3650),
    "harvest_duration_days": (0, 3650),
    "propagation_duration_days": (0, 3650),
    "expected_yield": (0, 99_999_999.99),
    "distance_within_row_cm": (0, 10_000),
    "row_spacing_cm": (0, 10_000),
    "sowing_depth_cm": (0, 100),
    "seed_rate_value": (0, 10_000_000),
    "thousand_kernel_weight_g": (0, 5_000),
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

# Allowed values of each choice field, and what people and models write instead.
ENUM_ALIASES: dict[str, dict[str, tuple[str, ...]]] = {
    "harvest_method": {
        "per_plant": (
            "per plant",
            "pro pflanze",
            "je pflanze",
            "par plante",
            "株あたり",
            "kg/plant",
            "kg per plant",
            "plant",
        ),
        "per_sqm": (
            "per sqm",
            "per m2",
            "per m²",
            "per square meter",
            "per square metre",
            "pro m2",
            "pro m²",
            "pro quadratmeter",
            "je m²",
            "par m²",
            "par m2",
            "kg/m2",
            "kg/m²",
            "㎡あたり",
            "m2あたり",
            "area",
            "per area",
        ),
    },
    "nutrient_demand": {
        "low": ("niedrig", "gering", "schwach", "faible", "bas", "少", "低"),
        "medium": ("mittel", "moderate", "moyen", "moyenne", "中"),
        "high": ("hoch", "stark", "élevé", "eleve", "fort", "多", "高"),
    },
    "cultivation_types": {
        "pre_cultivation": (
            "pre cultivation",
            "precultivation",
            "transplant",
            "transplanting",
            "transplanted",
            "anzucht",
            "vorkultur",
            "pflanzung",
            "plantation",
            "repiquage",
            "育苗",
            "定植",
        ),
        "direct_sowing": (
            "direct sowing",
            "direct seeding",
            "direct seed",
            "direktsaat",
            "direktsaat ins freiland",
            "aussaat",
            "semis direct",
            "直播",
            "直まき",
        ),
    },
    "seed_rate_unit": {
        "g_per_m2": ("g/m2", "g/m²", "g per m2", "g per sqm", "grams per square meter"),
        "g_per_lfm": ("g/lfm", "g per lfm", "g/m row", "g per metre of row", "g per meter of row"),
        "seeds_per_m2": (
            "seeds/m2",
            "seeds/m²",
            "korn/m²",
            "körner/m²",
            "grains/m²",
            "seeds per m2",
        ),
        "seeds_per_lfm": ("seeds/lfm", "seeds per lfm", "seeds/m row", "seeds per meter of row"),
        "seeds_per_plant": ("seeds/plant", "seeds per plant", "korn je pflanze"),
    },
}

MULTI_VALUE_FIELDS = frozenset({"cultivation_types"})


def _key(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return re.sub(r"[\s_\-]+", " ", text)


_LOOKUP: dict[str, dict[str, str]] = {
    field: {
        _key(alias): value
        for value, aliases in choices.items()
        for alias in (value, value.replace("_", " "), *aliases)
    }
    for field, choices in ENUM_ALIASES.items()
}


def normalize_choice(field: str, raw: object) -> str | None:
    """The allowed value raw stands for, or None when it stands for none of them."""
    if not isinstance(raw, str):
        return None
    return _LOOKUP[field].get(_key(raw))
