"""The offline gateway: a plan from the method the region's growers are advised by (the DüV
and VDLUFA in Germany, RB209 in the UK, the published extension recommendation elsewhere), split
by the documented rule. Every dose comes from a cited table row the notes show; a figure the
library holds that is no dose (a crop's removal, an N demand before Nmin) is shown labelled for
what it is, never as the recommendation; a crop no method covers gets no plan, saying so."""

from __future__ import annotations

import math
import re

from webapp.fertilizer.dose import DOSE, NUTRIENTS
from webapp.fertilizer.interactor import GatewayAnswer, NoRecommendation
from webapp.fertilizer.methods import dose_for
from webapp.fertilizer.plan import (
    ELEMENTS,
    K_PER_K2O,
    P_PER_P2O5,
    Nutrients,
    k2o,
    p2o5,
    topdress_positions,
)
from webapp.fertilizer.regions import ELSEWHERE, GERMANY, UK, region_of
from webapp.fertilizer.request import RecommendRequest, season_bands, stage_at
from webapp.fertilizer.season import season_of
from webapp.reference.library import Crop, ReferenceLibrary, library
from webapp.review.vocabulary import Issue, Severity

LB_PER_ACRE_IN_KG_PER_HA = 1.121
SHORT_TON_PER_ACRE_IN_T_PER_HA = 2.242
TONS_PER_ACRE = re.compile(r"^\s*([\d.]+)\s*t/A\s*$")
# Split rule (derived, common extension practice; agronomy-sources.md): all P and K basal;
# crops under 60 days all N basal; longer crops 30–50 % of N basal, the rest in 1–3 topdressings.
SHORT_SEASON_DAYS = 60
LONG_SEASON_CROPS = frozenset({"tomato", "cabbage", "leek", "potato"})
# (up to days, topdressings, share of N basal)
SPLITS = ((100, 1, 0.5), (150, 2, 0.4), (None, 3, 0.3))
REGION_WORDS = {
    GERMANY: "the region is in Germany",
    UK: "the region is in England, Wales or Northern Ireland",
    ELSEWHERE: "no method of its own for the region",
}
# On sand, N leaches: one more, smaller topdressing (derived, common extension practice).
SAND_SHARE_LESS = 0.1


def _range(value) -> str:
    if isinstance(value, list | tuple):
        return f"{value[0]:g}–{value[1]:g}"
    return f"{value:g}"


def _kg(pounds) -> str:
    """lb/acre (a figure or a range) as kg/ha."""
    if isinstance(pounds, list | tuple):
        return "–".join(f"{v * LB_PER_ACRE_IN_KG_PER_HA:.0f}" for v in pounds)
    return f"{pounds * LB_PER_ACRE_IN_KG_PER_HA:.0f}"


def not_doses(crop: Crop) -> list[str]:
    """The library's nutrient figures for the crop that are no dose, each labelled for what it
    is, elemental or oxide, in kg/ha."""
    labelled = []
    removal = crop.fact("nutrient_removal_lb_per_acre")
    if removal is not None:
        n, p, k = (_kg(removal.extra[key]) for key in ("n", "p2o5", "k2o"))
        at = removal.extra.get("at_yield", "")
        match = TONS_PER_ACRE.match(at)
        at_words = (
            f"{float(match.group(1)) * SHORT_TON_PER_ACRE_IN_T_PER_HA:.0f} t/ha" if match else at
        )
        labelled.append(
            f"Crop removal at {at_words}: N {n}, P2O5 {p}, K2O {k} kg/ha (oxides; lb/acre ×"
            f" {LB_PER_ACRE_IN_KG_PER_HA}) — not a dose. {removal.source.url}"
        )
    uptake = crop.fact("nutrient_uptake_kg_per_ha")
    if uptake is not None:
        n, p, k = (_range(uptake.extra[key]) for key in ("n", "p", "k"))
        basis = uptake.extra.get("basis", "unstated")
        labelled.append(
            f"{uptake.extra.get('kind', 'Uptake')}: N {n}, P {p}, K {k} kg/ha"
            f" (P and K {'basis not stated' if basis == 'unstated' else basis}) — not a dose for"
            f" this field. {uptake.source.url}"
        )
    per_tonne = crop.fact("nutrient_uptake_kg_per_t")
    if per_tonne is not None:
        n, p, k = (_range(per_tonne.extra[key]) for key in ("n", "p", "k"))
        labelled.append(
            f"Uptake per tonne of harvest: N {n}, P {p}, K {k} kg/t (elemental) — not a dose."
            f" {per_tonne.source.url}"
        )
    demand = crop.fact("n_demand_kg_per_ha")
    if demand is not None:
        labelled.append(
            f"DüV N demand {demand.min:g} kg N/ha at"
            f" {demand.extra.get('reference_yield_dt_per_ha', '?')} dt/ha: before the soil's"
            f" Nmin is subtracted — not a dose. {demand.source.url}"
        )
    return labelled


