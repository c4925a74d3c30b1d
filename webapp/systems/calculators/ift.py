"""IFT by the official method (MAA guide v3, April 2018): per treatment, dose applied ÷
reference dose × share treated; the reference dose for the target, else for the crop (its
smallest target dose), else IFT 1 with a warning. A mixture adds its products; herbicide,
fungicide, insecticide and other are kept apart, and biocontrol and seed treatments are reported
apart, outside the total.

A full reference-dose table is read from CSV (read_reference_doses_csv; comma, semicolon or
tab), columns by Furrow's name or the ministry's, in either of its two shapes: the table the
ministry's IFT API exports per campaign and crop group (DoseReferenceCSV in its source,
AGRILAB/ift-api: ID_campagne, Code_AMM, Biocontrole, Id_culture, Culture, Id_cible, Cible,
Id_Segment, Segment, Dose_ref, Id_unite_dose_ref, Unite_dose_ref, tab-separated), and the MAA
table per crop and target group as Agrosyst's refmaadosesrefpargroupecible holds it:
  product / nom_produit (or code_amm / Code_AMM / AMM; one of them required), crop /
  culture_maa / Culture (empty: no crop), target / groupe_cible_maa / Cible (empty: any), dose /
  dose_ref_maa / Dose_ref (required, a number as a person writes it: "0,2" or "0.2"; a blank
  Dose_ref is a product the ministry gives no dose, skipped and counted, as its own import
  takes it), unit / unit_dose_ref_maa / Unite_dose_ref (required: "L/ha", or "L_HA"),
  campagne / ID_campagne (the newest campaign's dose wins), source (required unless the import
  names it), url, claim (the sentence that states the dose). Other columns are not read.
The ministry's table names products by AMM number only; its product list per campaign
(read_product_names_csv: Nom_produit, AMM) gives their names. An imported table
(webapp.systems.doses) takes precedence over the bundled sample.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from webapp.numbers import NumberInvalid, parse_number
from webapp.problems import Invalid, Problem
from webapp.review.vocabulary import Confidence, Severity
from webapp.systems.assumptions import normalise
from webapp.systems.calculators.context import (
    Context,
    not_a_treatment,
    read_quantity,
    share_treated,
    split_list,
    stated,
)
from webapp.systems.calculators.figures import DATA, Figure
from webapp.systems.calculators.result import Result, needs, rounded, shown
from webapp.systems.document import review_state
from webapp.systems.indicators import IFT_SEGMENTS, IFT_TOTAL_SEGMENTS
from webapp.units import UnitMismatch, convert
from webapp.uploads import sniff_delimiter

# French crop names as step names write them → the names the reference tables use. Longer
# names first, so that "orge d'hiver" is not read as "orge".
CROP_NAMES = (
    ("ble tendre d'hiver", "winter soft wheat"),
    ("ble tendre", "soft wheat"),
    ("orge d'hiver", "winter barley"),
    ("orge de printemps", "spring barley"),
    ("orge", "barley"),
    ("mais ensilage", "silage maize"),
    ("mais grain", "maize"),
    ("mais", "maize"),
    ("colza", "rapeseed"),
    ("tournesol", "sunflower"),
    ("feverole", "faba bean"),
    ("betterave sucriere", "sugar beet"),
    ("betterave", "sugar beet"),
    ("luzerne", "lucerne"),
)


def crop_name(text: str | None) -> str | None:
    """The reference tables' name for a crop as written ("Blé tendre d'hiver" → "winter soft
    wheat"); English names stay."""
    if not text:
        return None
    words = normalise(text)
    for french, english in CROP_NAMES:
        if french in words or english in words:
            return english
    return words


@dataclass(frozen=True)
class ReferenceDose:
    product: str
    crop: str | None
    target: str | None
    figure: Figure
    code_amm: str | None = None  # the product's marketing authorisation number


