"""The cited figures the calculators use, read from webapp/systems/data/*.json; every figure
carries its source and the sentence that states it."""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webapp.review.vocabulary import Evidence, Severity, SourceKind
from webapp.systems.calculators.result import Result, shown

DATA = Path(__file__).resolve().parent.parent / "data"


@dataclass(frozen=True)
class Figure:
    low: float
    high: float  # == low for a single value
    unit: str
    source: str
    claim: str
    url: str | None = None
    bound: str | None = None  # "upper": the source gives a most ("less than 5 L"), not a value

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Figure:
        value = raw["value"]
        low, high = (value[0], value[1]) if isinstance(value, list) else (value, value)
        return cls(
            float(low),
            float(high),
            raw["unit"],
            raw["source"],
            raw["claim"],
            raw.get("url"),
            raw.get("bound"),
        )

    @property
    def is_range(self) -> bool:
        return self.low != self.high

    @property
    def midpoint(self) -> float:
        return (self.low + self.high) / 2

    @property
    def text(self) -> str:
        number = f"{shown(self.low)}–{shown(self.high)}" if self.is_range else shown(self.low)
        return f"{'≤ ' if self.bound == 'upper' else ''}{number} {self.unit}"

    def evidence(self) -> Evidence:
        return Evidence(
            source_url=self.url or "",
            title=self.source,
            claim_summary=self.claim,
            source_kind=SourceKind.reference,
        )


def assumption_evidence(key: str, value: str) -> Evidence:
    """The user's own assumption as the source of a figure."""
    return Evidence("", "Assumption", f"{key}: {value}", SourceKind.document)


@functools.cache
def figures() -> dict[str, Any]:
    return json.loads((DATA / "figures.json").read_text(encoding="utf-8"))


def cited(*path: str) -> Figure | None:
    """The figure at path in figures.json ("fuel", "labour"), or None."""
    node: Any = figures()
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return Figure.from_dict(node)


def others(*path: str) -> list[Figure]:
    """The other cited figures kept beside the one a calculator uses (shown as notes)."""
    node: Any = figures()
    for part in path:
        node = node.get(part, {}) if isinstance(node, dict) else {}
    return [Figure.from_dict(o) for o in node.get("others", ())] if isinstance(node, dict) else []


def use(result: Result, figure: Figure, what: str) -> float:
    """figure's value for result, its source added; a range gives its midpoint with a caveat
    saying so and the range, which the result also keeps."""
    result.sources.append(figure.evidence())
    if not figure.is_range:
        result.calculation_steps.append(f"{what}: {figure.text} ({figure.source})")
        return figure.low
    result.range = (figure.low, figure.high) if result.range is None else result.range
    result.calculation_steps.append(
        f"{what}: {figure.text} ({figure.source}); midpoint {shown(figure.midpoint)} {figure.unit}"
    )
    result.caveat(
        "range_midpoint",
        Severity.warning,
        f"{what} is cited as a range, {figure.text}; the midpoint "
        f"{shown(figure.midpoint)} {figure.unit} is used.",
        low=figure.low,
        high=figure.high,
    )
    return figure.midpoint
