"""OpenFarmPlanner's culture export, read into Furrow's culture fields.

OpenFarmPlanner (github.com/OpenFarmPlanner) stores spacings and sowing depth in metres
(`row_spacing_m`, `distance_within_row_m`, `sowing_depth_m`; its API shows them as `_cm`), a
seed rate per way of growing (`seed_rate_by_cultivation`, or `seed_rate_direct_*` and
`seed_rate_pre_cultivation_*`), and a crop's varieties next to the crop itself (the entry of
the same name without a variety), whose values a variety leaves empty. The export is a list of
cultures, an object holding one (`cultures`, `crops`, `results`), or a data export's projects.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from webapp.cultures.fields import CULTURE_FIELDS, LABELS, SPECS, shown_value

METRES = {
    "row_spacing_m": "row_spacing_cm",
    "distance_within_row_m": "distance_within_row_cm",
    "sowing_depth_m": "sowing_depth_cm",
}
# What a variety takes from its crop when it leaves it empty: growing figures, not who it is.
INHERITED = tuple(
    f for f in CULTURE_FIELDS if f not in ("name", "variety", "notes", "structured_sources")
)
SEED_RATE_WAYS = {"direct_sowing": "direct sowing", "pre_cultivation": "pre-cultivation"}
# OpenFarmPlanner's own bookkeeping: not culture facts, not worth a warning.
INTERNAL = frozenset(
    {
        *("id", "project", "project_id", "created_at", "updated_at", "deleted_at"),
        *("plants_per_m2", "owned_public_culture_id", "origin_type", "is_modified_from_source"),
        *("source_public_culture", "source_public_culture_id", "image_file", "image_file_id"),
        *("supplier", "supplier_id", "supplier_data", "display_color", "seed_rate_unit"),
        *("seed_rate_value", "seed_rate_by_cultivation", "cultivation_type", "species"),
    }
)


class ExportUnreadable(ValueError):
    """A file that is no OpenFarmPlanner culture export; the message says why."""


@dataclass
class ExportedCulture:
    number: int  # its place in the file, from 1
    values: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    ignored: set[str] = field(default_factory=set)


def _empty(value: Any) -> bool:
    return value is None or value == "" or value == [] or value == {}


def _cultures(data: Any) -> list[Any]:
    if isinstance(data, list):
        return data
    if isinstance(data, dict):
        for key in ("cultures", "crops", "results"):
            if isinstance(data.get(key), list):
                return data[key]
        if isinstance(data.get("projects"), list):
            return [
                c
                for project in data["projects"]
                if isinstance(project, dict)
                for c in _cultures(project)
            ]
    raise ExportUnreadable(
        "This JSON is no OpenFarmPlanner culture export: give a list of cultures, "
        "or an object with “cultures”."
    )


def read_export(text: str) -> list[ExportedCulture]:
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ExportUnreadable(f"The file is not JSON: {exc}.") from None
    entries = _cultures(data)
    read = []
    for number, entry in enumerate(entries, start=1):
        if not isinstance(entry, dict):
            raise ExportUnreadable(f"Culture {number} is not an object.")
        read.append(_culture(number, entry))
    species = {_key(c.values.get("name")): c for c in read if _empty(c.values.get("variety"))}
    for culture in read:
        crop = species.get(_key(culture.values.get("species") or culture.values.get("name")))
        culture.values.pop("species", None)
        if crop is not None and crop is not culture and not _empty(culture.values.get("variety")):
            _inherit(culture, crop)
    for culture in read:
        _choose_seed_rate(culture)
    return read


def _key(name: Any) -> str:
    return " ".join(str(name or "").split()).casefold()


def _culture(number: int, entry: dict[str, Any]) -> ExportedCulture:
    culture = ExportedCulture(number, {})
    values = culture.values
    for key, raw in entry.items():
        if key in METRES and not _empty(raw):
            values[METRES[key]] = _centimetres(raw)
        elif key in CULTURE_FIELDS and key not in ("seed_rate_value", "seed_rate_unit"):
            if not _empty(raw):
                values[key] = raw
        elif key not in INTERNAL and not key.startswith("seed_rate_") and not _empty(raw):
            culture.ignored.add(key)
    if _empty(values.get("cultivation_types")) and not _empty(entry.get("cultivation_type")):
        values["cultivation_types"] = [entry["cultivation_type"]]
    if isinstance(entry.get("species"), str) and entry["species"].strip():
        values["species"] = entry["species"]
    if isinstance(values.get("seed_packages"), list):
        values["seed_packages"] = [_package(p) for p in values["seed_packages"]]
    values["_seed_rates"] = _seed_rates(entry)
    return culture


def _centimetres(raw: Any) -> Any:
    """Metres as centimetres, without float noise (0.35 m is 35 cm, not 35.00000000000001)."""
    if isinstance(raw, str):
        try:
            raw = float(raw)
        except ValueError:
            return raw  # the field's own reading says why it is no number
    if isinstance(raw, int | float) and not isinstance(raw, bool):
        return round(raw * 100, 6)
    return raw


def _package(package: Any) -> Any:
    if not isinstance(package, dict):
        return package
    return {key: package.get(key) for key in ("size_value", "size_unit", "evidence_text")}


def _seed_rates(entry: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """{way of growing, or "": (value, unit)}: every seed rate the culture gives."""
    rates: dict[str, tuple[Any, Any]] = {}
    by_way = entry.get("seed_rate_by_cultivation")
    if isinstance(by_way, dict):
        for way, rate in by_way.items():
            if isinstance(rate, dict) and not _empty(rate.get("value")):
                rates[way] = (rate.get("value"), rate.get("unit"))
    for way, prefix in (("direct_sowing", "direct"), ("pre_cultivation", "pre_cultivation")):
        value = entry.get(f"seed_rate_{prefix}_value")
        if way not in rates and not _empty(value):
            rates[way] = (value, entry.get(f"seed_rate_{prefix}_unit"))
    if not rates and not _empty(entry.get("seed_rate_value")):
        rates[""] = (entry.get("seed_rate_value"), entry.get("seed_rate_unit"))
    return rates


def _inherit(variety: ExportedCulture, crop: ExportedCulture) -> None:
    taken = [
        f for f in INHERITED if _empty(variety.values.get(f)) and not _empty(crop.values.get(f))
    ]
    for f in taken:
        variety.values[f] = crop.values[f]
    if not variety.values["_seed_rates"] and crop.values["_seed_rates"]:
        variety.values["_seed_rates"] = crop.values["_seed_rates"]
        taken.append("seed_rate_value")
    if taken:
        fields = ", ".join(LABELS[f] for f in taken)
        variety.notes.append(f"Inherited from {crop.values['name']}: {fields}.")


def _choose_seed_rate(culture: ExportedCulture) -> None:
    """Furrow keeps one seed rate: direct sowing's when the culture is direct-sown (its seed
    goes into the field), else pre-cultivation's; the other is kept in the notes."""
    values = culture.values
    rates = values.pop("_seed_rates")
    if not rates:
        return
    ways = values.get("cultivation_types") or []
    direct_sown = not isinstance(ways, list) or "direct_sowing" in ways or not ways
    order = ["direct_sowing", "pre_cultivation"] if direct_sown else ["pre_cultivation"]
    kept = next((w for w in [*order, "direct_sowing", ""] if w in rates), next(iter(rates)))
    values["seed_rate_value"], values["seed_rate_unit"] = rates[kept]
    others = [
        f"{SEED_RATE_WAYS.get(way, way or 'general')} seed rate: {_rate(*rates[way])}"
        for way in rates
        if way != kept
    ]
    if others:
        said = "; ".join(others)
        culture.notes.append(
            f"Furrow keeps the {SEED_RATE_WAYS.get(kept, 'general')} seed rate; "
            f"OpenFarmPlanner's {said} is kept in the notes."
        )
        note = f"OpenFarmPlanner's {said}."
        values["notes"] = f"{values['notes']}\n\n{note}" if values.get("notes") else note


def _rate(value: Any, unit: Any) -> str:
    spec = SPECS["seed_rate_unit"]
    chosen = spec.choice_of(unit) if isinstance(unit, str) else None
    shown_unit = spec.shown_choice(chosen) if chosen else str(unit or "")
    return f"{shown_value('seed_rate_value', value)} {shown_unit}".strip()