class ReferenceDoses:
    """A reference-dose table, looked up by product (its name, its AMM number, or a name the
    product list gives that number), then target, then crop. bundled: the sample Furrow ships,
    not a full table; without_dose: the rows read that give no dose."""

    def __init__(
        self,
        doses: Iterable[ReferenceDose],
        bundled: bool = False,
        without_dose: int = 0,
        names: Mapping[str, list[str]] | None = None,
    ) -> None:
        self.by_product: dict[str, list[ReferenceDose]] = {}
        self.size = 0
        self.bundled = bundled
        self.without_dose = without_dose
        for dose in doses:
            self.size += 1
            # "- **Produit**: 8900564" finds MAVRIK FLO by its authorisation number.
            amm = dose.code_amm or ""
            keys = {dose.product, amm, *(names or {}).get(amm, ())} - {""}
            for key in dict.fromkeys(normalise(k) for k in keys):
                self.by_product.setdefault(key, []).append(dose)

    def __len__(self) -> int:
        return self.size

    def lookup(
        self, product: str, crop: str | None, target: str | None
    ) -> tuple[ReferenceDose, str] | None:
        """(dose, basis) by the official order — basis "target", "crop" or "no crop" — or None."""
        rows = self.by_product.get(normalise(product), [])
        crops = _crop_candidates(crop)
        for name in crops:
            for_crop = [r for r in rows if r.crop == name]
            if target:
                for row in for_crop:
                    if row.target and normalise(row.target) == normalise(target):
                        return row, "target"
            if for_crop:
                # The crop's dose is its smallest target dose.
                return min(for_crop, key=lambda r: r.figure.low), "crop"
        without_crop = [r for r in rows if r.crop is None]
        return (min(without_crop, key=lambda r: r.figure.low), "no crop") if without_crop else None


def _crop_candidates(crop: str | None) -> list[str]:
    """The crop, then the crop without its season ("winter soft wheat" is a soft wheat)."""
    if not crop:
        return []
    words = crop.split()
    season = words[0] in ("winter", "spring") and len(words) > 1
    return [crop, " ".join(words[1:])] if season else [crop]


def _dose(raw: dict) -> ReferenceDose:
    crop, target = raw.get("crop"), raw.get("target")
    return ReferenceDose(
        raw["product"],
        crop_name(crop) if crop else None,
        target or None,
        Figure.from_dict(raw),
        raw.get("code_amm") or None,
    )


@functools.cache
def bundled_reference_doses() -> ReferenceDoses:
    """The sample reference doses of webapp/systems/data/ift_reference_doses.json."""
    raw = json.loads((DATA / "ift_reference_doses.json").read_text(encoding="utf-8"))
    return ReferenceDoses((_dose(row) for row in raw["doses"]), bundled=True)


# Each column's names, compared without case: Furrow's first, then the ministry's (MAA; its IFT
# API's export writes Code_AMM, Culture, Cible, Dose_ref, Unite_dose_ref, ID_campagne) and
# Agrosyst's.
COLUMNS = {
    "product": ("product", "nom_produit", "produit", "nom_commercial"),
    "code_amm": ("code_amm", "amm"),
    "crop": ("crop", "culture_maa", "culture"),
    "target": ("target", "groupe_cible_maa", "cible"),
    "dose": ("dose", "dose_ref_maa", "dose_ref"),
    "unit": ("unit", "unit_dose_ref_maa", "unite_dose_ref", "unite"),
    "campaign": ("campaign", "campagne", "id_campagne"),
    "source": ("source",),
    "url": ("url",),
    "claim": ("claim",),
}
# The ministry writes units as codes: "L_HA" is L/ha.
_UNIT_CODE = re.compile(r"^(?P<amount>[A-Za-z]+)_(?P<per>[A-Za-z]+)$")


def _unit(text: str) -> str:
    match = _UNIT_CODE.match(text)
    if match is None:
        return text
    amount = match["amount"].lower()
    return f"{ {'l': 'L', 'ml': 'mL'}.get(amount, amount) }/{match['per'].lower()}"


# Where an imported table is read from: webapp.systems.doses (the database's), which builds on
# this module and so hands its reader over (read_imported_from) rather than be imported here.
_IMPORTED: list[Callable[[], ReferenceDoses | None]] = []


def read_imported_from(reader: Callable[[], ReferenceDoses | None]) -> None:
    _IMPORTED[:] = [reader]


def reference_doses() -> ReferenceDoses:
    """The table the calculator reads: the imported one when there is one, else the sample."""
    imported = _IMPORTED[0]() if _IMPORTED else None
    return bundled_reference_doses() if imported is None else imported


def _reader(text: str, columns: Mapping[str, tuple[str, ...]]) -> tuple[csv.DictReader, dict]:
    """A CSV reader of text and, for each of columns, the header's name for it (or None)."""
    text = text.removeprefix("\ufeff")
    reader = csv.DictReader(io.StringIO(text), delimiter=sniff_delimiter(text))
    header = {(name or "").strip().casefold(): name for name in reader.fieldnames or ()}
    found = {
        column: next((header[n] for n in names if n in header), None)
        for column, names in columns.items()
    }
    return reader, found


