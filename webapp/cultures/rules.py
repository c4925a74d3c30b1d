"""Plausibility rules for what a provider suggests for a culture (plain functions, no Flask).

They run in a fixed order over a Proposal and the culture's current values, never change a
number silently, and explain themselves as Issues: an error makes its field's suggestion
invalid; a warning or info is shown next to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from webapp.cultures.fields import (
    ENRICHABLE_FIELDS,
    NUMERIC_FIELDS,
    SEED_RATE_UNITS,
    SPECS,
    YIELD_UNITS,
)
from webapp.review.fields import FieldProblem, Kind, number_of
from webapp.review.vocabulary import (
    Evidence,
    Issue,
    Proposal,
    Severity,
    SuggestedValue,
    shown_value,
)
from webapp.units import UnitMismatch, convert, find_quantity, quantities

ERROR, WARNING, INFO = Severity.error, Severity.warning, Severity.info

# Limits of the origin system (reference/agronomy-sources.md, "Plausibility thresholds").
YIELD_LIMITS = {
    "per_plant": {"cap": 25.0, "unusual": 8.0, "unit": "kg/plant"},
    "per_sqm": {"cap": 120.0, "unusual": 40.0, "unit": "kg/m²"},
}
# Plants/m² for a crop the library does not know: wide spacings are normal (a pumpkin at 0.2,
# a watermelon at 0.4, a winter squash at 0.9 plants/m² in standard garden charts), so only
# below 0.1 (more than 10 m² a plant) is impossible; outside 3–120 is unusual.
SPACING_DENSITY = {"error": (0.1, 400.0), "warning": (3.0, 120.0)}
# A crop the library knows is held to its own cited band: a warning outside it, an error
# outside it halved and doubled, or outside 1–400 where that is wider (a squash at 0.44
# plants/m², below half its typical 1.35, is impossible).
CROP_SPACING_ERROR = (1.0, 400.0)
SEED_RATE_DENSITY = {"error": (1.0, 3000.0), "warning": (10.0, 1200.0)}
DENSITY_CONFLICT_RATIO = 2.5
TKG_CONFIRM_ABOVE_G = 650.0
SEED_PACKAGE_G = (0.1, 1000.0)


@dataclass(frozen=True)
class TypicalRange:
    """A crop's typical figure from the reference library (yield, plants/m²), with its hard
    cap where the library has one and the source it comes from."""

    min: float
    max: float
    unit: str
    source_title: str
    source_url: str
    cap: float | None = None

    @property
    def is_range(self) -> bool:
        return self.min < self.max


@dataclass(frozen=True)
class CropLimits:
    """What the reference library knows of one crop that limits a culture's values: typical
    yields and caps by harvest method, and the typical planting density."""

    crop: str
    yields: Mapping[str, TypicalRange] = field(default_factory=dict)
    density: TypicalRange | None = None


NO_LIMITS = CropLimits("")
Culture = Mapping[str, Any]


def honest(value: float, bounds: Iterable[float] = (), places: int | None = None) -> str:
    """value as a message prints it, never on a bound it is not on nor past one it is short of:
    0.99 against 1–400 is "0.99", never "1.0". places: the decimals shown at least (else up to
    six significant digits, as :g); more are shown where fewer would round onto a bound."""

    def fits(text: str) -> bool:
        shown = float(text)
        return all((shown > b) == (value > b) and (shown < b) == (value < b) for b in bounds)

    general = [f"{value:.{digits}g}" for digits in range(6, 18)]
    fixed = [f"{value:.{p}f}" for p in range(places, places + 12)] if places is not None else []
    return next((text for text in [*fixed, *general] if fits(text)), repr(value))


def as_number(raw: object) -> float | None:
    """A number from a provider value: 4, "4.5", "4,5 kg"; None when there is none."""
    if isinstance(raw, str):
        quantity = find_quantity(raw)
        return quantity.value if quantity and math.isfinite(quantity.value) else None
    return number_of(raw)


_PER_THOUSAND_SEEDS = re.compile(
    r"\s*(?:/|per)\s*(?:1[ ,.]?000|thousand)\s*(?:seeds?|kernels?|grains?)?\s*$", re.IGNORECASE
)


def read_values(proposal: Proposal, culture: Culture) -> None:
    """Every suggested value against its field's spec, before any other rule looks at it:
    choices through their aliases, numbers (ranges to their mean) in the field's unit. A value
    that does not fit (a word for a number, NaN, a list, an unknown choice, a unit the field
    does not take) is set aside as malformed with an error; it never reaches the database as
    data."""
    for field_name in [f for f in proposal.suggested if f not in ENRICHABLE_FIELDS]:
        proposal.drop(field_name)
        proposal.add(
            "field_unknown",
            WARNING,
            None,
            f"“{shown_value(field_name)}” is not a culture field; its value was ignored.",
        )
    specs = [SPECS[f] for f in proposal.suggested]
    for spec in specs:
        if not spec.is_numeric:
            proposal.suggested[spec.name].unit = None  # a choice, a text or a list has no unit
    # Choices first: a yield's and a seed rate's unit depend on their context's choice.
    for spec in [s for s in specs if s.choices]:
        _read_choice(proposal, spec.name)
    for spec in [s for s in specs if s.is_numeric]:
        _read_number(proposal, culture, spec.name)
    for spec in [s for s in specs if s.kind is Kind.text]:
        value = proposal.value(spec.name)
        if not (isinstance(value, str) and 0 < len(value.strip()) <= spec.max_length):
            proposal.refuse(
                spec.name,
                "value_malformed",
                f"Give text of at most {spec.max_length} characters, not “{shown_value(value)}”.",
            )
    for spec in [s for s in specs if s.kind is Kind.records]:
        if not isinstance(proposal.value(spec.name), list):
            proposal.refuse(spec.name, "value_malformed", f"Give a list of {spec.label.lower()}.")


def _read_choice(proposal: Proposal, field_name: str) -> None:
    """Map aliases ("pro m²", "direktsaat", "hoch") to allowed values."""
    spec = SPECS[field_name]
    suggestion = proposal.suggested[field_name]
    multi = spec.kind is Kind.choices
    raws = suggestion.value if multi and isinstance(suggestion.value, list) else [suggestion.value]
    normalized = [spec.choice_of(raw) for raw in raws]
    known = list(dict.fromkeys(value for value in normalized if value))
    unknown = [raw for raw, value in zip(raws, normalized, strict=True) if value is None]
    allowed = ", ".join(spec.values)
    if not known or (unknown and not multi):
        proposal.refuse(
            field_name,
            "value_malformed",
            f"“{shown_value(suggestion.value)}” is not one of {allowed} (or a word for one).",
        )
        return
    for raw in unknown:
        proposal.add(
            "enum_value_unknown",
            WARNING,
            field_name,
            f"“{shown_value(raw)}” is not one of {allowed}; left out.",
            value=shown_value(raw),
        )
    suggestion.value = known if multi else known[0]


def field_unit(field_name: str, proposal: Proposal, culture: Culture) -> str | None:
    """The unit a numeric field's value is in: its own, or for a yield and a seed rate the one
    its context field gives (None when that is unknown)."""
    if field_name == "expected_yield":
        return YIELD_UNITS.get(_current_or_suggested(proposal, culture, "harvest_method"))
    if field_name == "seed_rate_value":
        return SEED_RATE_UNITS.get(_current_or_suggested(proposal, culture, "seed_rate_unit"))
    return NUMERIC_FIELDS[field_name]


def _in_field_unit(value: float, written: str, field_name: str, target: str | None) -> float:
    """value, written in a unit, in the field's unit; UnitMismatch when it does not convert."""
    if field_name == "thousand_kernel_weight_g":
        # A thousand-kernel weight is grams per 1,000 seeds: "g", "g/1000 seeds", "mg/seed".
        per_thousand = _PER_THOUSAND_SEEDS.sub("", written)
        if per_thousand != written or not re.search(r"/|\bper\b", written):
            return convert(value, per_thousand, "g")
        return convert(value, written, "g/seed") * 1000
    if target is None:
        # The context is unknown (its own rule says so): the unit must fit one of them.
        options = YIELD_UNITS if field_name == "expected_yield" else SEED_RATE_UNITS
        for candidate in options.values():
            try:
                return convert(value, written, candidate)
            except UnitMismatch:
                continue
        raise UnitMismatch(f"{written} is none of {', '.join(options.values())}.")
    return convert(value, written, target)


