"""Small reference libraries as data, for tests of how the library loads and reads them."""

from __future__ import annotations

FACT = {
    "min": 1,
    "max": 2,
    "cap": 3,
    "unit": "kg/m²",
    "source": "src",
    "claim": "The source states 1–2 kg/m².",
    "derived": False,
}


def crop_entry(crop_id: str, name: str, alias: str, family: str, **extra: object) -> dict:
    """A crop with one cited yield fact."""
    return {
        "id": crop_id,
        "names": {"en": name},
        "aliases": [alias],
        "family": family,
        **extra,
        "facts": {"yield_per_sqm_kg": dict(FACT)},
    }


def small_library(crops: list[dict], **changes: object) -> dict:
    """A library of these crops citing one source; changes replace top-level keys."""
    data: dict = {
        "sources": {"src": {"url": "https://example.org/a", "title": "A", "publisher": "P"}},
        "crops": crops,
    }
    data.update(changes)
    return data