# The ministry's list of products per campaign, as its IFT service exports it (ProduitCSV in
# AGRILAB/ift-api: ID_campagne, Nom_produit, AMM): the names its dose table, by AMM number
# alone, lacks.
NAME_COLUMNS = {
    "name": COLUMNS["product"],
    "code_amm": COLUMNS["code_amm"],
    "campaign": COLUMNS["campaign"],
}


def read_product_names_csv(text: str) -> dict[str, list[str]]:
    """Each AMM number's product names, the newest campaign's first; Invalid naming every bad
    line and nothing read when one is bad."""
    reader, found = _reader(text, NAME_COLUMNS)
    missing = [c for c in ("name", "code_amm") if found[c] is None]
    if missing:
        said = ", ".join("AMM" if c == "code_amm" else c for c in missing)
        raise Invalid(f"The product names CSV lacks the columns: {said}.", code="csv")
    named: dict[str, list[tuple[str, str]]] = {}
    problems = []
    for row in reader:
        cells = {c: (row.get(name) or "").strip() if name else "" for c, name in found.items()}
        if not any(cells.values()):
            continue
        empty = [label for c, label in (("name", "name"), ("code_amm", "AMM")) if not cells[c]]
        if empty:
            line = reader.line_num
            problems.append(Problem(f"product names, line {line}: {empty[0]} is empty", ""))
            continue
        named.setdefault(cells["code_amm"], []).append((cells["campaign"], cells["name"]))
    if problems:
        raise Invalid(problems, code="csv")
    return {
        amm: list(
            dict.fromkeys(name for _, name in sorted(pairs, key=lambda p: p[0], reverse=True))
        )
        for amm, pairs in named.items()
    }


def read_reference_doses_csv(
    text: str, source: str | None = None, names: Mapping[str, list[str]] | None = None
) -> ReferenceDoses:
    """A reference-dose table from CSV text (columns in the module docstring); source names the
    table for rows without a source of their own; names, each AMM number's product names (from
    read_product_names_csv), for a table that gives numbers only. Invalid naming every bad line
    ("line 4: dose ...") and nothing read when one is bad."""
    reader, found = _reader(text, COLUMNS)
    required = ["dose", "unit", *([] if source else ["source"])]
    missing = [c for c in required if found[c] is None]
    if found["product"] is None and found["code_amm"] is None:
        missing.insert(0, "product")
    if missing:
        raise Invalid(f"The CSV lacks the columns: {', '.join(missing)}.", code="csv")
    # The ministry's own import takes a row with a blank Dose_ref: a product it gives no dose.
    blank_is_no_dose = found["dose"].casefold() == "dose_ref"
    newest: dict[tuple, tuple[str, ReferenceDose]] = {}
    problems = []
    without_dose = 0
    for row in reader:
        line = reader.line_num  # the row's last line: a quoted cell may hold a line break
        cells = {c: (row.get(name) or "").strip() if name else "" for c, name in found.items()}
        if not any(cells.values()):
            continue  # a line of empty cells
        if blank_is_no_dose and not cells["dose"]:
            without_dose += 1
            continue
        try:
            dose = _csv_dose(cells, source)
        except (NumberInvalid, ValueError) as error:
            problems.append(Problem(f"line {line}: {error}", f"line {line}"))
            continue
        key = (normalise(dose.product), dose.crop, normalise(dose.target or ""))
        if key not in newest or cells["campaign"] >= newest[key][0]:
            newest[key] = (cells["campaign"], dose)
    if problems:
        raise Invalid(problems, code="csv")
    names = names or {}
    doses = (_named(dose, names) for _, dose in newest.values())
    return ReferenceDoses(doses, without_dose=without_dose, names=names)


def _named(dose: ReferenceDose, names: Mapping[str, list[str]]) -> ReferenceDose:
    """dose under its product's name where the table gave only its AMM number."""
    known = names.get(dose.code_amm or "")
    return replace(dose, product=known[0]) if known and dose.product == dose.code_amm else dose


