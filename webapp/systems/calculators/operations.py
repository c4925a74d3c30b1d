"""Fuel (L/ha), work time (h/ha) and machinery cost (€/ha) of a field operation, from the cited
figures per operation type, the user's assumptions first: a stated figure or work rate wins."""

from __future__ import annotations

import re
from typing import Any

from webapp.review.vocabulary import Confidence, Evidence, Severity
from webapp.systems.assumptions import Assumption, normalise, operation_id, operation_label
from webapp.systems.calculators.context import Context, stated, stated_wins
from webapp.systems.calculators.figures import (
    Figure,
    assumption_evidence,
    cited,
    figures,
    others,
    use,
)
from webapp.systems.calculators.result import Result, needs, rounded, shown

# Words around a soil's name that do not name its texture ("sol argileux", "clay soil").
_SOIL_WORDS = frozenset({"sol", "sols", "terre", "terres", "type", "de", "soil", "soils", "a"})


def is_clay(soil: str) -> bool:
    """Whether soil names a clay soil by its main noun: French puts it first ("argile
    limoneuse", "sol argileux", "argilo-calcaire"), English last ("silty clay", "heavy clay
    soil"). A loam with some clay ("limon argileux", "clay loam") is a loam."""
    words = [w for w in normalise(soil).split() if w not in _SOIL_WORDS]
    return bool(words) and (words[0].startswith("argil") or words[-1] in ("clay", "clays"))


def operation(context: Context, result: Result) -> str | None:
    """The operation type that holds ("Opération"), recorded in the result's assumptions, with
    the crop when the crop makes it another machine's (a maize harvest)."""
    assumption = context.assumptions.get("Opération")
    if assumption is None:
        return None
    kind = operation_kind(context)
    crop = context.assumptions.get("Culture") if kind in _MAIZE_KINDS else None
    for each in (assumption, crop) if crop else (assumption,):
        line = f"{each.key}: {each.value} ({each.level})"
        if line not in result.assumptions:
            result.assumptions.append(line)
    return kind


def operation_kind(context: Context) -> str | None:
    """The operation type "Opération" names; a harvest of maize is a maize harvester's
    (forage harvester for silage, combine with a corn header for grain), never the cereal
    combine's, whose figures are for another machine and crop."""
    written = context.assumptions.text("Opération")
    if written is None:
        return None
    kind = operation_id(written)
    if kind not in _HARVESTS:
        return kind
    words = normalise(f"{context.assumptions.text('Culture') or ''} {written}")
    if not _MAIZE.search(words):
        return kind
    return "ensilage_mais" if "ensil" in words or "silage" in words else "moisson_mais"


_HARVESTS = ("moisson", "ensilage")
_MAIZE = re.compile(r"(?<!\w)(?:mais|maize|corn)(?!\w)")
_MAIZE_KINDS = {"moisson_mais": "Récolte maïs grain", "ensilage_mais": "Ensilage maïs"}


def _label(context: Context, kind: str) -> str:
    written = context.assumptions.text("Opération") or ""
    return _MAIZE_KINDS.get(kind) or operation_label(kind, written)


def fuel(context: Context) -> Result:
    """gnr in L/ha: a stated figure; else a stated L/h over the work rate; else the cited
    figure for the operation type (×2 on clay for tillage, as the source says); else its cited
    L/h over the stated or cited work rate."""
    result = Result("gnr", "L/ha")
    written = context.assumptions.quantity("Carburant")
    if written is not None and (written.unit or "").replace(" ", "").endswith("/h"):
        return _per_hectare(context, result, stated(context, "Carburant", result, "L/h"))
    if (given := stated_wins(context, result, "Carburant", "L/ha")) is not None:
        return given
    kind = operation_kind(context)
    if kind and cited("fuel", kind) is None and (hourly := cited("fuel_per_hour", kind)):
        return _cited_hourly(context, result, kind, hourly)
    if (found := _cited_for(context, result, "fuel", "Carburant")) is None:
        return result
    kind, figure = found
    value = use(result, figure, f"Fuel for {_label(context, kind)}")
    value = _on_clay(context, kind, value, result)
    if figure.bound == "upper":
        result.caveat(
            "cited_upper_bound",
            Severity.warning,
            f"The source gives an upper bound, {figure.text} ({figure.claim}): the bound is used.",
        )
    # The others are beside the general figure; a variant chosen for the machine replaces them.
    for other in others("fuel", kind) if figure == cited("fuel", kind) else ():
        result.caveat(
            "other_cited_figure",
            Severity.info,
            f"Another source gives {other.text}: {other.claim} ({other.source}).",
        )
    result.value = rounded(value)
    exact = not figure.is_range and figure.bound is None
    result.confidence = Confidence.medium if exact else Confidence.low
    return result