def _overlap(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return a[0] <= b[1] and b[0] <= a[1]


def agreeing_reading(crop: Crop, element: str, stated, target: float | None) -> str | None:
    """Which reading of a figure of unstated basis (elemental or oxide) agrees with the crop's
    cited uptake per tonne at the yield (the target, else the crop's cited yield range):
    "elemental", "oxide", or None when both or neither agree, or nothing is cited to judge."""
    per_tonne = crop.fact("nutrient_uptake_kg_per_t")
    yield_fact = crop.fact("yield_per_sqm_kg")
    if per_tonne is None or element.lower() not in per_tonne.extra:
        return None
    if target is not None:
        tonnes = (target * 10, target * 10)
    elif yield_fact is not None and yield_fact.min is not None and yield_fact.max is not None:
        tonnes = (yield_fact.min * 10, yield_fact.max * 10)
    else:
        return None
    rate = per_tonne.extra[element.lower()]
    low, high = (rate[0], rate[1]) if isinstance(rate, list | tuple) else (rate, rate)
    uptake = (low * tonnes[0], high * tonnes[1])
    factor = P_PER_P2O5 if element == "P" else K_PER_K2O
    readings = {
        "elemental": (stated[0], stated[1]),
        "oxide": (stated[0] * factor, stated[1] * factor),
    }
    agree = [name for name, span in readings.items() if _overlap(span, uptake)]
    if not agree:
        # Neither meets the uptake: the nearer one (by ratio) is the plausible reading.
        middle = math.sqrt(uptake[0] * uptake[1])
        agree = [
            min(
                readings,
                key=lambda n: abs(math.log(math.sqrt(readings[n][0] * readings[n][1]) / middle)),
            )
        ]
    return agree[0] if len(agree) == 1 else None


def basis_uncertain(crop: Crop, target: float | None = None) -> list[Issue]:
    """A library figure whose source does not say elemental or oxide: both readings shown, and
    the one that agrees with the crop's cited uptake per tonne named; neither is a dose."""
    uptake = crop.fact("nutrient_uptake_kg_per_ha")
    if uptake is None or uptake.extra.get("basis") != "unstated":
        return []
    p, k = uptake.extra["p"], uptake.extra["k"]
    as_p2o5 = [round(p2o5(v)) for v in p]
    as_k2o = [round(k2o(v)) for v in k]
    judged = []
    for element, stated in (("P", p), ("K", k)):
        reading = agreeing_reading(crop, element, stated, target)
        if reading is not None:
            judged.append(
                f"{element}: the {reading} reading is the one the crop's cited uptake per tonne"
                " of harvest bears out"
            )
        elif crop.fact("nutrient_uptake_kg_per_t") is not None:
            judged.append(f"{element}: the cited uptake per tonne does not tell the readings apart")
    return [
        Issue(
            "basis_uncertain",
            Severity.warning,
            "P",
            f"The source writes P {_range(p)} and K {_range(k)} kg/ha without saying elemental"
            f" or oxide: read as oxides, P2O5 {_range(p)} and K2O {_range(k)}; read as elements,"
            f" P2O5 {_range(as_p2o5)} and K2O {_range(as_k2o)} kg/ha."
            + (f" {'; '.join(judged)}." if judged else "")
            + " Neither reading is used as a dose.",
        )
    ]


def _split(days: float | None, crop: Crop, texture: str | None = None) -> tuple[int, float]:
    """Topdressings and the share of N given basal; on sand one more and a smaller basal."""
    if days is not None and days < SHORT_SEASON_DAYS:
        return 0, 1.0
    if days is None:
        count, share = SPLITS[-1][1:] if crop.id in LONG_SEASON_CROPS else SPLITS[1][1:]
    else:
        count, share = next(split for split in SPLITS if split[0] is None or days < split[0])[1:]
    if texture == "sand":
        return count + 1, round(share - SAND_SHARE_LESS, 2)
    return count, share


def _hint(position: float, bands, days: float | None) -> str:
    stage = stage_at(bands, position)
    day = f"day ~{round(position * days)}" if days else f"{round(position * 100)} % into the season"
    return f"{stage}, {day}" if stage else day


class ReferenceGateway:
    name = "reference"
    model = None

    def __init__(self, reference: ReferenceLibrary | None = None) -> None:
        self.library = reference or library()

    def find_crop(self, request: RecommendRequest) -> Crop | None:
        profile = request.profile
        return self.library.resolve(profile.name, profile.variety) or self.library.resolve(
            profile.crop_id
        )

    def recommend(self, request: RecommendRequest) -> GatewayAnswer:
        profile = request.profile
        crop = self.find_crop(request)
        if crop is None:
            raise NoRecommendation("no_reference_data", f"no reference data for {profile.name}")
        dose = dose_for(crop.id, request)
        labelled = not_doses(crop)
        if dose is None:
            where = f" in {request.region}" if request.region else " without a region"
            known = f" The library holds: {' '.join(labelled)}" if labelled else ""
            raise NoRecommendation(
                "no_cited_method",
                f"no cited method for {crop.name()}{where}: no method the region follows, and"
                f" no published recommendation, gives it a dose.{known}",
            )
        issues = [*dose.issues, *basis_uncertain(crop, request.target_yield_kg_m2)]
        notes = [
            f"Reference crop: {crop.name()}.",
            f"Method: {dose.method} ({REGION_WORDS[region_of(request.region)]}).",
            *dose.steps,
            "Totals: "
            + "; ".join(f"{n} {dose.figure(n).label}" for n in NUTRIENTS)
            + ". Elemental g/m² = kg/ha ÷ 10; P = P2O5 × 0.4364, K = K2O × 0.8301.",
        ]
        if labelled:
            notes.append("Other figures in the library (not doses): " + " ".join(labelled))
        unsure = sum(dose.figure(n).kind != DOSE or dose.figure(n).value is None for n in NUTRIENTS)
        confidence = 0.8 - 0.1 * unsure
        nutrients = dose.elemental

        season = season_of(request, crop)
        days = season.days
        notes.append(season.note)
        sources = list(dose.sources)
        if season.source_url:
            sources.append(season.source_url)
        if days is None:
            confidence -= 0.05
            issues.append(
                Issue(
                    "season_unknown",
                    Severity.info,
                    "growth_period_days",
                    "The growth period is unknown; the split assumes a"
                    f" {'long' if crop.id in LONG_SEASON_CROPS else 'medium'} season.",
                )
            )
        count, basal_share = _split(days, crop, request.soil_texture)
        notes.append(
            f"Split (derived extension rule): P and K basal; N {round(basal_share * 100)} % basal"
            + (f", the rest in {count} topdressing(s)" if count else " (short season)")
            + (
                " — on sand one more, smaller topdressing."
                if request.soil_texture == "sand" and count
                else "."
            )
        )
        n_total = None if nutrients.N is None else round(nutrients.N, 2)
        # The topdressings are rounded as applied and the basal dose takes the rest, so the
        # total stays the method's figure.
        per_topdress = round(n_total * (1 - basal_share) / count, 2) if count and n_total else 0
        basal = Nutrients(
            None if n_total is None else round(n_total - per_topdress * count, 2),
            nutrients.P,
            nutrients.K,
        )
        if not request.organic.is_zero:
            short = [
                e
                for e in ELEMENTS
                if getattr(basal, e) is not None
                and getattr(request.organic, e) > getattr(basal, e) + 1e-9
            ]
            basal = basal.minus_floor_zero(request.organic)
            notes.append(
                "Organic inputs already applied (N-P-K g/m²: "
                + "/".join(f"{getattr(request.organic, e):.4g}" for e in ELEMENTS)
                + ") are subtracted from the basal dose."
            )
            if short:
                issues.append(
                    Issue(
                        "organic_exceeds_basal",
                        Severity.warning,
                        "organic",
                        f"The organic inputs exceed the basal {', '.join(short)}; the basal dose"
                        " stops at zero and the topdressings are not reduced.",
                    )
                )
        applications = [
            {
                "type": "basal",
                "count": 1,
                "schedule_hint": "pre-plant",
                "nutrients": basal.rounded().to_dict(),
                "per_application": basal.rounded().to_dict(),
            }
        ]
        totals = basal.rounded()
        if count and n_total is not None:
            per = Nutrients(per_topdress, 0.0, 0.0)
            group = per.scaled(count).rounded()
            bands = season_bands(profile.stages)
            applications.append(
                {
                    "type": "topdress",
                    "count": count,
                    "schedule_hint": "; ".join(
                        _hint(p, bands, days) for p in topdress_positions(count)
                    ),
                    "nutrients": group.to_dict(),
                    "per_application": per.to_dict(),
                }
            )
            totals = (totals + group).rounded()
        plan = {
            "crop": {"crop_id": profile.crop_id, "name": profile.name},
            "totals": totals.to_dict(),
            "applications": applications,
            "sources": list(dict.fromkeys(sources)),
            "confidence": round(max(0.1, min(0.9, confidence)), 2),
            "notes": "\n".join(notes),
            "method": dose.method,
            "basis": dose.basis,
        }
        return GatewayAnswer(plan, issues)
