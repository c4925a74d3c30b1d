"""Every figure in the bundled method tables stands in the verbatim quote of the source it was
read from (as printed: German decimal commas, lb/acre before conversion), so a transcription
slip cannot become a dose."""

import re

import pytest

from webapp.fertilizer.tables import table


def numbers(text: str) -> set[float]:
    """The numbers a quote prints, "6,90" and "6.9" alike."""
    return {float(n.replace(",", ".")) for n in re.findall(r"\d+(?:[.,]\d+)?", text or "")}


def cells(value) -> list[float]:
    if value is None:
        return []
    if isinstance(value, list):
        return [v for cell in value for v in cells(cell)]
    return [float(value)]


def test_every_duev_row_prints_its_yield_and_n_demand():
    data = table("duev")
    for group in ("arable", "vegetables"):
        for crop, row in data[group].items():
            printed = numbers(row["quote"])
            assert row["yield_dt_per_ha"] in printed, (crop, row["quote"])
            assert row["n_demand_kg_per_ha"] in printed, (crop, row["quote"])


def test_every_removal_figure_is_printed_per_dt_or_per_100_dt():
    for crop, row in table("duev")["removal"].items():
        printed = numbers(row["quote"])
        for key in ("n_kg_per_dt", "p2o5_kg_per_dt"):
            if row.get(key) is None:
                continue
            value = row[key]
            assert value in printed or round(value * 100, 2) in printed, (crop, key, row["quote"])


def test_every_rb209_cell_is_printed_in_its_tables_quote():
    for crop, entry in table("rb209")["crops"].items():
        for part in ("n", "p2o5", "k2o"):
            source = entry.get(part) or {}
            if not source.get("quote"):
                continue
            rows = source.get("by_soil") or {}
            values = [v for row in rows.values() for v in cells(row)]
            values += [v for cell in (source.get("by_index") or {}).values() for v in cells(cell)]
            printed = numbers(source["quote"])
            assert not [v for v in values if v not in printed], (crop, part)


@pytest.mark.parametrize("crop", sorted(table("published")["ranges"]))
def test_every_published_range_is_printed_in_its_quote_before_conversion(crop):
    for entry in table("published")["ranges"][crop]:
        printed = numbers(entry["quote"]) | numbers(entry.get("as_stated", ""))
        conversion = entry.get("conversion") or ""
        for key in ("n", "p2o5", "k2o"):
            factor = 1.121 if "1.121" in conversion else 1 / 0.8 if "0.8 =" in conversion else 1
            if key != "n" and "0.4364" in conversion:
                factor /= 0.4364 if key == "p2o5" else 0.8301
            for bound in cells(entry.get(key)):
                stated = bound / factor
                assert any(abs(stated - p) <= 0.6 for p in printed | {0.0}), (
                    crop,
                    entry["source"],
                    key,
                    bound,
                )