def _cited_for(
    context: Context, result: Result, table: str, missing: str
) -> tuple[str, Figure] | None:
    """(operation type, its cited figure in table); None when either lacks, result then
    needing the operation or the missing input."""
    kind = operation(context, result)
    if kind is None:
        needs(result, "Opération")
        return None
    figure = _variant(context, result, table, kind) or cited(table, kind)
    if figure is None:
        needs(result, missing, why=_no_figure(context, table.replace("_", " "), kind))
        return None
    return kind, figure


def _no_figure(context: Context, what: str, kind: str) -> str:
    """Why no value is proposed: no cited figure of that kind for the operation."""
    why = f"no cited {what} for {_label(context, kind)}"
    if kind in _MAIZE_KINDS:
        why += "; the cited harvest figures are a cereal combine's, not a maize harvester's"
    return why


def _variant(context: Context, result: Result, table: str, kind: str) -> Figure | None:
    """The cited figure for the stated soil, number of furrows, power or machine when the
    source gives one for them (ploughing a light soil with 5 or 7 furrows; a combine's power;
    a disc stubble cultivator)."""
    entry = figures().get(table, {}).get(kind, {})
    soil = set(normalise(context.assumptions.text("Sol") or "").split())
    furrows, power = _count(context, "Corps", _FURROWS), _count(context, "Puissance", _POWER)
    if kind in _SELF_PROPELLED and _tractors(context.assumptions.get("Puissance")):
        power = None  # the tractor's power is not the combine's
    machine = context.assumptions.text("Matériel") or ""
    for variant in entry.get("variants", ()):
        if _fits(variant, soil, furrows, power, machine):
            result.assumptions.append(f"Variant: {variant['label']}")
            return Figure.from_dict(variant["figure"])
    return None


def _fits(
    variant: dict,
    soil: set[str],
    furrows: float | None,
    power: float | None,
    machine: str,
) -> bool:
    if variant.get("soil") and not soil & set(variant["soil"]):
        return False
    if variant.get("words") and not _names(variant["words"], machine):
        return False
    if "furrows" in variant and furrows != variant["furrows"]:
        return False
    if "min_hp" in variant and (power is None or power < variant["min_hp"]):
        return False
    return "max_hp" not in variant or (power is not None and power <= variant["max_hp"])


# "Tracteur 150 CV + charrue 4 corps": the power and furrows written in the equipment.
_POWER = re.compile(r"(\d+)\s*(?:cv|ch|hp)\b", re.IGNORECASE)
_FURROWS = re.compile(r"(\d+)\s*(?:corps|furrows?|bottoms?)\b", re.IGNORECASE)


# Machines with their own engine, whose power a tractor's does not give.
_SELF_PROPELLED = ("moisson",)


def _tractors(power: Assumption | None) -> bool:
    """Whether the power was written as a tractor's ("- **Tracteur**: 150 CV")."""
    return power is not None and "tract" in normalise(power.written_key)


def _count(context: Context, key: str, pattern: re.Pattern[str]) -> float | None:
    """The number key states ("150 CV", or a bare "150"), else the one the equipment
    ("Matériel") writes for it; never a model number ("Tracteur: John Deere 6155R")."""
    for written in (context.assumptions.text(key), context.assumptions.text("Matériel")):
        if written and (match := pattern.search(written)):
            return float(match.group(1))
    quantity = context.assumptions.quantity(key)
    if quantity is None or quantity.unit is not None or quantity.bounds is not None:
        return None  # "4-5 corps" chooses no figure: a variant is for one count
    return quantity.value


