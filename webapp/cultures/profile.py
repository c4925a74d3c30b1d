"""A culture as a crop profile in the `agrr crop` format, for `furrow fertilize recommend`.

Only what the culture knows: no stage requirements (a culture holds no temperatures), no
revenue; `area_per_unit` (m² per plant) from its spacing when both distances are known.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from webapp.cultures.fields import NO_CROP


def _slug(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold().strip()
    return re.sub(r"[\s\-]+", "_", folded) or "crop"


def crop_profile(culture: Mapping[str, Any]) -> dict[str, Any]:
    """culture: the culture's values (catalog.values_of)."""
    within, between = culture.get("distance_within_row_cm"), culture.get("row_spacing_cm")
    area = round(within / 100 * between / 100, 6) if within and between else None
    family = culture.get("crop_family")
    return {
        "crop": {
            "crop_id": crop
            if (crop := culture.get("reference_crop")) not in (None, "", NO_CROP)
            else _slug(culture["name"]),
            "name": culture["name"],
            "variety": culture.get("variety") or None,
            "area_per_unit": area,
            "revenue_per_area": None,
            "max_revenue": None,
            "groups": [family] if family else [],
        },
        "stage_requirements": [],
    }
