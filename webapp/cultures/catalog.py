"""Reading and changing the catalog: listing, creating, updating, exporting cultures."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from flask import url_for
from sqlalchemy import Select, func, or_, select

from webapp.auth.models import User
from webapp.crops import CropCatalog, register_catalog
from webapp.cultures.domain import clean_culture
from webapp.cultures.fields import CHOSEN, CULTURE_FIELDS, ENRICHABLE_FIELDS, FIELDS, SPECS
from webapp.cultures.models import Culture, culture_label
from webapp.cultures.profile import crop_profile
from webapp.cultures.rules import NO_LIMITS, CropLimits, TypicalRange, check_stored
from webapp.exports import csv_text
from webapp.extensions import db
from webapp.reference.library import library
from webapp.review.audit import record_changes
from webapp.review.vocabulary import Issue

AUDIT_TARGET = "culture"
SORTS = {
    "name": Culture.name,
    "variety": Culture.variety,
    "crop": Culture.reference_crop,
    "growth": Culture.growth_duration_days,
    "yield": Culture.expected_yield,
    "updated": Culture.updated_at,
    "id": Culture.id,
}
# The sort choices the list's form offers, as words.
SORT_LABELS = {
    "name": "name",
    "variety": "variety",
    "crop": "reference crop",
    "growth": "growth",
    "yield": "expected yield",
    "updated": "last change",
    "id": "created",
}
PER_PAGE = 25


def values_of(culture: Culture) -> dict[str, Any]:
    return {field: getattr(culture, field) for field in (*CULTURE_FIELDS, CHOSEN)}


def to_dict(culture: Culture) -> dict[str, Any]:
    """The API and JSON export shape: plain JSON types, units in the field names."""
    data: dict[str, Any] = {"id": culture.id}
    for spec in FIELDS:
        data[spec.name] = spec.dump(getattr(culture, spec.name))
    data["updated_at"] = culture.updated_at.isoformat().replace("+00:00", "Z")
    return data


def resolve_reference_crop(name: str, variety: str = "") -> str | None:
    crop = library().resolve(name, variety or None)
    return crop.id if crop else None


def _settle_crop(clean: dict[str, Any], before: Mapping[str, Any], chosen: bool | None) -> None:
    """Who says the reference crop. A crop (or "none") given is a person's choice, kept as it
    is, unless it is the crop the name resolves to anyway (an exported catalog imported
    again); left empty, it is found from the name: when the culture is new, when a choice is
    given up, and whenever the name or variety changes. chosen, when given, says it outright
    (an undo puts back what was)."""
    after = {**before, **clean}

    def found() -> str | None:  # a library lookup: only where the answer is needed
        return resolve_reference_crop(after["name"], after.get("variety", ""))

    if chosen is None:
        given = clean.get("reference_crop", before.get("reference_crop"))
        picked = "reference_crop" in clean or bool(before.get(CHOSEN))
        chosen = picked and bool(given) and given != found()
    renamed = any(clean.get(f, before.get(f)) != before.get(f) for f in ("name", "variety"))
    if chosen:
        clean[CHOSEN] = True
    elif not before or before.get(CHOSEN) or renamed or clean.get("reference_crop"):
        clean |= {"reference_crop": found(), CHOSEN: False}
    else:
        clean.pop("reference_crop", None)  # left empty: the crop found before stands


def create_culture(values: dict[str, Any]) -> Culture:
    values = dict(values)
    chosen = values.pop(CHOSEN, None)
    clean = clean_culture(values)
    _settle_crop(clean, {}, chosen)
    culture = Culture(**clean)
    db.session.add(culture)
    db.session.flush()
    return culture


def update_culture(culture: Culture, values: dict[str, Any]) -> dict[str, tuple[Any, Any]]:
    """Apply the given values; return {field: (old, new)} for what really changed."""
    values = dict(values)
    chosen = values.pop(CHOSEN, None)
    before = values_of(culture)
    clean = clean_culture(values, before)
    _settle_crop(clean, before, chosen)
    changed = {}
    for field, new in clean.items():
        old = getattr(culture, field)
        if old != new:
            setattr(culture, field, new)
            changed[field] = (old, new)
    return changed


def edit_culture(
    culture: Culture, values: dict[str, Any], user: User | None, source: str = "manual"
) -> dict[str, tuple[Any, Any]]:
    """update_culture, with every real change written to the audit trail."""
    changed = update_culture(culture, values)
    record_changes(AUDIT_TARGET, culture.id, changed, user, source)
    return changed


def _missing(field: str):
    """Empty, as the field's kind is: no value, no text, an empty list."""
    column = getattr(Culture, field)
    spec = SPECS[field]
    if spec.is_list:
        return or_(column.is_(None), func.json_array_length(column) == 0)
    if spec.empty == "":
        return or_(column.is_(None), column == "")
    return column.is_(None)


