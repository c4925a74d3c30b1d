"""The fertilizer plan entities and their invariants (seed 001): elemental N, P, K in g/m².

A plan that breaks an invariant never exists: building one raises PlanInvalid with every
problem found, each a sentence a person (or a model being re-asked) can act on.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from webapp.problems import Invalid, Problem

ELEMENTS = ("N", "P", "K")
APPLICATION_TYPES = ("basal", "topdress")
# Oxide to element, by molar mass: P = P2O5 × 0.4364, K = K2O × 0.8301.
P_PER_P2O5 = 0.4364
K_PER_K2O = 0.8301
TOLERANCE = 1e-6
UNIT = "g/m²"
# Unit spellings accepted for the fixed unit; anything else fails fast.
UNIT_SPELLINGS = frozenset({"g/m2", "g/m²", "g m-2", "g/sqm"})


class PlanInvalid(Invalid):
    """A plan or nutrient figure that breaks an invariant; problems lists every one found."""

    code = "invalid_plan"

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__([Problem(p) for p in problems])

    @property
    def messages(self) -> list[str]:
        return [p.message for p in self.problems]


def p2o5(p: float) -> float:
    return p / P_PER_P2O5


def k2o(k: float) -> float:
    return k / K_PER_K2O


def _amount(value: Any, where: str, problems: list[str]) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        problems.append(f"{where} must be a number in {UNIT}, got {value!r}")
        return 0.0
    if not math.isfinite(value):
        problems.append(f"{where} must be a finite number, got {value!r}")
        return 0.0
    if value < 0:
        problems.append(f"{where} must not be negative, got {value:g}")
    return float(value)


def _add(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a + b


@dataclass(frozen=True)
class Nutrients:
    """Elemental N, P and K in g/m²; None is a nutrient with no cited figure (never 0)."""

    N: float | None = 0.0
    P: float | None = 0.0
    K: float | None = 0.0

    def __post_init__(self) -> None:
        problems: list[str] = []
        for element in ELEMENTS:
            _amount(getattr(self, element), element, problems)
        if problems:
            raise PlanInvalid(problems)

    @classmethod
    def parse(cls, raw: Any, where: str, problems: list[str], unknown: bool = True) -> Nutrients:
        """From a JSON object; problems collects what is wrong instead of raising. A null
        element is one with no cited figure, where unknown allows it."""
        if not isinstance(raw, Mapping):
            problems.append(f"{where} must be an object with N, P and K")
            return cls()
        unit = raw.get("unit")
        if unit is not None and unit not in UNIT_SPELLINGS:
            problems.append(f"{where}.unit must be {UNIT} (elemental), got {unit!r}")
        extra = sorted(set(raw) - {*ELEMENTS, "unit"})
        if extra:
            oxides = [key for key in extra if key.upper() in ("P2O5", "K2O")]
            hint = " (give elemental P and K: P = P2O5 × 0.4364, K = K2O × 0.8301)"
            problems.append(f"{where} has unknown keys {', '.join(extra)}{hint if oxides else ''}")
        before = len(problems)
        values = {}
        for element in ELEMENTS:
            if element not in raw:
                problems.append(f"{where}.{element} is missing")
                values[element] = 0.0
            elif raw[element] is None and not unknown:
                problems.append(f"{where}.{element} must be a number in {UNIT}")
                values[element] = 0.0
            else:
                values[element] = _amount(raw[element], f"{where}.{element}", problems)
        if len(problems) > before:
            return cls()
        return cls(**values)

    def _each(self, how) -> Nutrients:
        """how applied to each known element; an unknown one stays unknown."""
        return Nutrients(
            *(None if (v := getattr(self, e)) is None else how(e, v) for e in ELEMENTS)
        )

    def __add__(self, other: Nutrients) -> Nutrients:
        return Nutrients(*(_add(getattr(self, e), getattr(other, e)) for e in ELEMENTS))

    def scaled(self, factor: float) -> Nutrients:
        return self._each(lambda _e, v: v * factor)

    def minus_floor_zero(self, other: Nutrients) -> Nutrients:
        """What is left after other is taken away, never below zero."""
        return self._each(lambda e, v: max(0.0, v - (getattr(other, e) or 0.0)))

    def rounded(self, digits: int = 2) -> Nutrients:
        return self._each(lambda _e, v: round(v, digits))

    def close_to(self, other: Nutrients, tolerance: float = TOLERANCE) -> bool:
        def close(a: float | None, b: float | None) -> bool:
            return a is b is None or (a is not None and b is not None and abs(a - b) <= tolerance)

        return all(close(getattr(self, e), getattr(other, e)) for e in ELEMENTS)

    @property
    def is_zero(self) -> bool:
        return self.N == 0 and self.P == 0 and self.K == 0

    @property
    def oxides(self) -> dict[str, float | None]:
        """N, P2O5 and K2O, for display beside the elemental figures."""
        return {
            "N": self.N,
            "P2O5": None if self.P is None else p2o5(self.P),
            "K2O": None if self.K is None else k2o(self.K),
        }

    def to_dict(self) -> dict[str, float]:
        return {e: getattr(self, e) for e in ELEMENTS}


@dataclass(frozen=True)
class FertilizerApplication:
    """A group of equal applications: nutrients is the group's total; per_application, when
    stated, must be nutrients / count."""

    type: str
    count: int
    schedule_hint: str | None
    nutrients: Nutrients
    stated_per_application: Nutrients | None = None

    def __post_init__(self) -> None:
        problems = application_problems(
            self.type, self.count, self.nutrients, self.stated_per_application, "application"
        )
        if problems:
            raise PlanInvalid(problems)

    @property
    def per_application(self) -> Nutrients:
        if self.stated_per_application is not None:
            return self.stated_per_application
        return self.nutrients.scaled(1 / self.count)

    def to_dict(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "count": self.count,
            "schedule_hint": self.schedule_hint,
            "nutrients": self.nutrients.to_dict(),
            "per_application": self.per_application.to_dict(),
        }


def application_problems(
    kind: Any, count: Any, nutrients: Nutrients, stated: Nutrients | None, where: str
) -> list[str]:
    problems = []
    if kind not in APPLICATION_TYPES:
        problems.append(f"{where}.type must be basal or topdress, got {kind!r}")
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        problems.append(f"{where}.count must be a whole number of at least 1, got {count!r}")
    elif stated is not None and not stated.scaled(count).close_to(nutrients):
        problems.append(
            f"{where}: per_application × count must equal nutrients"
            f" ({_show(stated)} × {count} ≠ {_show(nutrients)})"
        )
    return problems


@dataclass(frozen=True)
class FertilizerPlan:
    crop_id: str
    crop_name: str
    totals: Nutrients
    applications: tuple[FertilizerApplication, ...]
    sources: tuple[str, ...]
    confidence: float
    notes: str | None
    # The named method the doses come from ("DüV 2020, Anlage 4 (N) · VDLUFA classes (P, K)"),
    # and what each total is ("dose", "upper bound: Nmin not given", "maintenance = removal").
    method: str | None = None
    basis: Mapping[str, str] | None = None

    def __post_init__(self) -> None:
        problems = plan_problems(self.totals, self.applications, self.confidence)
        if problems:
            raise PlanInvalid(problems)

    @property
    def unknown(self) -> list[str]:
        """The elements with no cited figure."""
        return [e for e in ELEMENTS if getattr(self.totals, e) is None]

    def basis_of(self, element: str) -> str:
        """What the element's total is, in words; a plan from before methods says nothing."""
        if getattr(self.totals, element) is None:
            return "no cited figure"
        return (self.basis or {}).get(element, "")

    def to_dict(self) -> dict[str, Any]:
        """The seed's response document: elemental, g/m², no unit key; a null nutrient has
        no cited figure. method and basis say where each total comes from and what it is."""
        document = {
            "crop": {"crop_id": self.crop_id, "name": self.crop_name},
            "totals": self.totals.to_dict(),
            "applications": [a.to_dict() for a in self.applications],
            "sources": list(self.sources),
            "confidence": self.confidence,
            "notes": self.notes,
        }
        if self.method is not None:
            document["method"] = self.method
        if self.basis is not None:
            document["basis"] = dict(self.basis)
        return document


