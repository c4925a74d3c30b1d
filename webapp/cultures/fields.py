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