def _read_number(proposal: Proposal, culture: Culture, field_name: str) -> None:
    suggestion = proposal.suggested[field_name]
    target = field_unit(field_name, proposal, culture)
    try:
        reading = SPECS[field_name].read_measure(
            suggestion.value,
            suggestion.unit,
            target=target,
            convert=lambda value, written: _in_field_unit(value, written, field_name, target),
        )
    except FieldProblem as problem:
        proposal.refuse(field_name, problem.code, problem.message, **problem.details)
        return
    proposal.issues.extend(reading.notes)
    suggestion.value, suggestion.unit = reading.value, reading.unit


def _current_or_suggested(proposal: Proposal, culture: Culture, field_name: str) -> Any:
    suggested = proposal.value(field_name)
    return suggested if suggested is not None else culture.get(field_name)


def plants_per_m2(distance_within_row_cm: object, row_spacing_cm: object) -> float | None:
    in_row, rows = as_number(distance_within_row_cm), as_number(row_spacing_cm)
    if not in_row or not rows or in_row <= 0 or rows <= 0:
        return None
    return 10000.0 / (in_row * rows)


def _yield_cap(context: str, limits: CropLimits) -> tuple[float, str]:
    """The cap a yield in this context is held to, and whose it is: the crop's, where the
    library has one, else the general one."""
    crop_range = limits.yields.get(context)
    if crop_range and crop_range.cap is not None:
        return crop_range.cap, f"the library's cap for {limits.crop}"
    return YIELD_LIMITS[context]["cap"], "what any crop gives"


