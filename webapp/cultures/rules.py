"""Plausibility rules for what a provider suggests for a culture (plain functions, no Flask).

They run in a fixed order over a Proposal and the culture's current values, never change a
number silently, and explain themselves as Issues: an error makes its field's suggestion
invalid; a warning or info is shown next to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from webapp.cultures.fields import (
    ENUM_ALIASES,
    MULTI_VALUE_FIELDS,
    NUMERIC_FIELDS,
    normalize_choice,
)
from webapp.enrichment.vocabulary import Evidence, Issue, Proposal, Severity, SuggestedValue

ERROR, WARNING, INFO = Severity.error, Severity.warning, Severity.info

# Limits of the origin system (reference/agronomy-sources.md, "Plausibility thresholds").
YIELD_LIMITS = {
    "per_plant": {"cap": 25.0, "unusual": 8.0, "unit": "kg/plant"},
    "per_sqm": {"cap": 120.0, "unusual": 40.0, "unit": "kg/m²"},
}
SPACING_DENSITY = {"error": (1.0, 400.0), "warning": (3.0, 120.0)}
SEED_RATE_DENSITY = {"error": (1.0, 3000.0), "warning": (10.0, 1200.0)}
DENSITY_CONFLICT_RATIO = 2.5
TKG_CONFIRM_ABOVE_G = 650.0
SEED_PACKAGE_G = (0.1, 1000.0)


@dataclass(frozen=True)
class TypicalRange:
    """A crop's typical yield from the reference library, with the source it comes from."""

    min: float
    max: float
    unit: str
    source_title: str
    source_url: str


Culture = Mapping[str, Any]

_NUMBER = re.compile(r"[-+]?\d+(?:[.,]\d+)?")
_RANGE = re.compile(r"^\s*([-+]?\d+(?:[.,]\d+)?)\s*(?:-|–|—|to|bis|à|~|〜)\s*(\d+(?:[.,]\d+)?)")


def as_number(raw: object) -> float | None:
    """A number from a provider value: 4, "4.5", "4,5 kg"; None when there is none."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float | Decimal):
        return float(raw) if math.isfinite(raw) else None
    if isinstance(raw, str):
        match = _NUMBER.search(raw.replace("\u2009", "").replace(" ", ""))
        if match:
            return float(match.group().replace(",", "."))
    return None


def _range_of(raw: object) -> tuple[float, float] | None:
    if isinstance(raw, Mapping) and "min" in raw and "max" in raw:
        low, high = as_number(raw["min"]), as_number(raw["max"])
    elif isinstance(raw, list | tuple) and len(raw) == 2:
        low, high = as_number(raw[0]), as_number(raw[1])
    elif isinstance(raw, str) and (match := _RANGE.match(raw)):
        low, high = as_number(match.group(1)), as_number(match.group(2))
    else:
        return None
    if low is None or high is None:
        return None
    return (low, high) if low <= high else (high, low)


def normalize_enums(proposal: Proposal) -> None:
    """Map aliases ("pro m²", "direktsaat", "hoch") to allowed values; drop what maps to none."""
    for field_name in ENUM_ALIASES:
        suggestion = proposal.suggested.get(field_name)
        if suggestion is None:
            continue
        raws = suggestion.value if isinstance(suggestion.value, list) else [suggestion.value]
        normalized = [normalize_choice(field_name, raw) for raw in raws]
        unknown = [raw for raw, value in zip(raws, normalized, strict=True) if value is None]
        known = list(dict.fromkeys(value for value in normalized if value))
        for raw in unknown:
            proposal.add(
                "enum_value_unknown",
                WARNING,
                field_name,
                f"“{raw}” is not one of {', '.join(ENUM_ALIASES[field_name])}; dropped.",
                value=raw,
            )
        if field_name in MULTI_VALUE_FIELDS and known:
            suggestion.value = known
        elif field_name not in MULTI_VALUE_FIELDS and len(known) == 1 and not unknown:
            suggestion.value = known[0]
        else:
            proposal.drop(field_name)


def collapse_ranges(proposal: Proposal) -> None:
    """A range for a numeric field becomes its mean, and says so (range_collapsed_to_mean)."""
    for field_name in NUMERIC_FIELDS:
        suggestion = proposal.suggested.get(field_name)
        if suggestion is None:
            continue
        bounds = _range_of(suggestion.value)
        if bounds is not None and bounds[0] != bounds[1]:
            mean = (bounds[0] + bounds[1]) / 2
            # Durations are whole days; everything else keeps two decimals.
            mean = round(mean) if NUMERIC_FIELDS[field_name] == "days" else round(mean, 2)
            suggestion.value = mean
            proposal.add(
                "range_collapsed_to_mean",
                INFO,
                field_name,
                f"The source gives {bounds[0]:g}–{bounds[1]:g}; the mean {mean:g} is suggested.",
                min=bounds[0],
                max=bounds[1],
                mean=mean,
            )
            continue
        number = as_number(bounds[0] if bounds else suggestion.value)
        if number is None:
            proposal.drop(field_name)
            proposal.add(
                "value_not_a_number",
                WARNING,
                field_name,
                f"“{suggestion.value}” is not a number; dropped.",
                value=str(suggestion.value),
            )
        else:
            suggestion.value = number


def _current_or_suggested(proposal: Proposal, culture: Culture, field_name: str) -> Any:
    suggested = proposal.value(field_name)
    return suggested if suggested is not None else culture.get(field_name)


def plants_per_m2(distance_within_row_cm: object, row_spacing_cm: object) -> float | None:
    in_row, rows = as_number(distance_within_row_cm), as_number(row_spacing_cm)
    if not in_row or not rows or in_row <= 0 or rows <= 0:
        return None
    return 10000.0 / (in_row * rows)


def check_yield(
    proposal: Proposal, culture: Culture, typical: Mapping[str, TypicalRange] | None = None
) -> None:
    """Context, hard limits, unusual values, the crop's typical range, and the cross-check."""
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
    limits = YIELD_LIMITS[context]
    unit = limits["unit"]
    if yield_value <= 0 or yield_value > limits["cap"]:
        proposal.add(
            f"yield_{context}_impossible",
            ERROR,
            "expected_yield",
            f"{yield_value:g} {unit} is outside what any crop gives "
            f"(more than 0 and at most {limits['cap']:g} {unit}).",
            value=yield_value,
            cap=limits["cap"],
            unit=unit,
        )
        return
    if yield_value > limits["unusual"]:
        proposal.add(
            f"yield_{context}_unusual",
            WARNING,
            "expected_yield",
            f"{yield_value:g} {unit} is possible but unusually high "
            f"(above {limits['unusual']:g} {unit}); check the source.",
            value=yield_value,
            threshold=limits["unusual"],
            unit=unit,
        )
    crop_range = (typical or {}).get(context)
    if crop_range and not crop_range.min <= yield_value <= crop_range.max:
        proposal.add(
            "yield_outside_typical_range",
            WARNING,
            "expected_yield",
            f"{yield_value:g} {unit} is outside this crop's typical "
            f"{crop_range.min:g}–{crop_range.max:g} {crop_range.unit} "
            f"({crop_range.source_title}).",
            value=yield_value,
            typical_min=crop_range.min,
            typical_max=crop_range.max,
            source_url=crop_range.source_url,
        )
    _cross_check_yield(proposal, culture, yield_value, context)


