"""What every calculator returns: the seed's assistant message (value, unit, assumptions,
calculation steps, sources, confidence, caveats), plus what it needed and did not have."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from webapp.review.vocabulary import Confidence, Evidence, Issue, Severity
from webapp.systems.assumptions import key_label

_SIGNIFICANT = 10


def rounded(value: float) -> float:
    """value to 10 significant digits: no float noise (0.15, not 0.15000000000000002)."""
    return float(f"{value:.{_SIGNIFICANT}g}")


def shown(value: float) -> str:
    """value as a calculation step writes it: 6 significant digits, written out as people
    write numbers (1234570, 0.0000015), never with an exponent."""
    return f"{Decimal(f'{value:.6g}'):f}"


@dataclass
class Result:
    key: str
    unit: str
    value: float | None = None
    assumptions: list[str] = field(default_factory=list)
    calculation_steps: list[str] = field(default_factory=list)
    sources: list[Evidence] = field(default_factory=list)
    confidence: Confidence | None = None
    caveats: list[Issue] = field(default_factory=list)
    needs: list[str] = field(default_factory=list)  # the inputs it lacked, by assumption key
    range: tuple[float, float] | None = None  # when the cited figure is a range
    parts: dict[str, float] = field(default_factory=dict)  # IFT segments, GES terms
    # What it was calculated from, as read (Context.inputs): when one changes, it is stale.
    inputs: dict[str, str] = field(default_factory=dict)

    @property
    def applicable(self) -> bool:
        """A value with no error: what may be stored as a suggestion and applied."""
        return self.value is not None and not any(
            c.severity == Severity.error for c in self.caveats
        )

    def caveat(self, code: str, severity: Severity, message: str, **details: Any) -> None:
        self.caveats.append(Issue(code, severity, self.key, message, details))

    def absorb(self, other: Result) -> None:
        """other's assumptions, steps, sources and caveats (not its needs) join this result's."""
        self.assumptions.extend(a for a in other.assumptions if a not in self.assumptions)
        self.calculation_steps.extend(other.calculation_steps)
        self.sources.extend(other.sources)
        self.caveats.extend(c for c in other.caveats if c.code != "needs_input")

    def to_message(self) -> dict[str, Any]:
        """The seed's assistant message fields, JSON-ready (sources as Evidence dicts, caveats
        as Issue dicts)."""
        return {
            "key": self.key,
            "value": self.value,
            "unit": self.unit,
            "assumptions": list(self.assumptions),
            "calculation_steps": list(self.calculation_steps),
            "sources": [s.to_dict() for s in self.sources],
            "confidence": self.confidence.value if self.confidence else None,
            "caveats": [c.to_dict() for c in self.caveats],
            "needs": list(self.needs),
            "range": list(self.range) if self.range else None,
            "parts": dict(self.parts),
            "inputs": dict(self.inputs),
        }


def needs(result: Result, *missing: str, why: str = "") -> Result:
    """result without a value, saying which inputs it lacks ("needs: Dose")."""
    result.value = None
    result.confidence = None
    result.needs.extend(m for m in missing if m not in result.needs)
    result.caveats = [c for c in result.caveats if c.code != "needs_input"]
    named = ", ".join(key_label(key) for key in result.needs)
    message = f"needs: {named}" + (f" ({why})" if why else "")
    result.caveat("needs_input", Severity.warning, message, needs=list(result.needs))
    return result
