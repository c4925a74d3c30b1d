"""A method's answer: N, P2O5 and K2O in kg/ha, each with what kind of figure it is, and the
table rows that gave it. A figure is a dose to apply, an upper bound (something the method
subtracts was not given), or the maintenance dose (= the crop's removal); an unknown figure is
None, never 0."""

from __future__ import annotations

from dataclasses import dataclass, field

from webapp.fertilizer.plan import K_PER_K2O, P_PER_P2O5, Nutrients
from webapp.review.vocabulary import Issue, Severity

KG_PER_HA_IN_G_PER_M2 = 0.1
# What a figure is, in the words the plan shows beside it.
DOSE, UPPER_BOUND, MAINTENANCE = "dose", "upper bound", "maintenance = removal"
NUTRIENTS = ("N", "P2O5", "K2O")
# The plan's element each figure is of (an issue names the element's total).
ELEMENT_OF = {"N": "N", "P2O5": "P", "K2O": "K"}


def figure_warning(code: str, nutrient: str, message: str) -> Issue:
    """A warning on the plan's total of the nutrient (N, P2O5 or K2O)."""
    return Issue(code, Severity.warning, ELEMENT_OF[nutrient], message)


@dataclass(frozen=True)
class Figure:
    """One nutrient's figure in kg/ha (N, P2O5 or K2O); value None: no cited figure."""

    value: float | None
    kind: str = DOSE
    # Why the figure is an upper bound or what it was read from, in a few words.
    reason: str = ""

    @property
    def label(self) -> str:
        if self.value is None:
            return "no cited figure"
        return f"{self.kind}: {self.reason}" if self.reason else self.kind


NO_FIGURE = Figure(None, "no cited figure")


@dataclass
class Dose:
    """What a method gives for one crop and field: kg/ha, the rows used, their sources."""

    method: str
    N: Figure = NO_FIGURE
    P2O5: Figure = NO_FIGURE
    K2O: Figure = NO_FIGURE
    steps: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    issues: list[Issue] = field(default_factory=list)

    def figure(self, nutrient: str) -> Figure:
        return getattr(self, nutrient)

    @property
    def elemental(self) -> Nutrients:
        """Elemental g/m²: kg/ha ÷ 10, P = P2O5 × 0.4364, K = K2O × 0.8301; None stays None."""

        def g(value: float | None, factor: float) -> float | None:
            return None if value is None else value * factor * KG_PER_HA_IN_G_PER_M2

        return Nutrients(
            g(self.N.value, 1.0), g(self.P2O5.value, P_PER_P2O5), g(self.K2O.value, K_PER_K2O)
        )

    @property
    def basis(self) -> dict[str, str]:
        """What each elemental total is, as the plan document keeps it."""
        return {"N": self.N.label, "P": self.P2O5.label, "K": self.K2O.label}

    @property
    def has_a_figure(self) -> bool:
        return any(self.figure(n).value is not None for n in NUTRIENTS)


def kg(value: float) -> str:
    """A kg/ha figure as the steps show it."""
    return f"{value:.0f}" if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def as_figure(cell: float | list | None) -> tuple[float | None, str]:
    """A table cell (a number, a [lo, hi] range, or None for no recommendation) as one figure
    and the words for a range: its upper end is the figure shown."""
    if cell is None:
        return None, ""
    if isinstance(cell, list | tuple):
        low, high = cell
        return float(high), f"the table gives {kg(low)}–{kg(high)}; its upper end is shown"
    return float(cell), ""