def _cross_check_yield(proposal: Proposal, culture: Culture, value: float, context: str) -> None:
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
    limits = YIELD_LIMITS[other]
    details = {
        "plants_per_m2": round(density, 2),
        "implied": round(implied, 3),
        "implied_unit": limits["unit"],
    }
    if implied <= 0 or implied > limits["cap"]:
        proposal.add(
            "yield_crosscheck_impossible",
            ERROR,
            "expected_yield",
            f"At {density:.1f} plants/m² this means {implied:.2f} {limits['unit']}, "
            f"which is impossible (cap {limits['cap']:g}).",
            **details,
        )
    elif implied > limits["unusual"]:
        proposal.add(
            "yield_crosscheck_unusual",
            WARNING,
            "expected_yield",
            f"At {density:.1f} plants/m² this means {implied:.2f} {limits['unit']}, "
            f"unusually high (above {limits['unusual']:g}).",
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
    **details: Any,
) -> None:
    """An error outside the outer band, a warning outside the inner one."""
    severity = _classify(value, bands)
    if severity:
        low, high = bands[severity.value]
        kind = "impossible" if severity == ERROR else "unusual"
        proposal.add(
            f"{code}_{kind}", severity, field_name, f"{what}, outside {low:g}–{high:g}.", **details
        )


def _suggested_among(proposal: Proposal, fields: Iterable[str]) -> str | None:
    """The first of fields that this proposal suggests: the one an issue belongs to."""
    return next((f for f in fields if f in proposal.suggested), None)