def _csv_dose(cells: dict[str, str], source: str | None) -> ReferenceDose:
    product = cells["product"] or cells["code_amm"]
    if not product:
        raise ValueError("product is empty")
    for column in ("unit", *([] if source else ["source"])):
        if not cells[column]:
            raise ValueError(f"{column} is empty")
    try:
        value = parse_number(cells["dose"])
    except NumberInvalid as error:
        raise ValueError(f"dose: {error}") from None
    if not value > 0:
        raise ValueError("dose must be above 0")
    unit = _unit(cells["unit"])
    described = " ".join(x for x in (product, cells["crop"], cells["target"]) if x)
    raw = {
        "product": product,
        "code_amm": cells["code_amm"] or None,
        "crop": cells["crop"] or None,
        "target": cells["target"] or None,
        "value": value,
        "unit": unit,
        "source": cells["source"] or source,
        "url": cells["url"] or None,
        "claim": cells["claim"] or f"{described} {value:g} {unit}",
    }
    return _dose(raw)


@dataclass
class DoseCoverage:
    """How many treatments the table can give a reference dose: missing counts the treatments
    of each product it has none for, by the product and crop as written."""

    treatments: int = 0
    covered: int = 0
    missing: Counter[str] = field(default_factory=Counter)

    def __add__(self, other: DoseCoverage) -> DoseCoverage:
        return DoseCoverage(
            self.treatments + other.treatments,
            self.covered + other.covered,
            self.missing + other.missing,
        )

    @property
    def summary(self) -> str:
        if not self.treatments:
            return "no treatment names a product"
        share = 100 * self.covered / self.treatments
        return (
            f"{self.covered} of {self.treatments} treatments have a reference dose ({share:.0f} %)"
        )


def dose_coverage(documents: Iterable[Mapping[str, Any]], table: ReferenceDoses) -> DoseCoverage:
    """Which treatments of the documents the table gives a reference dose. A treatment is an
    intervention naming a product that the IFT calculator would count (not another operation,
    not marked n/a for the IFT); it is covered when it states its own dose de référence or
    when the table has a dose for every product in it, as the calculator looks them up."""
    coverage = DoseCoverage()
    for document in documents:
        for step in document.get("steps") or ():
            for work in step.get("interventions") or ():
                context = Context.at(document, step, work)
                held = context.assumptions
                products = split_list(held.text("Produit"))
                if not products or _ift_not_counted(context, work):
                    continue
                coverage.treatments += 1
                if held.get("Dose de référence"):
                    coverage.covered += 1
                    continue
                crop, target = held.text("Culture"), held.text("Cible")
                absent = [p for p in products if table.lookup(p, crop_name(crop), target) is None]
                coverage.covered += not absent
                coverage.missing.update(f"{p} ({crop})" if crop else p for p in absent)
    return coverage


def _ift_not_counted(context: Context, work: Mapping[str, Any]) -> bool:
    marked = any(
        e.get("key") == "ift" and review_state(e) == "n/a" for e in work.get("values") or ()
    )
    return marked or not_a_treatment(context, Result("ift", "IFT")) is not None


def calculate(context: Context, doses: ReferenceDoses | None = None) -> Result:
    """The intervention's IFT (herbicide + fungicide + insecticide + other), every segment in
    result.parts; needs Dose (and Produit, unless a Dose de référence is stated)."""
    table = doses if doses is not None else reference_doses()
    result = Result("ift", "IFT")
    if (none := not_a_treatment(context, result)) is not None:
        return none
    held = context.assumptions
    products, applied = split_list(held.text("Produit")), split_list(held.text("Dose"))
    stated_reference = held.get("Dose de référence")
    if not applied:
        return needs(result, "Dose", *([] if products or stated_reference else ["Produit"]))
    if not products and not stated_reference:
        return needs(result, "Produit")
    if products and len(products) != len(applied):
        return needs(result, "Dose", why="one dose per product, as in “1 L/ha + 0,5 L/ha”")
    if stated_reference and len(applied) > 1:
        return needs(result, "Dose de référence", why="one per product: state them per product")
    segments = _segments(held.text("Segment"), len(applied), result)
    share = share_treated(context, result)
    crop, target = crop_name(held.text("Culture")), held.text("Cible")
    result.assumptions.extend(held.lines(["Produit", "Dose", "Culture", "Cible", "Segment"]))
    parts = dict.fromkeys(IFT_SEGMENTS, 0.0)
    fallback = False
    for index, dose_text in enumerate(applied):
        product = products[index] if products else "the product"
        reference = _reference(context, table, product, crop, target, result)
        dose = read_quantity(dose_text, f"Dose of {product}", result)
        if dose is None:
            return needs(result, "Dose", why=f"“{dose_text}” gives no number")
        if reference is None:
            fallback = True
            treatment = share
            result.calculation_steps.append(
                f"{product}: no reference dose → IFT 1 × share treated {shown(share)} = "
                f"{shown(treatment)}"
            )
            result.caveat(
                "ift_no_reference_dose",
                Severity.warning,
                f"No reference dose for {product}"
                + (f" on {crop}" if crop else "")
                + ": IFT 1 per treatment (official rule). "
                + how_to_find(table),
                product=product,
            )
        else:
            if dose.unit is None:
                result.caveat(
                    "dose_without_unit",
                    Severity.info,
                    f"{product}'s dose “{dose_text}” has no unit: read in {reference.unit}.",
                )
            applied_value = _in_unit(dose.value, dose.unit or reference.unit, reference.unit)
            if applied_value is None:
                return needs(result, "Dose", why=f"{product}'s dose must be in {reference.unit}")
            treatment = applied_value / reference.low * share
            result.calculation_steps.append(
                f"{product}: {shown(applied_value)} {reference.unit} ÷ {reference.text} × "
                f"{shown(share)} = {shown(treatment)}"
            )
        parts[segments[index]] += treatment
    result.parts = {k: rounded(v) for k, v in parts.items()}
    result.value = rounded(sum(parts[s] for s in IFT_TOTAL_SEGMENTS))
    if len(applied) > 1:
        result.calculation_steps.append(
            f"Mixture: the products' IFTs add, total {shown(result.value)}"
        )
    apart = {s: result.parts[s] for s in ("biocontrol", "seed_treatment") if result.parts[s]}
    if apart:
        result.caveat(
            "ift_reported_apart",
            Severity.info,
            "Biocontrol and seed treatments are reported apart, outside the total: "
            + ", ".join(f"{k.replace('_', ' ')} {shown(v)}" for k, v in apart.items()),
            **apart,
        )
    result.confidence = Confidence.low if fallback else Confidence.high
    return result


