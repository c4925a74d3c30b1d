"""Which numbers in a text state a figure: not a year, a reference ("Table 11", "p. 4"), part of
a name ("FAO-56", "DüV 2017") or a side of a conversion ("1 dt/ha = 0.01 kg/m²").

Shared by whatever reads figures out of sources: the research tables' offline answers, and the
farm systems' check that a source's claim states the value it is cited for.
"""

from __future__ import annotations

import math
import re

from webapp.units import Quantity, known_unit, quantities

# Words right before a number that make it a reference, not a figure: "Table 11", "p. 4".
_REFERENCE_BEFORE = re.compile(
    r"(?:\b(?:table|tab|figure|fig|anlage|annex|appendix|section|chapter|page|pages|pp?|no|nr|"
    r"paper|volume|vol|edition|version|art|article|item|step|line|ref|isbn|iso|din)\.?|§)\s*$",
    re.IGNORECASE,
)
# A number glued to letters by a hyphen or nothing is part of a name: "FAO-56", "B12".
_NAME_BEFORE = re.compile(r"[^\W\d_]-?$")
# "(1 dt/ha = 0.01 kg/m²: …)": both sides of a conversion are factors, not figures.
_EQUATION = re.compile(r"[=≈]\s*$")
_EQUATION_AFTER = re.compile(r"\s*[=≈]")
_YEAR = re.compile(r"^(1[89]\d\d|20\d\d|2100)$")


def why_no_figure(text: str, quantity: Quantity, allow_years: bool = False) -> str | None:
    """Why this number of text is no figure, or None when it may be one."""
    before, after = text[: quantity.start], text[quantity.end :]
    if _EQUATION.search(before) or _EQUATION_AFTER.match(after):
        return "a conversion factor"
    if _NAME_BEFORE.search(before):
        return "part of a name"
    if _REFERENCE_BEFORE.search(before):
        return "a reference (table, page, section …)"
    if (
        not allow_years
        and not quantity.is_range
        and (quantity.unit is None or not known_unit(quantity.unit))
        and _YEAR.match(quantity.number_text)
    ):
        return "a year"
    if not math.isfinite(quantity.value):
        return "not a finite number"
    return None


def states_a_figure(text: str) -> bool:
    """Whether text states a figure: a number that is no year, reference, name or conversion
    ("Barème Cerfrance 2025" states none; "glyphosate 15.33" and "61 €/ha" do)."""
    return any(why_no_figure(text, q) is None for q in quantities(text))
