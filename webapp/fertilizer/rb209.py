"""RB209 (the UK's Fertiliser Manual) for England, Wales and Northern Ireland: N by the soil's
category and its Soil Nitrogen Supply (SNS) index 0–6; P2O5 and K2O by the soil's P and K
index, where index 2 (K 2-) is the target and its dose is maintenance = the crop's offtake.
Each figure is the table's cell; a cell the table leaves blank is no recommendation."""

from __future__ import annotations

import re
from typing import Any

from webapp.fertilizer.dose import (
    DOSE,
    MAINTENANCE,
    NO_FIGURE,
    UPPER_BOUND,
    Dose,
    Figure,
    as_figure,
    kg,
)
from webapp.fertilizer.soil import as_index
from webapp.fertilizer.tables import source_url, table
from webapp.review.vocabulary import Issue, Severity

METHOD = "RB209"
# Words in the tables' soil categories that each texture belongs to, best first.
TEXTURE_WORDS = {
    "sand": ("sand", "all"),
    "loam": ("medium", "other mineral", "all", "mineral"),
    "silt": ("silt", "medium", "other mineral", "all", "mineral"),
    "clay": ("clay", "medium", "other mineral", "all", "mineral"),
    "peat": ("peat", "organic"),
}
NOT_MINERAL = ("organic", "peat")
# The target index, whose dose is maintenance, where the crop's table does not say.
MAINTENANCE_INDEX = {"P2O5": "2", "K2O": "2-"}
# Potato N (8th edition): by season length, variety group and a group of SNS indices.
POTATO_SEASONS = ((60, "<60 days"), (90, "60-90 days"), (120, "90-120 days"), (None, ">120 days"))


def _data() -> dict[str, Any]:
    return table("rb209")


def crop_table(crop_id: str) -> dict[str, Any] | None:
    return _data().get("crops", {}).get(crop_id)


def _url(part: dict[str, Any]) -> list[str]:
    url = source_url(_data(), part.get("source"))
    return [url] if url else []


def _where(part: dict[str, Any]) -> str:
    """The table and edition a figure is read from: " Table 4.17 (AHDB …, June 2023),"."""
    table_name = f" {part['table']}" if part.get("table") else ""
    edition = part.get("edition")
    return f"{table_name} ({edition})," if edition else table_name


def soil_category(categories: list[str], texture: str) -> str | None:
    """The table's soil category for a texture (sand → "Light sand soils")."""
    for word in TEXTURE_WORDS[texture]:
        for category in categories:
            if word in category.lower():
                return category
    return None


def sns_from_nmin(nmin: float) -> int | None:
    """The SNS index whose band holds a soil's mineral N, read as its whole SNS."""
    bands = _data().get("sns_index", {}).get("upper_kg_n_per_ha")
    if not bands:
        return None
    for index, upper in enumerate(bands):
        if upper is None or nmin <= upper:
            return index
    return len(bands) - 1


def _sns_cells(
    rows: dict[str, list], texture: str | None, index: int, bound: list[str]
) -> list[tuple[str, Any]]:
    """(soil category, cell) of the SNS-index columns for the texture, or of every mineral
    soil when the texture is not given."""
    if texture is not None and (category := soil_category(list(rows), texture)):
        candidates = [category]
    else:
        candidates = [c for c in rows if not any(w in c.lower() for w in NOT_MINERAL)]
        if len(candidates) > 1:
            bound.append("soil texture not given")
    return [(c, rows[c][index]) for c in candidates if index < len(rows[c])]


def variety_group(groups: dict[str, str], variety: str | None) -> str | None:
    """The RB209 potato variety group that lists the variety by name ("Maris Piper" → 3)."""
    if not variety:
        return None
    wanted = variety.strip().casefold()
    for group, listed in groups.items():
        names = re.split(r"[:,]| and | such as ", listed.casefold())
        if any(name.strip(" .") == wanted for name in names):
            return group
    return None


def _potato_cells(
    n: dict[str, Any],
    season_days: int | None,
    variety: str | None,
    index: int,
    bound: list[str],
    steps: list[str],
) -> list[tuple[str, Any]]:
    """(season, variety group, SNS group) cells of the potato table: the season by the days
    given, the variety group that lists the profile's variety, else every group."""
    layout = n["by_season_and_variety_group"]
    seasons = list(layout)
    if season_days is not None:
        band = next(
            label for limit, label in POTATO_SEASONS if limit is None or season_days < limit
        )
        seasons = [s for s in seasons if s == band] or seasons
    else:
        bound.append("season length not given")
    number = variety_group(n.get("variety_groups") or {}, variety)
    if number is None:
        bound.append("variety group not known" if variety else "variety not given")
    else:
        steps.append(f"Variety {variety}: RB209 variety group {number}.")
    cells = []
    for season in seasons:
        for group, by_sns in layout[season].items():
            if number is not None and group != f"Variety group {number}":
                continue
            for sns, cell in by_sns.items():
                if str(index) in re.findall(r"\d", sns):
                    cells.append((f"{season}, {group}, {sns}", cell))
    return cells


