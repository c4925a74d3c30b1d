"""The offline gateway: a plan computed from the reference library's cited N-P-K figures, split
by the documented rule. Every number in the plan comes from a cited figure and the
conversions the notes show; a crop without such a figure gets no plan."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from webapp.fertilizer.interactor import GatewayAnswer, NoRecommendation
from webapp.fertilizer.plan import (
    ELEMENTS,
    K_PER_K2O,
    P_PER_P2O5,
    Nutrients,
    topdress_positions,
)
from webapp.fertilizer.request import RecommendRequest, season_bands, stage_at
from webapp.fertilizer.season import season_of
from webapp.reference.library import Crop, Fact, ReferenceLibrary, library
from webapp.review.vocabulary import Issue, Severity

LB_PER_ACRE_IN_KG_PER_HA = 1.121
SHORT_TON_PER_ACRE_IN_T_PER_HA = 2.242
KG_PER_HA_IN_G_PER_M2 = 0.1
# Split rule (derived, common extension practice; agronomy-sources.md): all P and K basal;
# crops under 60 days all N basal; longer crops 30–50 % of N basal, the rest in 1–3 topdressings.
SHORT_SEASON_DAYS = 60
LONG_SEASON_CROPS = frozenset({"tomato", "cabbage", "leek", "potato"})
# (up to days, topdressings, share of N basal)
SPLITS = ((100, 1, 0.5), (150, 2, 0.4), (None, 3, 0.3))
# Soil-test adjustment of the P and K removal: a derived maintenance rule, not a citation.
SOIL_FACTORS = {"low": 1.5, "medium": 1.0, "high": 0.5}
YIELD_AT = re.compile(r"^\s*([\d.]+)\s*t/A\s*$")


@dataclass
class Requirement:
    """What the crop needs, in g/m² elemental, and how the figure was reached."""

    nutrients: Nutrients
    reference_yield_kg_m2: float | None
    sources: list[str]
    notes: list[str]
    pk_cited: bool = True
    midpoints: bool = False
    issues: list[Issue] = field(default_factory=list)
    # Worked out at the request's target yield already: not to be scaled to it again.
    at_target: bool = False


def _figure(value) -> tuple[float, bool]:
    """A stated figure or the midpoint of a stated range, and whether it was a range."""
    if isinstance(value, list | tuple):
        return (value[0] + value[1]) / 2, True
    return float(value), False


def _g(value: float) -> str:
    return f"{value:.4g}"


def _from_removal(fact: Fact) -> Requirement:
    figures = {key: _figure(fact.extra[key]) for key in ("n", "p2o5", "k2o")}
    n, p2o5, k2o = (figures[key][0] * LB_PER_ACRE_IN_KG_PER_HA for key in ("n", "p2o5", "k2o"))
    at_yield = fact.extra.get("at_yield", "")
    match = YIELD_AT.match(at_yield)
    reference_yield = (
        float(match.group(1)) * SHORT_TON_PER_ACRE_IN_T_PER_HA * 0.1 if match else None
    )
    notes = [
        f"{fact.claim}",
        f"lb/acre × {LB_PER_ACRE_IN_KG_PER_HA} = kg/ha: N {_g(n)}, P2O5 {_g(p2o5)},"
        f" K2O {_g(k2o)} kg/ha; ÷ 10 = g/m².",
        f"P = P2O5 × {P_PER_P2O5}, K = K2O × {K_PER_K2O}.",
    ]
    if reference_yield is not None:
        notes.append(
            f"Stated yield {at_yield} × {SHORT_TON_PER_ACRE_IN_T_PER_HA} = "
            f"{_g(reference_yield * 10)} t/ha = {_g(reference_yield)} kg/m²."
        )
    return Requirement(
        Nutrients(
            n * KG_PER_HA_IN_G_PER_M2,
            p2o5 * KG_PER_HA_IN_G_PER_M2 * P_PER_P2O5,
            k2o * KG_PER_HA_IN_G_PER_M2 * K_PER_K2O,
        ),
        reference_yield,
        [fact.source.url],
        notes,
        midpoints=any(ranged for _, ranged in figures.values()),
    )


def _from_uptake(fact: Fact) -> Requirement:
    figures = {key: _figure(fact.extra[key]) for key in ("n", "p", "k")}
    n, p, k = (figures[key][0] * KG_PER_HA_IN_G_PER_M2 for key in ("n", "p", "k"))
    return Requirement(
        Nutrients(n, p, k),
        None,
        [fact.source.url],
        [fact.claim, "Elemental kg/ha ÷ 10 = g/m²; ranges taken at their midpoint."],
        midpoints=any(ranged for _, ranged in figures.values()),
    )


def _from_uptake_per_tonne(fact: Fact, crop: Crop, target: float | None) -> Requirement | None:
    """Uptake per tonne of harvest times a yield: the target yield, else the midpoint of the
    crop's cited yield; without either there is nothing to multiply."""
    sources = [fact.source.url]
    yield_fact = crop.fact("yield_per_sqm_kg")
    if target is not None:
        kg_m2 = target
        how = f"the target yield {_g(target)} kg/m² = {_g(target * 10)} t/ha."
    elif yield_fact is not None and yield_fact.midpoint is not None:
        kg_m2 = yield_fact.midpoint
        setting = yield_fact.extra.get("setting")
        how = (
            f"{_g(kg_m2)} kg/m² = {_g(kg_m2 * 10)} t/ha, the midpoint of the cited"
            f" {_g(yield_fact.min or 0)}–{_g(yield_fact.max or 0)} kg/m²"
            + (f" ({setting})" if setting else "")
            + f": {yield_fact.claim}"
        )
        sources.append(yield_fact.source.url)
    else:
        return None
    t_per_ha = kg_m2 * 10
    per_ha = {e: float(fact.extra[e]) * t_per_ha for e in ("n", "p", "k")}
    return Requirement(
        Nutrients(*(per_ha[e] * KG_PER_HA_IN_G_PER_M2 for e in ("n", "p", "k"))),
        kg_m2,
        sources,
        [
            fact.claim,
            f"Yield: {how}",
            f"Uptake per t × {_g(t_per_ha)} t/ha: N {_g(per_ha['n'])}, P {_g(per_ha['p'])},"
            f" K {_g(per_ha['k'])} kg/ha; ÷ 10 = g/m² (elemental).",
        ],
        midpoints=target is None,
        at_target=target is not None,
    )