def check_yield(proposal: Proposal, culture: Culture, limits: CropLimits = NO_LIMITS) -> None:
    """Context, hard limits (the crop's cap where known), unusual values, the crop's typical
    range, and the cross-check."""
    yield_value = as_number(proposal.value("expected_yield"))
    if yield_value is None:
        return
    context = proposal.value("harvest_method") or culture.get("harvest_method")
    if context not in YIELD_LIMITS:
        proposal.add(
            "yield_context_missing",
            ERROR,
            "expected_yield",
            "A yield needs its context: set the harvest method (per plant or per m²) "
            "first; no default is assumed.",
        )
        return
    unit = YIELD_LIMITS[context]["unit"]
    cap, whose = _yield_cap(context, limits)
    if yield_value <= 0 or yield_value > cap:
        code = (
            "yield_above_crop_cap"
            if yield_value > 0 and cap < YIELD_LIMITS[context]["cap"]
            else f"yield_{context}_impossible"
        )
        proposal.add(
            code,
            ERROR,
            "expected_yield",
            f"{honest(yield_value, (0, cap))} {unit} is outside {whose} "
            f"(more than 0 and at most {cap:g} {unit}).",
            value=yield_value,
            cap=cap,
            unit=unit,
        )
        return
    crop_range = limits.yields.get(context)
    if crop_range and crop_range.is_range:
        if not crop_range.min <= yield_value <= crop_range.max:
            proposal.add(
                "yield_outside_typical_range",
                WARNING,
                "expected_yield",
                f"{honest(yield_value, (crop_range.min, crop_range.max))} {unit} is outside "
                f"{limits.crop}'s typical "
                f"{crop_range.min:g}–{crop_range.max:g} {crop_range.unit} "
                f"({crop_range.source_title}).",
                value=yield_value,
                typical_min=crop_range.min,
                typical_max=crop_range.max,
                source_url=crop_range.source_url,
            )
    elif yield_value > YIELD_LIMITS[context]["unusual"]:
        threshold = YIELD_LIMITS[context]["unusual"]
        proposal.add(
            f"yield_{context}_unusual",
            WARNING,
            "expected_yield",
            f"{honest(yield_value, (threshold,))} {unit} is possible but unusually high "
            f"(above {threshold:g} {unit}); check the source.",
            value=yield_value,
            threshold=threshold,
            unit=unit,
        )
    _cross_check_yield(proposal, culture, yield_value, context, limits)