def _cited_hourly(context: Context, result: Result, kind: str, hourly: Figure) -> Result:
    """The cited L/h of the operation over its stated or cited work rate."""
    operation(context, result)
    per_hour = use(result, hourly, f"Fuel per hour for {_label(context, kind)}")
    return _per_hectare(context, result, per_hour)


def _per_hectare(context: Context, result: Result, per_hour: float | None) -> Result:
    """A fuel use in L/h (stated or cited) over the stated or cited work rate."""
    rate = _work_rate(context, result)
    if per_hour is None or rate is None:
        return needs(result, "Débit de chantier", why="to turn L/h into L/ha")
    result.value = rounded(per_hour / rate)
    result.calculation_steps.append(
        f"{shown(per_hour)} L/h ÷ {shown(rate)} ha/h = {shown(result.value)} L/ha"
    )
    result.confidence = Confidence.medium
    return result


def _on_clay(context: Context, kind: str, value: float, result: Result) -> float:
    soil = context.assumptions.get("Sol")
    factor = cited("clay_factor")
    applies = figures()["clay_factor"]["applies_to"]
    if soil is None or factor is None or kind not in applies:
        return value
    if not is_clay(soil.value):
        return value
    result.assumptions.append(f"Sol: {soil.value} ({soil.level})")
    result.sources.append(factor.evidence())
    result.calculation_steps.append(
        f"Clay soil: {shown(value)} × {shown(factor.low)} = {shown(value * factor.low)} L/ha "
        f"({factor.claim}; {factor.source})"
    )
    result.caveat(
        "clay_factor",
        Severity.info,
        "The cited figure is taken as a loam's and doubled for clay, as the source says.",
    )
    return value * factor.low


def _work_rate(context: Context, result: Result) -> float | None:
    """ha/h: the stated work rate, else the cited one for the operation type."""
    rate = stated(context, "Débit de chantier", result, "ha/h")
    if rate is not None and rate > 0:
        return rate
    found = _cited_for(context, result, "work_rate", "Débit de chantier")
    if found is None:
        return None
    return use(result, found[1], f"Work rate for {_label(context, found[0])}")


def work_time(context: Context) -> Result:
    """tempsTravail in h/ha: a stated time; else 1 ÷ the stated or cited work rate (a cited
    range gives the range of times and their midpoint)."""
    result = Result("tempsTravail", "h/ha")
    if (given := stated_wins(context, result, "Temps de travail", "h/ha")) is not None:
        return given
    rate = stated(context, "Débit de chantier", result, "ha/h")
    if rate is not None and rate > 0:
        result.value, result.confidence = rounded(1 / rate), Confidence.high
        result.calculation_steps.append(f"1 ÷ {shown(rate)} ha/h = {shown(result.value)} h/ha")
        return result
    if (found := _cited_for(context, result, "work_rate", "Débit de chantier")) is None:
        return result
    kind, figure = found
    # The time of a range of rates is the range of their inverses.
    as_time = Figure(1 / figure.high, 1 / figure.low, "h/ha", figure.source, figure.claim)
    result.calculation_steps.append(
        f"Work rate for {_label(context, kind)}: {figure.text} ({figure.source})"
    )
    result.value = rounded(use(result, as_time, "Work time = 1 ÷ work rate"))
    result.confidence = Confidence.low if figure.is_range else Confidence.medium
    return result