def _from_n_demand(fact: Fact, crop: Crop) -> Requirement:
    n = float(fact.min) * KG_PER_HA_IN_G_PER_M2
    reference_dt = fact.extra.get("reference_yield_dt_per_ha")
    issue = Issue(
        "pk_not_cited",
        Severity.warning,
        "P",
        f"The cited source gives only the N demand of {crop.name()}; P and K are 0 here."
        " Set them from a soil test.",
    )
    return Requirement(
        Nutrients(n, 0.0, 0.0),
        float(reference_dt) * 0.01 if reference_dt else None,
        [fact.source.url],
        [fact.claim, "N kg/ha ÷ 10 = g/m². P and K: no cited figure."],
        pk_cited=False,
        issues=[issue],
    )


def requirement_for(crop: Crop, target: float | None = None) -> Requirement | None:
    """The most complete cited figure the library holds: removal, uptake per ha, uptake per
    tonne of harvest (at the target yield, else the cited yield), then N demand."""
    removal = crop.fact("nutrient_removal_lb_per_acre")
    if removal is not None:
        return _from_removal(removal)
    uptake = crop.fact("nutrient_uptake_kg_per_ha")
    if uptake is not None:
        return _from_uptake(uptake)
    per_tonne = crop.fact("nutrient_uptake_kg_per_t")
    if per_tonne is not None:
        return _from_uptake_per_tonne(per_tonne, crop, target)
    demand = crop.fact("n_demand_kg_per_ha")
    if demand is not None:
        return _from_n_demand(demand, crop)
    return None