def _cross_check_yield(
    proposal: Proposal, culture: Culture, value: float, context: str, limits: CropLimits
) -> None:
    density = plants_per_m2(
        _current_or_suggested(proposal, culture, "distance_within_row_cm"),
        _current_or_suggested(proposal, culture, "row_spacing_cm"),
    )
    if density is None:
        proposal.add(
            "yield_crosscheck_skipped_missing_spacing",
            WARNING,
            "expected_yield",
            "Without both spacings the yield cannot be checked in the other context; "
            "nothing was converted.",
        )
        return
    other = "per_sqm" if context == "per_plant" else "per_plant"
    implied = value * density if context == "per_plant" else value / density
    unit = YIELD_LIMITS[other]["unit"]
    cap, whose = _yield_cap(other, limits)
    details = {
        "plants_per_m2": round(density, 2),
        "implied": round(implied, 3),
        "implied_unit": unit,
    }
    if implied <= 0 or implied > cap:
        proposal.add(
            "yield_crosscheck_impossible",
            ERROR,
            "expected_yield",
            f"At {density:.1f} plants/m² this means {honest(implied, (0, cap), 2)} {unit}, "
            f"which is impossible (cap {cap:g}: {whose}).",
            **details,
        )
    elif implied > (threshold := YIELD_LIMITS[other]["unusual"]):
        proposal.add(
            "yield_crosscheck_unusual",
            WARNING,
            "expected_yield",
            f"At {density:.1f} plants/m² this means {honest(implied, (threshold,), 2)} {unit}, "
            f"unusually high (above {threshold:g}).",
            **details,
        )


def _classify(value: float, limits: Mapping[str, tuple[float, float]]) -> Severity | None:
    if not limits["error"][0] <= value <= limits["error"][1]:
        return ERROR
    if not limits["warning"][0] <= value <= limits["warning"][1]:
        return WARNING
    return None


def _check_band(
    proposal: Proposal,
    field_name: str,
    code: str,
    value: float,
    bands: Mapping[str, tuple[float, float]],
    what: str,
    whose: tuple[str, str] | None,
    places: int = 0,
    **details: Any,
) -> None:
    """An error outside the outer band, a warning outside the inner one (whose: the crop's
    words and source for the inner band, when it is the crop's own). what: the sentence's
    start with "{value}" where the value goes, shown to `places` decimals or as many more as
    keep it off the band's bounds."""
    severity = _classify(value, bands)
    if severity:
        low, high = bands[severity.value]
        kind = "impossible" if severity == ERROR else "unusual"
        typical, source = whose if severity == WARNING and whose else ("", "")
        shown = what.format(value=honest(value, (low, high), places))
        message = f"{shown}, outside {typical}{low:g}–{high:g}{source}."
        proposal.add(f"{code}_{kind}", severity, field_name, message, **details)


def _suggested_among(proposal: Proposal, fields: Iterable[str]) -> str | None:
    """The first of fields that this proposal suggests: the one an issue belongs to."""
    return next((f for f in fields if f in proposal.suggested), None)