def n_dose(
    crop_id: str,
    texture: str | None,
    sns_index: int | None,
    nmin: float | None,
    season_days: int | None = None,
    variety: str | None = None,
) -> Dose | None:
    crop = crop_table(crop_id)
    n = (crop or {}).get("n")
    if not n or not (n.get("by_soil") or n.get("by_season_and_variety_group")):
        return None
    dose = Dose(METHOD, sources=_url(n))
    bound: list[str] = []
    index = sns_index
    if index is None and nmin is not None:
        index = sns_from_nmin(nmin)
        if index is not None:
            bound.append("SNS index from soil mineral N alone")
            dose.steps.append(
                f"SNS index {index} from the soil's mineral N {kg(nmin)} kg N/ha alone: the"
                " crop's N and the mineralisable N are not added, so the index may be higher"
                " and the dose lower."
            )
    if index is None:
        index = 0
        bound.append("SNS index not given")
        dose.steps.append(
            "SNS index not given: index 0's figure, the largest, is shown as an upper bound."
        )
        dose.issues.append(
            Issue(
                "sns_not_given",
                Severity.warning,
                "sns_index",
                "SNS index (or the soil's mineral N) not given: index 0's figure is shown as an"
                " upper bound, not as the dose.",
            )
        )
    if n.get("by_soil"):
        cells = _sns_cells(n["by_soil"], texture, index, bound)
    else:
        cells = _potato_cells(n, season_days, variety, index, bound, dose.steps)
    figures = [(label, as_figure(cell)) for label, cell in cells]
    figures = [(label, figure) for label, figure in figures if figure[0] is not None]
    if not figures:
        dose.steps.append(f"N: the table gives no figure for SNS index {index} on this soil.")
        return dose
    label, (value, range_words) = max(figures, key=lambda item: item[1][0])
    row_words = f"“{crop['name']}”, {label}, SNS index {index}: {kg(value)} kg N/ha"
    if range_words:
        row_words += f" ({range_words})"
    if len(figures) > 1:
        row_words += f" — the largest of {len(figures)} rows, as {', '.join(bound[-2:])}"
    dose.steps.insert(0, f"N, RB209{_where(n)} {row_words}.")
    if bound:
        dose.N = Figure(value, UPPER_BOUND, "; ".join(bound))
    else:
        dose.N = Figure(value, DOSE, range_words)
    return dose


def maintenance_index(crop_id: str, oxide: str) -> str:
    """The index the crop's table names as the target (its dose replaces the offtake)."""
    stated = ((crop_table(crop_id) or {}).get("maintenance_index") or {}).get(oxide[0].lower())
    by_index = ((crop_table(crop_id) or {}).get(oxide.lower()) or {}).get("by_index", {})
    if stated in by_index:
        return stated
    return MAINTENANCE_INDEX[oxide] if MAINTENANCE_INDEX[oxide] in by_index else "2"


def pk_dose(
    crop_id: str, oxide: str, status: str | None
) -> tuple[Figure, list[str], list[str], list[Issue]]:
    """The figure for P2O5 or K2O by the soil's index, the steps, their sources and checks."""
    part = (crop_table(crop_id) or {}).get(oxide.lower())
    nutrient = oxide[0]
    if not part or not part.get("by_index"):
        return NO_FIGURE, [f"{oxide}: RB209 gives no table for this crop."], [], []
    by_index = part["by_index"]
    target = maintenance_index(crop_id, oxide)
    steps: list[str] = []
    issues: list[Issue] = []
    index, read_as = as_index(status)
    if read_as:
        steps.append(f"Soil {nutrient}: {read_as}.")
    if status is not None and index is None:
        issues.append(
            Issue(
                "soil_index_not_rb209",
                Severity.warning,
                f"soil_{nutrient.lower()}",
                f"Soil {nutrient} class {status} is VDLUFA's, not an RB209 index: the"
                " maintenance dose (index 2) is shown.",
            )
        )
    if index == "2" and "2" not in by_index and "2-" in by_index:
        index = "2-"
        steps.append(f"Soil {nutrient} index 2 read as 2- (the table splits index 2).")
    elif index in ("2-", "2+") and index not in by_index and "2" in by_index:
        steps.append(f"Soil {nutrient} index {index} read as 2 (the table does not split it).")
        index = "2"
    assumed = index is None
    if assumed:
        index = target
        issues.append(
            Issue(
                "soil_test_not_given",
                Severity.warning,
                f"soil_{nutrient.lower()}",
                f"Soil {nutrient} index not given: the maintenance dose (index {index}) is"
                " shown. Test the soil: another index needs another dose.",
            )
        )
    if index not in by_index:
        steps.append(f"{oxide}: the table has no index {index}.")
        return NO_FIGURE, steps, _url(part), issues
    value, range_words = as_figure(by_index[index])
    at_yield = f" at {part['at_yield']}" if part.get("at_yield") else ""
    steps.append(
        f"{oxide}, RB209{_where(part)} “{crop_table(crop_id)['name']}”{at_yield}, index {index}:"
        f" {kg(value) if value is not None else 'no figure'} kg {oxide}/ha"
        + (f" ({range_words})" if range_words else "")
        + "."
    )
    if value is None:
        return NO_FIGURE, steps, _url(part), issues
    if index == target:
        reason = f"soil {nutrient} index not given" if assumed else f"index {index}"
        return Figure(value, MAINTENANCE, reason), steps, _url(part), issues
    return Figure(value, DOSE, f"index {index}"), steps, _url(part), issues