def how_to_find(table: ReferenceDoses) -> str:
    """What a person does so that a product without a reference dose gets one."""
    command = "“furrow import-doses FILE --names PRODUCTS”, or the IFT reference doses page"
    if table.bundled:
        return (
            f"Furrow ships a sample of {len(table)} doses: import the ministry's table of "
            f"reference doses and its product list ({command}) to count the product at its dose."
        )
    return (
        "The imported table has no dose for it: import the campaign's table with its product "
        f"list ({command}), write the product's AMM number, or state its “Dose de référence”."
    )


def _reference(
    context: Context,
    table: ReferenceDoses,
    product: str,
    crop: str | None,
    target: str | None,
    result: Result,
) -> Figure | None:
    """The reference dose: the user's stated one, else the table's by target, crop, no crop."""
    assumption = context.assumptions.get("Dose de référence")
    if assumption is not None:
        quantity = read_quantity(assumption.value, "Dose de référence", result)
        if quantity is not None and quantity.value > 0:
            stated(context, "Dose de référence", result)
            return Figure(
                quantity.value,
                quantity.value,
                quantity.unit or "",
                "Assumption",
                f"Dose de référence: {assumption.value}",
            )
    found = table.lookup(product, crop, target)
    if found is None:
        return None
    row, basis = found
    result.sources.append(row.figure.evidence())
    result.calculation_steps.append(
        f"{product}: reference dose {row.figure.text} ({basis}"
        + (f": {row.crop}" if row.crop else "")
        + (f", {row.target}" if basis == "target" else "")
        + f"; {row.figure.source})"
    )
    if basis != "target" and target:
        result.caveat(
            "ift_reference_not_for_target",
            Severity.info,
            f"No reference dose for {product} against {target}: the {basis} dose is used.",
        )
    return row.figure


def _in_unit(value: float, unit: str, wanted: str) -> float | None:
    if unit.replace(" ", "") == wanted.replace(" ", ""):
        return value
    try:
        return convert(value, unit, wanted)
    except UnitMismatch:
        return None


def _segments(text: str | None, count: int, result: Result) -> list[str]:
    """One segment per product: "herbicide", or "herbicide + fungicide"; "other" with a warning
    when none is stated."""
    given = [s.replace(" ", "_").casefold() for s in split_list(text)]
    if len(given) == 1:
        given *= count
    if len(given) == count and all(s in IFT_SEGMENTS for s in given):
        return given
    result.caveat(
        "ift_segment_unknown",
        Severity.warning,
        "The treatment's segment (herbicide, fungicide, insecticide, other, biocontrol, seed "
        "treatment) is not stated: it is counted as other.",
        given=text,
    )
    return ["other"] * count
