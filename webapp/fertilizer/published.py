"""Published recommendations of the total fertilizer to apply in a season (extension services,
official guides, crop guides), per crop, with their situation and source: the range every plan
is checked against, and the dose where no method covers the region."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webapp.fertilizer.dose import DOSE, UPPER_BOUND, Dose, Figure, kg
from webapp.fertilizer.soil import as_class, as_index
from webapp.fertilizer.tables import source_url, table

METHOD = "published extension range"
UK_SOURCES = ("rb209",)
KEYS = {"N": "n", "P2O5": "p2o5", "K2O": "k2o"}
# A soil-test result in the words the published tables use for their classes.
CLASS_OF_VDLUFA = {"A": "low", "B": "low", "C": "medium", "D": "high", "E": "very high"}
CLASS_OF_INDEX = {"0": "low", "1": "low", "2": "medium", "2-": "medium", "2+": "medium"}


@dataclass(frozen=True)
class Published:
    crop_id: str
    source: str
    url: str | None
    title: str
    situation: str
    at_yield: str | None
    row: dict[str, Any]

    def span(self, nutrient: str) -> tuple[float, float | None] | None:
        """(low, high) kg/ha for N, P2O5 or K2O; high None: no upper bound stated. P and K of
        a source that does not say elemental or oxide are no figure."""
        if nutrient != "N" and self.row.get("basis") == "unstated":
            return None
        cell = self.row.get(KEYS[nutrient])
        return (float(cell[0]), None if cell[1] is None else float(cell[1])) if cell else None

    @property
    def name(self) -> str:
        return f"{self.title} ({self.situation})"


def ranges(crop_id: str) -> list[Published]:
    data = table("published")
    found = []
    for row in data.get("ranges", {}).get(crop_id, []):
        source = data["sources"].get(row["source"], {})
        found.append(
            Published(
                crop_id,
                row["source"],
                source_url(data, row["source"]),
                source.get("title", row["source"]),
                row.get("situation", ""),
                row.get("at_yield"),
                row,
            )
        )
    return found


def span_words(span: tuple[float, float | None]) -> str:
    """A published (low, high) in kg/ha as the steps and warnings write it: "80–120",
    "60 or more"."""
    low, high = span
    if high is None:
        return f"{kg(low)} or more"
    return kg(low) if low == high else f"{kg(low)}–{kg(high)}"


def soil_class(status: str | None) -> tuple[str | None, str]:
    """A soil-test result as the published tables' class words (low, medium, high, very high)
    and how it was read."""
    if status is None:
        return None, ""
    letter, _ = as_class(status)
    if letter is not None:
        return CLASS_OF_VDLUFA[letter], f"VDLUFA class {letter} read as “{CLASS_OF_VDLUFA[letter]}”"
    index, _ = as_index(status)
    word = CLASS_OF_INDEX.get(index or "", "high")
    return word, f"RB209 index {index} read as “{word}”"


def extension_dose(
    crop_id: str, soil_p: str | None, soil_k: str | None, region: str | None
) -> Dose | None:
    """The first published recommendation for the crop as the dose, where no method covers
    the region: N as stated (a range's midpoint, labelled); P2O5 and K2O by the soil-test
    class where the source gives each class, else the range's upper end as an upper bound."""
    # RB209's own ranges are the UK method's tables: elsewhere another source goes first.
    published = sorted(ranges(crop_id), key=lambda p: p.source.startswith(UK_SOURCES))
    if not published:
        return None
    chosen = published[0]
    dose = Dose(METHOD, sources=[chosen.url] if chosen.url else [])
    dose.steps.append(
        f"No method of its own for {('region ' + region) if region else 'an unnamed region'}:"
        f" the published recommendation of {chosen.name}"
        + (f", at {chosen.at_yield}" if chosen.at_yield else "")
        + f" — “{chosen.row.get('as_stated', '')}”."
    )
    span = chosen.span("N")
    if span is not None:
        low, high = span
        if high is None:
            dose.N = Figure(low, UPPER_BOUND, f"the source states {kg(low)} or more")
        elif low == high:
            dose.N = Figure(low, DOSE, "published")
        elif low == 0:
            # A range from 0 spans the soil's N supply: its middle is no field's dose.
            dose.N = Figure(high, UPPER_BOUND, f"the published 0–{kg(high)} spans soil N supply")
        else:
            middle = (low + high) / 2
            dose.N = Figure(middle, DOSE, f"midpoint of the published {kg(low)}–{kg(high)}")
        dose.steps.append(f"N: {dose.N.label} — {kg(dose.N.value)} kg N/ha.")
    for oxide, status in (("P2O5", soil_p), ("K2O", soil_k)):
        span = chosen.span(oxide)
        if span is None:
            unstated = chosen.row.get("basis") == "unstated"
            why = "does not say elemental or oxide" if unstated else "gives no figure"
            dose.steps.append(f"{oxide}: the source {why}; no cited figure.")
            continue
        low, high = span
        by_class = chosen.row.get(f"{oxide.lower()}_by_class") or {}
        word, read = soil_class(status)
        if word is not None and word not in by_class and word == "very high":
            word = "high"
        if word in by_class:
            figure = Figure(float(by_class[word]), DOSE, f"soil {oxide[0]} “{word}”")
            dose.steps.append(
                f"{oxide}: soil {oxide[0]} {status} ({read}): {kg(figure.value)} kg/ha."
            )
        elif low == high and high is not None:
            figure = Figure(low, DOSE, "published")
            dose.steps.append(f"{oxide}: {kg(low)} kg/ha as published.")
        else:
            top = high if high is not None else low
            why = "soil test not given" if status is None else "no figure for the soil class"
            figure = Figure(top, UPPER_BOUND, f"{why}: the range's upper end")
            dose.steps.append(
                f"{oxide}: the published {span_words(span)} kg/ha spans soil-test classes; {why}:"
                f" its upper end, {kg(top)} kg/ha, is shown as an upper bound."
            )
        setattr(dose, oxide, figure)
    return dose