def machinery_cost(context: Context) -> Result:
    """mecanisation in €/ha: a stated cost; else the barème figure for the operation type,
    chosen by the stated equipment ("Matériel") and width ("Largeur"); several that fit give
    their range."""
    result = Result("mecanisation", "€/ha")
    if (given := stated_wins(context, result, "Coût machine", "€/ha")) is not None:
        if fuel_in_machinery_cost(context) is not None:
            given.calculation_steps.append(_NO_FUEL_ON_TOP)
        return given
    kind = operation(context, result)
    if kind is None:
        return needs(result, "Opération")
    options = _fitting(context, figures()["machinery"].get(kind, []), result)
    if not options:
        return needs(result, "Coût machine", why=_no_figure(context, "machinery cost", kind))
    chosen = [Figure.from_dict(o["figure"]) for o in options]
    if len(chosen) == 1:
        figure = chosen[0]
    else:
        figure = Figure(
            min(f.low for f in chosen),
            max(f.high for f in chosen),
            "€/ha",
            "; ".join(dict.fromkeys(f.source for f in chosen)),
            " / ".join(f.claim for f in chosen),
        )
        result.caveat(
            "machinery_not_chosen",
            Severity.info,
            "Several machines fit: "
            + ", ".join(o["label"] for o in options)
            + "; state “Matériel” (or “Largeur”) to choose one.",
        )
    value = use(result, figure, f"Machinery cost for {' or '.join(o['label'] for o in options)}")
    if len(chosen) > 1:
        # The range's sources are the figures it spans, each with its own claim.
        result.sources[-1:] = [f.evidence() for f in chosen]
    if any(o.get("implement_only") for o in options):
        result.caveat(
            "implement_only",
            Severity.warning,
            "The cited cost is the implement's alone: tractor and driver are not included.",
        )
    if all(o.get("includes_fuel") for o in options):
        result.calculation_steps.append(_NO_FUEL_ON_TOP)
    result.value = rounded(value)
    result.confidence = Confidence.low
    return result


_NO_FUEL_ON_TOP = "The cost includes fuel: the fuel cost is not added to it."


def fuel_in_machinery_cost(context: Context) -> tuple[str, Evidence] | None:
    """(the machinery cost in words, its evidence) when it includes fuel: a stated "Coût
    machine" that says so ("60 €/ha carburant compris"), or the cited job in full the
    calculator would use, the intervention's own machinery value, if any, being that figure (a
    value from elsewhere does not say what it covers); None otherwise."""
    written = context.assumptions.get("Coût machine")
    if written is not None:
        if not _names(_FUEL_INCLUDED, written.value):
            return None
        return f"stated, {written.value}", assumption_evidence(written.key, written.value)
    kind = operation_kind(context)
    options = _fitting(context, figures()["machinery"].get(kind or "", []), Result("", ""))
    if len(options) != 1 or not options[0].get("includes_fuel"):
        return None
    figure = Figure.from_dict(options[0]["figure"])
    known = context.value("mecanisation")
    if known is not None and not figure.low <= known <= figure.high:
        return None
    return f"{figure.text} ({figure.claim}; {figure.source})", figure.evidence()


# How a stated cost says it includes fuel.
_FUEL_INCLUDED = (
    "carburant compris",
    "gnr compris",
    "fioul compris",
    "avec carburant",
    "fuel included",
    "including fuel",
    "incl. fuel",
)


def _fitting(context: Context, options: list[dict[str, Any]], result: Result) -> list[dict]:
    """The options the stated equipment words allow (unnamed, those that are not named_only),
    then the stated width among them (all of them when none fits)."""
    equipment = context.assumptions.get("Matériel")
    written = equipment.value if equipment else ""
    named = [o for o in options if _names(o.get("words", ()), written)]
    if named:
        result.assumptions.append(f"Matériel: {equipment.value} ({equipment.level})")
        options = named
    else:
        options = [o for o in options if not o.get("named_only")]
    width = stated(context, "Largeur", result, "m") if context.assumptions.get("Largeur") else None
    if width is not None:
        by_width = [o for o in options if _width_fits(o, width)]
        if by_width:
            return by_width
    return options


def _names(words: Any, written: str) -> bool:
    """Whether written names one of words, whole (or with a plural s): "dent" is not in
    "indépendants"."""
    text = normalise(written)
    return any(re.search(rf"(?<!\w){re.escape(w)}s?(?!\w)", text) for w in words)


def _width_fits(option: dict[str, Any], width: float) -> bool:
    """Whether width is in the option's: from min_width_m, below max_width_m, up to up_to_m."""
    return option.get("min_width_m", 0) <= width < option.get(
        "max_width_m", float("inf")
    ) and width <= option.get("up_to_m", float("inf"))