@dataclass(frozen=True)
class CultureFilters:
    q: str = ""
    missing: str = ""
    sort: str = "name"
    descending: bool = False

    @classmethod
    def from_args(cls, args) -> CultureFilters:
        missing = args.get("missing", "")
        if missing not in ("any", *ENRICHABLE_FIELDS):
            missing = ""
        sort = args.get("sort", "name")
        return cls(
            q=(args.get("q") or "").strip()[:120],
            missing=missing,
            sort=sort if sort in SORTS else "name",
            descending=args.get("dir") == "desc",
        )

    def as_args(self) -> dict[str, str]:
        args = {
            "q": self.q,
            "missing": self.missing,
            "sort": self.sort,
            "dir": "desc" if self.descending else "",
        }
        return {key: value for key, value in args.items() if value and value != "name"}

    def query(self) -> Select[tuple[Culture]]:
        query = select(Culture)
        if self.q:
            pattern = f"%{self.q.lower()}%"
            query = query.where(
                or_(
                    func.lower(Culture.name).like(pattern),
                    func.lower(Culture.variety).like(pattern),
                )
            )
        if self.missing == "any":
            query = query.where(or_(*(_missing(f) for f in ENRICHABLE_FIELDS)))
        elif self.missing:
            query = query.where(_missing(self.missing))
        column = SORTS[self.sort]
        # Empty last whichever way, on SQLite as on PostgreSQL.
        return query.order_by(
            column.is_(None), column.desc() if self.descending else column, Culture.id
        )


def export_csv(cultures) -> str:
    """One row per culture; list fields as JSON (an empty list as an empty cell), harvest
    method and yield as separate columns."""
    return csv_text(["id", *CULTURE_FIELDS], (_export_row(to_dict(c)) for c in cultures))


def _export_row(row: dict[str, Any]) -> list[Any]:
    return [
        row["id"],
        *(
            (json.dumps(row[f], ensure_ascii=False) if row[f] else "")
            if SPECS[f].is_list
            else row[f]
            for f in CULTURE_FIELDS
        ),
    ]


def _typical(fact) -> TypicalRange | None:
    if fact is None or fact.min is None or fact.max is None:
        return None
    return TypicalRange(
        fact.min, fact.max, fact.unit, fact.source.title, fact.source.url, cap=fact.cap
    )


def crop_limits(reference_crop: str | None) -> CropLimits:
    """What the reference library says limits a crop's values: typical yields and their caps
    by harvest method, and the typical planting density."""
    crop = library().get(reference_crop) if reference_crop else None
    if crop is None:
        return NO_LIMITS
    yields = {
        method: typical
        for method, fact_name in (
            ("per_sqm", "yield_per_sqm_kg"),
            ("per_plant", "yield_per_plant_kg"),
        )
        if (typical := _typical(crop.fact(fact_name))) is not None
    }
    return CropLimits(crop.name("en").lower(), yields, _typical(crop.fact("plants_per_m2")))


def findings_of(values: dict[str, Any]) -> list[Issue]:
    """The plausibility findings over a culture's values, with its crop's limits."""
    return check_stored(values, crop_limits(values.get("reference_crop")))


def entry_findings(values: dict[str, Any], culture: Culture | None = None) -> list[Issue]:
    """The plausibility findings that saving these values (to a new culture, or over an
    existing one) would bring: those the old values did not have, so a stored error elsewhere
    does not hold up saving a note. CultureInvalid first, for values a culture cannot hold."""
    before = values_of(culture) if culture else None
    after = {**(before or {}), **clean_culture(values, before)}
    if not after.get("reference_crop"):
        after["reference_crop"] = resolve_reference_crop(after["name"], after.get("variety", ""))
    old = {(i.code, i.field) for i in findings_of(before)} if before else set()
    return [i for i in findings_of(after) if (i.code, i.field) not in old]


def blocking(findings: list[Issue]) -> list[Issue]:
    """The findings that need an explicit "save anyway": errors."""
    return [i for i in findings if i.severity == "error"]


@dataclass(frozen=True)
class Finding:
    culture: Culture
    issue: Issue


def check_catalog(cultures) -> list[Finding]:
    """Every plausibility finding over stored values, errors first, with its culture."""
    findings = [
        Finding(culture, issue) for culture in cultures for issue in findings_of(values_of(culture))
    ]
    return sorted(findings, key=lambda f: (f.issue.severity != "error", f.culture.name.lower()))


class CultureCatalog(CropCatalog):
    """The catalog as the other workspaces see it (webapp/crops.py)."""

    def get(self, crop_id: int) -> Culture | None:
        return db.session.get(Culture, crop_id)

    def choices(self) -> list[tuple[int, str]]:
        query = select(Culture.id, Culture.name, Culture.variety).order_by(Culture.name)
        return [(i, culture_label(name, variety)) for i, name, variety in db.session.execute(query)]

    def names(self, ids: Collection[int]) -> dict[int, str]:
        query = select(Culture.id, Culture.name).where(Culture.id.in_(list(ids)))
        return dict(db.session.execute(query).all())

    def url(self, crop_id: int) -> str:
        return url_for("cultures.show", culture_id=crop_id)

    def profile(self, crop: Culture) -> dict[str, Any]:
        return crop_profile(values_of(crop))


register_catalog(CultureCatalog())