def plan_problems(
    totals: Nutrients, applications: Sequence[FertilizerApplication], confidence: float
) -> list[str]:
    """The invariants that span the plan: at least one application, sums equal totals."""
    problems = []
    if not applications:
        problems.append("a plan needs at least one application (basal or topdress)")
    if applications:
        summed = sum((a.nutrients for a in applications), Nutrients())
        for element in ELEMENTS:
            total, added = getattr(totals, element), getattr(summed, element)
            if (total is None) != (added is None):
                problems.append(
                    f"totals.{element} and the applications' {element} must both be null"
                    " (no cited figure) or both be numbers"
                )
            elif total is not None and abs(total - added) > TOLERANCE:
                problems.append(
                    f"applications add up to {element} {added:g} {UNIT}"
                    f" but totals.{element} is {total:g}"
                )
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        problems.append("confidence must be a number from 0 to 1")
    elif not 0 <= confidence <= 1:
        problems.append(f"confidence must be from 0 to 1, got {confidence:g}")
    return problems


def _application(raw: Any, i: int, problems: list[str]) -> FertilizerApplication | None:
    where = f"applications[{i}]"
    if not isinstance(raw, Mapping):
        problems.append(f"{where} must be an object")
        return None
    before = len(problems)
    hint = raw.get("schedule_hint")
    if hint is not None and not isinstance(hint, str):
        problems.append(f"{where}.schedule_hint must be text or null")
    count = raw.get("count")
    if isinstance(count, float) and count.is_integer():
        count = int(count)
    nutrients = Nutrients.parse(raw.get("nutrients"), f"{where}.nutrients", problems)
    per = raw.get("per_application")
    stated = None if per is None else Nutrients.parse(per, f"{where}.per_application", problems)
    kind = raw.get("type")
    problems.extend(application_problems(kind, count, nutrients, stated, where))
    if len(problems) > before:
        return None
    return FertilizerApplication(kind, count, hint, nutrients, stated)