def _split(days: float | None, crop: Crop) -> tuple[int, float]:
    """Topdressings and the share of N given basal."""
    if days is None:
        return SPLITS[-1][1:] if crop.id in LONG_SEASON_CROPS else SPLITS[1][1:]
    if days < SHORT_SEASON_DAYS:
        return 0, 1.0
    for limit, count, share in SPLITS:
        if limit is None or days < limit:
            return count, share
    raise AssertionError("SPLITS ends with an open limit")


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
        need = requirement_for(crop, request.target_yield_kg_m2)
        if need is None:
            raise NoRecommendation(
                "no_reference_data",
                f"no reference data for {profile.name}: the library knows {crop.name()}"
                " but holds no cited N-P-K figure for it",
            )
        issues = list(need.issues)
        notes = [f"Reference crop: {crop.name()}.", *need.notes]
        confidence = 0.8 - (0.1 if need.midpoints else 0) - (0 if need.pk_cited else 0.3)
        nutrients = need.nutrients

        target = request.target_yield_kg_m2
        if target is not None and not need.at_target:
            if need.reference_yield_kg_m2:
                factor = target / need.reference_yield_kg_m2
                nutrients = nutrients.scaled(factor)
                confidence -= 0.15
                notes.append(
                    f"Scaled to the target yield {_g(target)} kg/m²: × {factor:.3f} (linear)."
                )
                if not 0.5 <= factor <= 2:
                    issues.append(
                        Issue(
                            "target_yield_far",
                            Severity.warning,
                            "target_yield",
                            f"The target yield is {factor:.2f} × the source's yield; linear"
                            " scaling is only a rough guide that far from it.",
                        )
                    )
            else:
                issues.append(
                    Issue(
                        "target_yield_not_applied",
                        Severity.warning,
                        "target_yield",
                        "The cited figure states no yield, so the plan is not scaled to the"
                        " target yield.",
                    )
                )

        soil = {"P": request.soil_p, "K": request.soil_k}
        factors = {e: SOIL_FACTORS[s] for e, s in soil.items() if s}
        if not need.pk_cited and factors:
            notes.append("Soil P/K status not applied: there is no cited P or K figure to adjust.")
        elif any(f != 1.0 for f in factors.values()):
            confidence -= 0.05
            p_factor, k_factor = factors.get("P", 1.0), factors.get("K", 1.0)
            nutrients = Nutrients(nutrients.N, nutrients.P * p_factor, nutrients.K * k_factor)
            notes.append(
                "Soil status: "
                + ", ".join(f"{e} {soil[e]} × {f}" for e, f in factors.items())
                + " (derived maintenance rule: low × 1.5, medium × 1, high × 0.5)."
            )

        season = season_of(request, crop)
        days = season.days
        notes.append(season.note)
        if season.source_url:
            need.sources.append(season.source_url)
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
        count, basal_share = _split(days, crop)
        notes.append(
            f"Split (derived extension rule): P and K basal; N {round(basal_share * 100)} % basal"
            + (f", the rest in {count} topdressing(s)." if count else " (short season).")
        )

        basal = Nutrients(nutrients.N * basal_share, nutrients.P, nutrients.K)
        if not request.organic.is_zero:
            short = [e for e in ELEMENTS if getattr(request.organic, e) > getattr(basal, e) + 1e-9]
            basal = basal.minus_floor_zero(request.organic)
            notes.append(
                "Organic inputs already applied (N-P-K g/m²: "
                + "/".join(_g(getattr(request.organic, e)) for e in ELEMENTS)
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
        if count:
            per = Nutrients(nutrients.N * (1 - basal_share) / count, 0.0, 0.0).rounded()
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
        notes.append("All figures elemental g/m²; adjust by soil test.")
        plan = {
            "crop": {"crop_id": profile.crop_id, "name": profile.name},
            "totals": totals.to_dict(),
            "applications": applications,
            "sources": list(dict.fromkeys(need.sources)),
            "confidence": round(max(0.1, min(0.9, confidence)), 2),
            "notes": "\n".join(notes),
        }
        return GatewayAnswer(plan, issues)