def spacing_bands(
    limits: CropLimits,
) -> tuple[dict[str, tuple[float, float]], tuple[str, str] | None]:
    """Plants/m² bands for a crop: warnings outside its typical density, errors outside its
    band halved and doubled, never narrower than 1–400 (a squash at 0.7 plants/m² is normal).
    Crops the library does not know are held to the general bands, whose error band leaves
    the wide spacings of pumpkins and melons possible."""
    band = limits.density
    if band is None or not band.is_range:
        return dict(SPACING_DENSITY), None
    low, high = CROP_SPACING_ERROR
    bands = {
        "error": (min(low, band.min / 2), max(high, band.max * 2)),
        "warning": (band.min, band.max),
    }
    return bands, (f"{limits.crop}'s typical ", f" ({band.source_title})")


def check_density(proposal: Proposal, culture: Culture, limits: CropLimits = NO_LIMITS) -> None:
    """Plants/m² from spacing and seeds/m² from the seed rate: each plausible, and in agreement."""
    spacing_fields = ("distance_within_row_cm", "row_spacing_cm")
    seed_fields = ("seed_rate_value", "seed_rate_unit", "thousand_kernel_weight_g")
    spacing = plants_per_m2(*(_current_or_suggested(proposal, culture, f) for f in spacing_fields))
    seeds = _seeds_per_m2(proposal, culture)
    spacing_field = _suggested_among(proposal, spacing_fields)
    seed_field = _suggested_among(proposal, seed_fields)
    if spacing is not None and spacing_field:
        bands, whose = spacing_bands(limits)
        _check_band(
            proposal,
            spacing_field,
            "spacing_density",
            spacing,
            bands,
            "The spacing gives {value} plants/m²",
            whose,
            places=1,
            plants_per_m2=round(spacing, 2),
        )
    if seeds is not None and seed_field:
        _check_band(
            proposal,
            seed_field,
            "seed_rate_density",
            seeds,
            SEED_RATE_DENSITY,
            "The seed rate gives {value} seeds/m²",
            None,
            seeds_per_m2=round(seeds, 1),
        )
    if spacing and seeds and (spacing_field or seed_field):
        ratio = seeds / spacing
        conflict = (DENSITY_CONFLICT_RATIO, 1 / DENSITY_CONFLICT_RATIO)
        if ratio > conflict[0] or ratio < conflict[1]:
            proposal.add(
                "spacing_seedrate_conflict",
                WARNING,
                seed_field or spacing_field,
                f"Spacing gives {spacing:.1f} plants/m² but the seed rate "
                f"{seeds:.0f} seeds/m² (×{honest(ratio, conflict, 1)}).",
                ratio=round(ratio, 2),
                plants_per_m2=round(spacing, 2),
                seeds_per_m2=round(seeds, 1),
            )


def _seeds_per_m2(proposal: Proposal, culture: Culture) -> float | None:
    unit = _current_or_suggested(proposal, culture, "seed_rate_unit")
    rate = as_number(_current_or_suggested(proposal, culture, "seed_rate_value"))
    if rate is None:
        return None
    if unit == "seeds_per_m2":
        return rate
    if unit == "g_per_m2":
        tkg = as_number(_current_or_suggested(proposal, culture, "thousand_kernel_weight_g"))
        return rate / tkg * 1000 if tkg else None
    return None


def check_thousand_kernel_weight(proposal: Proposal) -> None:
    tkg = as_number(proposal.value("thousand_kernel_weight_g"))
    if tkg is not None and tkg > TKG_CONFIRM_ABOVE_G:
        proposal.add(
            "tkg_high_needs_confirmation",
            WARNING,
            "thousand_kernel_weight_g",
            f"A thousand-kernel weight of {honest(tkg, (TKG_CONFIRM_ABOVE_G,))} g is rare (above "
            f"{TKG_CONFIRM_ABOVE_G:g} g, e.g. faba bean); confirm it.",
            value=tkg,
        )