def check_density(proposal: Proposal, culture: Culture) -> None:
    """Plants/m² from spacing and seeds/m² from the seed rate: each plausible, and in agreement."""
    spacing_fields = ("distance_within_row_cm", "row_spacing_cm")
    seed_fields = ("seed_rate_value", "seed_rate_unit", "thousand_kernel_weight_g")
    spacing = plants_per_m2(*(_current_or_suggested(proposal, culture, f) for f in spacing_fields))
    seeds = _seeds_per_m2(proposal, culture)
    spacing_field = _suggested_among(proposal, spacing_fields)
    seed_field = _suggested_among(proposal, seed_fields)
    if spacing is not None and spacing_field:
        what = f"The spacing gives {spacing:.1f} plants/m²"
        _check_band(
            proposal,
            spacing_field,
            "spacing_density",
            spacing,
            SPACING_DENSITY,
            what,
            plants_per_m2=round(spacing, 2),
        )
    if seeds is not None and seed_field:
        what = f"The seed rate gives {seeds:.0f} seeds/m²"
        _check_band(
            proposal,
            seed_field,
            "seed_rate_density",
            seeds,
            SEED_RATE_DENSITY,
            what,
            seeds_per_m2=round(seeds, 1),
        )
    if spacing and seeds and (spacing_field or seed_field):
        ratio = seeds / spacing
        if ratio > DENSITY_CONFLICT_RATIO or ratio < 1 / DENSITY_CONFLICT_RATIO:
            proposal.add(
                "spacing_seedrate_conflict",
                WARNING,
                seed_field or spacing_field,
                f"Spacing gives {spacing:.1f} plants/m² but the seed rate "
                f"{seeds:.0f} seeds/m² (×{ratio:.1f}).",
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
            f"A thousand-kernel weight of {tkg:g} g is rare (above "
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
                f"A {size:g} g package is outside {SEED_PACKAGE_G[0]:g}–"
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
        kept.append({**package, "size_value": size})
    if kept:
        suggestion.value = kept
    else:
        proposal.drop("seed_packages")


def check_yield_evidence(proposal: Proposal, culture: Culture) -> None:
    """A yield needs a citable source; without one it may not overwrite an existing yield."""
    if "expected_yield" not in proposal.suggested:
        return
    if any(e.is_citable for e in proposal.evidence.get("expected_yield", [])):
        return
    if culture.get("expected_yield") is not None:
        proposal.drop("expected_yield")
        proposal.add(
            "yield_evidence_missing_override_blocked",
            ERROR,
            "expected_yield",
            "The suggested yield cites no source, so it may not replace the yield "
            "already recorded.",
        )
    else:
        proposal.add(
            "yield_needs_manual_confirmation",
            WARNING,
            "expected_yield",
            "The suggested yield cites no source; confirm it yourself before applying.",
        )


def _numbers_in(text: str) -> set[float]:
    return {float(n.replace(",", ".")) for n in _NUMBER.findall(text)}


def check_value_in_evidence(proposal: Proposal) -> None:
    """Warn when a suggested number appears in none of the snippets cited for it."""
    for field_name in NUMERIC_FIELDS:
        value = as_number(proposal.value(field_name))
        evidence = proposal.evidence.get(field_name, [])
        if value is None or not evidence:
            continue
        collapsed = any(
            i.code == "range_collapsed_to_mean" for i in proposal.issues_for(field_name)
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
    """Each source once: keyed by (url, claim summary), or (url, title) without a summary."""
    seen: dict[tuple[str, str], Evidence] = {}
    for field_name in sorted(evidence):
        for item in evidence[field_name]:
            key = (item.source_url.strip(), item.claim_summary.strip() or item.title.strip())
            seen.setdefault(key, item)
    return list(seen.values())


SOURCES_HEADING = "## Sources"


def notes_with_sources(notes: str, sources: Iterable[Evidence]) -> str:
    """Notes with one "Sources" section, last and sorted, merging what was listed before."""
    body, _, previous = (notes or "").partition(SOURCES_HEADING)
    lines = {line.strip() for line in previous.splitlines() if line.strip().startswith("- ")}
    for source in sources:
        lines.add(
            f"- [{_md(source.title or source.source_url)}]({source.source_url})"
            + (f": {_md(source.claim_summary)}" if source.claim_summary else "")
        )
    if not lines:
        return body.rstrip()
    return f"{body.rstrip()}\n\n{SOURCES_HEADING}\n\n" + "\n".join(sorted(lines)) + "\n"


def _md(text: str) -> str:
    return re.sub(r"([\[\]\\])", r"\\\1", " ".join(text.split()))


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
    typical_yield: Mapping[str, TypicalRange] | None = None,
) -> Proposal:
    """All rules in their order; returns the same proposal, checked."""
    keep_requested_fields(proposal, culture, mode, fields)
    normalize_enums(proposal)
    collapse_ranges(proposal)
    check_seed_packages(proposal)
    check_yield_evidence(proposal, culture)
    check_yield(proposal, culture, typical_yield)
    check_density(proposal, culture)
    check_thousand_kernel_weight(proposal)
    check_value_in_evidence(proposal)
    return proposal


STORED_CHECKED_FIELDS = (
    "expected_yield",
    "distance_within_row_cm",
    "row_spacing_cm",
    "seed_rate_value",
    "seed_rate_unit",
    "thousand_kernel_weight_g",
)


def check_stored(
    culture: Culture, typical_yield: Mapping[str, TypicalRange] | None = None
) -> list[Issue]:
    """The plausibility rules over a culture's stored values: what "Check catalog" lists."""
    stored = Proposal(
        suggested={
            field: SuggestedValue(culture[field])
            for field in STORED_CHECKED_FIELDS
            if culture.get(field) is not None
        }
    )
    context = {"harvest_method": culture.get("harvest_method")}
    check_yield(stored, context, typical_yield)
    check_density(stored, context)
    check_thousand_kernel_weight(stored)
    return [i for i in stored.issues if i.severity != INFO]
