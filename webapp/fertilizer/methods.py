"""The method a plan's doses come from, picked by region: Germany → the DüV for N and the
VDLUFA soil classes for P and K; England, Wales and Northern Ireland → RB209 for all three;
elsewhere → the crop's published extension recommendation. Whatever the method, the figures
are checked against every published range for the crop."""

from __future__ import annotations

from webapp.fertilizer import duev, published, rb209, rules, vdlufa
from webapp.fertilizer.dose import Dose
from webapp.fertilizer.regions import GERMANY, UK, region_of
from webapp.fertilizer.request import RecommendRequest

DT_PER_KG_M2 = 100


def _germany(crop_id: str, request: RecommendRequest) -> Dose | None:
    yield_dt = request.target_yield_kg_m2 * DT_PER_KG_M2 if request.target_yield_kg_m2 else None
    n = duev.n_dose(
        crop_id,
        yield_dt,
        request.nmin,
        request.humus_pct,
        request.previous_crop,
        request.organic_n_last_year,
    )
    row = duev.row_of(crop_id)
    at = yield_dt or (float(row["yield_dt_per_ha"]) if row else None)
    dose = n or Dose(duev.METHOD)
    dose.method = f"{duev.METHOD} (N) · {vdlufa.METHOD} (P, K)"
    return _with_pk(dose, request, lambda oxide, status: vdlufa.pk_dose(crop_id, oxide, status, at))


def _with_pk(dose: Dose, request: RecommendRequest, pk) -> Dose:
    """The dose with P2O5 and K2O from pk(oxide, soil status), and their steps and checks."""
    for oxide, status in (("P2O5", request.soil_p), ("K2O", request.soil_k)):
        figure, steps, sources, issues = pk(oxide, status)
        setattr(dose, oxide, figure)
        dose.steps += steps
        dose.sources += [s for s in sources if s]
        dose.issues += issues
    return dose


def _uk(crop_id: str, request: RecommendRequest) -> Dose | None:
    dose = rb209.n_dose(
        crop_id,
        request.soil_texture,
        request.sns_index,
        request.nmin,
        request.growth_period_days,
        request.profile.variety,
    )
    dose = dose or Dose(rb209.METHOD)
    return _with_pk(dose, request, lambda oxide, status: rb209.pk_dose(crop_id, oxide, status))


def dose_for(crop_id: str, request: RecommendRequest) -> Dose | None:
    """The doses for the crop in the request's region, or None when no method or published
    recommendation gives the crop a figure there."""
    region = region_of(request.region)
    if region == GERMANY:
        dose = _germany(crop_id, request)
    elif region == UK:
        dose = _uk(crop_id, request)
    else:
        dose = published.extension_dose(crop_id, request.soil_p, request.soil_k, request.region)
    if dose is None or not dose.has_a_figure:
        return None
    dose.sources = list(dict.fromkeys(dose.sources))
    dose.issues += rules.outside(crop_id, dose)
    return dose