def check_seed_packages(proposal: Proposal) -> None:
    """Package sizes outside 0.1–1000 g are rejected; odd fractions of a gram are flagged."""
    suggestion = proposal.suggested.get("seed_packages")
    if suggestion is None:
        return
    kept = []
    for package in suggestion.value if isinstance(suggestion.value, list) else []:
        size = as_number(package.get("size_value")) if isinstance(package, Mapping) else None
        unit = package.get("size_unit") if isinstance(package, Mapping) else None
        if size is None or size <= 0 or unit not in ("g", "seeds"):
            proposal.add(
                "seed_package_invalid",
                WARNING,
                "seed_packages",
                f"Package {package!r} has no positive size in g or seeds; dropped.",
            )
            continue
        if unit == "g" and not SEED_PACKAGE_G[0] <= size <= SEED_PACKAGE_G[1]:
            proposal.add(
                "seed_package_size_rejected",
                WARNING,
                "seed_packages",
                f"A {honest(size, SEED_PACKAGE_G)} g package is outside {SEED_PACKAGE_G[0]:g}–"
                f"{SEED_PACKAGE_G[1]:g} g; dropped.",
                size_value=size,
            )
            continue
        # Small packets (0.3 g of tomato seed) are common; odd fractions above a gram are not.
        if unit == "g" and size >= 1 and size % 0.5:
            proposal.add(
                "seed_package_fractional_suspicious",
                WARNING,
                "seed_packages",
                f"A {size:g} g package is an odd size; check it.",
                size_value=size,
            )
        # Only the package's own keys, as text and numbers: nothing else the model sent.
        evidence = package.get("evidence_text")
        kept.append(
            {
                "size_value": size,
                "size_unit": unit,
                "evidence_text": shown_value(evidence) if evidence is not None else "",
            }
        )
    if kept:
        suggestion.value = kept
    else:
        proposal.drop("seed_packages")


def check_yield_evidence(proposal: Proposal, culture: Culture) -> None:
    """A yield needs a citable source; without one it may not overwrite an existing yield."""
    if "expected_yield" not in proposal.suggested:
        return
    evidence = proposal.evidence.get("expected_yield", [])
    # A derived figure is not what its source states: it is no proof for a yield.
    if any(e.is_citable and not e.derived for e in evidence):
        return
    why = (
        "cites only a derived figure (its source does not state it)"
        if evidence
        else "cites no source"
    )
    if culture.get("expected_yield") is not None:
        proposal.drop("expected_yield")
        proposal.add(
            "yield_evidence_missing_override_blocked",
            ERROR,
            "expected_yield",
            f"The suggested yield {why}, so it may not replace the yield already recorded.",
        )
    else:
        proposal.add(
            "yield_needs_manual_confirmation",
            WARNING,
            "expected_yield",
            f"The suggested yield {why}; confirm it yourself before applying.",
        )


def check_derived_evidence(proposal: Proposal) -> None:
    """A value whose every source is derived says so: its source does not state it."""
    for field_name in proposal.suggested:
        evidence = proposal.evidence.get(field_name, [])
        if evidence and all(e.derived for e in evidence):
            titles = ", ".join(dict.fromkeys(e.title or e.source_url for e in evidence))
            proposal.add(
                "evidence_derived",
                WARNING,
                field_name,
                f"The cited source does not state this figure; it is derived from {titles}. "
                "Confirm it yourself before applying.",
            )


# A re-researched number this far from the current one is flagged: it may measure another thing.
REPLACEMENT_CHANGE = 0.25


def check_replacements(proposal: Proposal, culture: Culture) -> None:
    """Warn when a suggestion would replace a recorded number with a very different one."""
    for field_name in NUMERIC_FIELDS:
        new, old = as_number(proposal.value(field_name)), as_number(culture.get(field_name))
        if new is None or not old or abs(new - old) / abs(old) <= REPLACEMENT_CHANGE:
            continue
        unit = NUMERIC_FIELDS[field_name] or ""
        proposal.add(
            "replaces_current_value",
            WARNING,
            field_name,
            f"This would replace {old:g} {unit} with {new:g} {unit} ({(new - old) / old:+.0%});"
            " check that the source means what this field means.",
            current=old,
            suggested=new,
        )


