"""Which method a region's growers are advised by: Germany → the DüV (N) and VDLUFA soil
classes (P, K); England, Wales and Northern Ireland → RB209; anywhere else, or no region →
the published extension ranges. The region is read as words a person types ("Bayern",
"Lincolnshire, UK", "Deutschland")."""

from __future__ import annotations

import re
import unicodedata

GERMANY, UK, ELSEWHERE = "germany", "uk", "elsewhere"

# Country and state names, folded (lower case, no accents).
_GERMANY = {
    "germany",
    "deutschland",
    "de",
    "allemagne",
    "baden-wurttemberg",
    "bayern",
    "bavaria",
    "berlin",
    "brandenburg",
    "bremen",
    "hamburg",
    "hessen",
    "hesse",
    "mecklenburg-vorpommern",
    "niedersachsen",
    "lower saxony",
    "nordrhein-westfalen",
    "north rhine-westphalia",
    "rheinland-pfalz",
    "saarland",
    "sachsen",
    "saxony",
    "sachsen-anhalt",
    "schleswig-holstein",
    "thuringen",
    "thuringia",
}
# RB209 is written for England, Wales and Northern Ireland; Scotland has its own advice.
_UK = {
    "uk",
    "united kingdom",
    "gb",
    "great britain",
    "britain",
    "england",
    "wales",
    "northern ireland",
    "cymru",
}


def _fold(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def region_of(region: str | None) -> str:
    """GERMANY, UK or ELSEWHERE for a region as typed; the last named place decides
    ("Kent, England" is England), so a county or district may come first."""
    if not region:
        return ELSEWHERE
    parts = [p.strip(" .") for p in re.split(r"[,;/()]", _fold(region)) if p.strip(" .")]
    for part in reversed(parts):
        if part in _GERMANY:
            return GERMANY
        if part in _UK:
            return UK
        if part == "scotland":
            return ELSEWHERE
    return ELSEWHERE