def _show(nutrients: Nutrients) -> str:
    return "/".join("null" if (v := getattr(nutrients, e)) is None else f"{v:g}" for e in ELEMENTS)


def plan_from_dict(raw: Any) -> FertilizerPlan:
    """Check a response document against the schema and every invariant; PlanInvalid lists
    all problems at once (what a re-asked model needs)."""
    if not isinstance(raw, Mapping):
        raise PlanInvalid(["the plan must be a JSON object"])
    problems: list[str] = []
    crop = raw.get("crop")
    crop_id = crop_name = ""
    if not isinstance(crop, Mapping):
        problems.append("crop must be an object with crop_id and name")
    else:
        crop_id, crop_name = crop.get("crop_id"), crop.get("name")
        for key, value in (("crop_id", crop_id), ("name", crop_name)):
            if not isinstance(value, str) or not value.strip():
                problems.append(f"crop.{key} must be non-empty text")
    if raw.get("unit_area") is not None or raw.get("unit") not in (None, *UNIT_SPELLINGS):
        problems.append(f"all quantities are {UNIT}; a plan does not carry another unit")
    totals = Nutrients.parse(raw.get("totals"), "totals", problems)
    raw_applications = raw.get("applications")
    applications: list[FertilizerApplication] = []
    if not isinstance(raw_applications, list):
        problems.append("applications must be a list")
    else:
        for i, item in enumerate(raw_applications):
            application = _application(item, i, problems)
            if application is not None:
                applications.append(application)
    sources = raw.get("sources")
    if not isinstance(sources, list) or not all(isinstance(s, str) for s in sources):
        problems.append("sources must be a list of citations (text)")
        sources = []
    notes = raw.get("notes")
    if notes is not None and not isinstance(notes, str):
        problems.append("notes must be text or null")
    confidence = raw.get("confidence")
    method = raw.get("method")
    if method is not None and (not isinstance(method, str) or not method.strip()):
        problems.append("method must be the name of a method (text) or null")
    basis = raw.get("basis")
    if basis is not None and not (
        isinstance(basis, Mapping)
        and set(basis) <= set(ELEMENTS)
        and all(isinstance(v, str) for v in basis.values())
    ):
        problems.append("basis must map N, P and K to what each total is (text)")
    if not problems:
        problems.extend(plan_problems(totals, applications, confidence))
    if problems:
        raise PlanInvalid(problems)
    return FertilizerPlan(
        crop_id=crop_id,
        crop_name=crop_name,
        totals=totals,
        applications=tuple(applications),
        sources=tuple(sources),
        confidence=float(confidence),
        notes=notes,
        method=method,
        basis=dict(basis) if basis is not None else None,
    )


def topdress_positions(count: int) -> list[float]:
    """Where in the season (0 = planting, 1 = end) each of count topdressings falls: evenly
    through the season, the last well before its end."""
    return [round(i / (count + 1), 4) for i in range(1, count + 1)]