def _numbers_in(text: str) -> set[float]:
    """Every number a passage states, both ends of a range included."""
    return {
        number
        for quantity in quantities(text)
        for number in (quantity.value, quantity.high)
        if number is not None and math.isfinite(number)
    }


def check_value_in_evidence(proposal: Proposal) -> None:
    """Warn when a suggested number cites no source, or appears in none of the snippets cited
    for it (a yield's missing source has a rule of its own)."""
    for field_name in NUMERIC_FIELDS:
        value = as_number(proposal.value(field_name))
        evidence = proposal.evidence.get(field_name, [])
        if value is None:
            continue
        if not evidence:
            if field_name != "expected_yield":
                proposal.add(
                    "value_without_source",
                    WARNING,
                    field_name,
                    f"{value:g} cites no source: confirm it yourself before applying.",
                    value=value,
                )
            continue
        collapsed = any(
            i.code in ("range_collapsed_to_mean", "unit_converted")
            for i in proposal.issues_for(field_name)
        )
        cited = set().union(*(_numbers_in(e.claim_summary) for e in evidence))
        if collapsed or any(math.isclose(value, n, rel_tol=1e-6) for n in cited):
            continue
        proposal.add(
            "value_not_in_evidence",
            WARNING,
            field_name,
            f"{value:g} appears in none of the cited passages.",
            value=value,
        )


def unique_sources(evidence: Mapping[str, Iterable[Evidence]]) -> list[Evidence]:
    """Each source once: keyed by (url, claim summary), or (url, title) without a summary.
    Evidence without an address (one a provider gave that was no web page) is no source."""
    seen: dict[tuple[str, str], Evidence] = {}
    for field_name in sorted(evidence):
        for item in evidence[field_name]:
            if not item.source_url:
                continue
            key = (item.source_url.strip(), item.claim_summary.strip() or item.title.strip())
            seen.setdefault(key, item)
    return list(seen.values())


def keep_requested_fields(
    proposal: Proposal, culture: Culture, mode: str, fields: Iterable[str] = ()
) -> None:
    """`complete` keeps suggestions for empty fields only; `reresearch` for the chosen fields."""
    chosen = set(fields)
    for field_name in list(proposal.suggested):
        current = culture.get(field_name)
        empty = current is None or current == "" or current == []
        if (mode == "complete" and not empty) or (
            mode == "reresearch" and field_name not in chosen
        ):
            proposal.drop(field_name)


def postprocess(
    proposal: Proposal,
    culture: Culture,
    *,
    mode: str = "complete",
    fields: Iterable[str] = (),
    limits: CropLimits = NO_LIMITS,
) -> Proposal:
    """All rules in their order; returns the same proposal, checked."""
    keep_requested_fields(proposal, culture, mode, fields)
    read_values(proposal, culture)
    check_seed_packages(proposal)
    check_yield_evidence(proposal, culture)
    check_yield(proposal, culture, limits)
    check_density(proposal, culture, limits)
    check_thousand_kernel_weight(proposal)
    check_value_in_evidence(proposal)
    check_derived_evidence(proposal)
    check_replacements(proposal, culture)
    return proposal


STORED_CHECKED_FIELDS = (
    "expected_yield",
    "distance_within_row_cm",
    "row_spacing_cm",
    "seed_rate_value",
    "seed_rate_unit",
    "thousand_kernel_weight_g",
)


def check_stored(culture: Culture, limits: CropLimits = NO_LIMITS) -> list[Issue]:
    """The plausibility rules over a culture's values: what "Check catalog" lists, and what a
    form, an import or the API shows when values are entered."""
    stored = Proposal(
        suggested={
            field: SuggestedValue(culture[field])
            for field in STORED_CHECKED_FIELDS
            if culture.get(field) is not None
        }
    )
    context = {"harvest_method": culture.get("harvest_method")}
    check_yield(stored, context, limits)
    check_density(stored, context, limits)
    check_thousand_kernel_weight(stored)
    return [i for i in stored.issues if i.severity != INFO]
