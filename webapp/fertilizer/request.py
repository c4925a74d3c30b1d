"""The recommendation request (seed 001's UseCase input): a crop profile as `agrr crop` writes
it, plus optional growing conditions. Parsing names the first missing or wrong key."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from webapp.fertilizer.duev import previous_crops
from webapp.fertilizer.plan import Nutrients
from webapp.fertilizer.soil import parse_status, parse_texture
from webapp.numbers import parse_number
from webapp.problems import Invalid, Problem

MAX_SEASON_DAYS = 730
# No site accumulates more heat than this in a day on any base temperature.
MAX_MEAN_DAILY_GDD = 50
# Mineral N in 0–90 cm beyond this is no field's; humus is a share of the soil.
MAX_NMIN = 500
MAX_ORGANIC_N = 1000
SNS_INDICES = range(7)
# How the growth period was reached: given as the season, or a culture's growth to first
# harvest with no harvest window (the season's end is then unknown).
PERIOD_BASES = ("stated", "to_first_harvest")


class RequestInvalid(Invalid):
    """The request cannot be used; message is one line, details maps keys to problems."""

    code = "invalid_request"

    def __init__(self, message: str, details: Mapping[str, str] | None = None) -> None:
        self.details = dict(details or {})
        super().__init__([Problem(message, key) for key in self.details or [""]])

    def error_details(self) -> dict[str, Any]:
        # The first API's {key: problem} stays beside the problems; clients read it.
        return {**self.details, **super().error_details()}


@dataclass(frozen=True)
class Stage:
    name: str
    order: int
    required_gdd: float | None


@dataclass(frozen=True)
class CropProfile:
    crop_id: str
    name: str
    variety: str | None = None
    area_per_unit: float | None = None
    groups: tuple[str, ...] = ()
    stages: tuple[Stage, ...] = ()


@dataclass(frozen=True)
class RecommendRequest:
    profile: CropProfile
    target_yield_kg_m2: float | None = None
    soil_p: str | None = None
    soil_k: str | None = None
    region: str | None = None
    growth_period_days: int | None = None
    organic: Nutrients = field(default_factory=Nutrients)
    # °C·day per day over the season, as the person states it for their site: with the
    # profile's stage heat sums it gives the season's length.
    mean_daily_gdd: float | None = None
    # Soil mineral N, kg N/ha in 0–90 cm at the start of growth: what the DüV subtracts.
    nmin: float | None = None
    # RB209's soil nitrogen supply index, 0–6.
    sns_index: int | None = None
    soil_texture: str | None = None
    humus_pct: float | None = None
    # The previous crop, as the DüV's Tabelle 7 names it.
    previous_crop: str | None = None
    # Total N of organic fertilizers given to last year's crops, kg N/ha (the DüV counts 10 %).
    organic_n_last_year: float | None = None
    growth_period_basis: str = "stated"


def typed_number(text: str | None) -> float | None:
    """A number a person typed, by the app's strict rule ("2,5" too), None when blank;
    NumberInvalid (a ValueError) says why it is not one."""
    if not (text or "").strip():
        return None
    return parse_number(text)


def season_bands(stages: tuple[Stage, ...]) -> list[tuple[str, float, float]]:
    """Each stage's share of the season (start, end as 0–1), by thermal time when every stage
    states its GDD, else in equal parts."""
    if not stages:
        return []
    weights = [s.required_gdd for s in stages]
    if any(w is None for w in weights):
        weights = [1.0] * len(stages)
    total = sum(weights)
    bands, start = [], 0.0
    for stage, weight in zip(stages, weights, strict=True):
        end = start + weight / total
        bands.append((stage.name, start, end))
        start = end
    return bands


def heat_sum(stages: tuple[Stage, ...]) -> float | None:
    """The profile's total heat sum (°C·day) when every stage states its own, else None."""
    if not stages or any(stage.required_gdd is None for stage in stages):
        return None
    return sum(stage.required_gdd or 0.0 for stage in stages)


def stage_at(bands: list[tuple[str, float, float]], position: float) -> str | None:
    for name, start, end in bands:
        if start <= position < end:
            return name
    return bands[-1][0] if bands else None


def _fail(key: str, problem: str) -> RequestInvalid:
    return RequestInvalid(f"{key}: {problem}", {key: problem})


def _text(
    raw: Mapping[str, Any], key: str, where: str, required: bool, longest: int = 120
) -> str | None:
    value = raw.get(key)
    if value is None and not required:
        return None
    if key not in raw:
        raise _fail(f"{where}.{key}", "missing key")
    if not isinstance(value, str) or not value.strip():
        raise _fail(f"{where}.{key}", "must be non-empty text")
    if len(value.strip()) > longest:
        raise _fail(f"{where}.{key}", f"must be at most {longest} characters")
    return value.strip()


def _positive(value: Any, key: str, maximum: float | None = None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(key, f"must be a number, got {value!r}")
    if value <= 0:
        raise _fail(key, f"must be above zero, got {value:g}")
    if maximum is not None and value > maximum:
        raise _fail(key, f"must be at most {maximum:g}, got {value:g}")
    return float(value)


def _stage(raw: Any, i: int) -> Stage:
    where = f"crop_profile.stage_requirements[{i}]"
    if not isinstance(raw, Mapping) or not isinstance(raw.get("stage"), Mapping):
        raise _fail(f"{where}.stage", "missing key")
    stage = raw["stage"]
    name = _text(stage, "name", f"{where}.stage", required=True)
    order = stage.get("order", i + 1)
    if isinstance(order, bool) or not isinstance(order, int):
        raise _fail(f"{where}.stage.order", "must be a whole number")
    thermal = raw.get("thermal")
    gdd = thermal.get("required_gdd") if isinstance(thermal, Mapping) else None
    if gdd is not None:
        gdd = _positive(gdd, f"{where}.thermal.required_gdd")
    return Stage(name, order, gdd)


def parse_profile(raw: Any) -> CropProfile:
    """A crop profile object as `agrr crop` writes it (and `furrow crop export`)."""
    if not isinstance(raw, Mapping):
        raise _fail("crop_profile", "must be a JSON object")
    crop = raw.get("crop")
    if crop is None:
        raise _fail("crop_profile.crop", "missing key")
    if not isinstance(crop, Mapping):
        raise _fail("crop_profile.crop", "must be an object")
    crop_id = _text(crop, "crop_id", "crop_profile.crop", required=True)
    name = _text(crop, "name", "crop_profile.crop", required=True)
    variety = crop.get("variety")
    if variety is not None and not isinstance(variety, str):
        raise _fail("crop_profile.crop.variety", "must be text or null")
    groups = crop.get("groups") or []
    if not isinstance(groups, list) or not all(isinstance(g, str) for g in groups):
        raise _fail("crop_profile.crop.groups", "must be a list of names")
    stages_raw = raw.get("stage_requirements", [])
    if not isinstance(stages_raw, list):
        raise _fail("crop_profile.stage_requirements", "must be a list")
    stages = sorted((_stage(s, i) for i, s in enumerate(stages_raw)), key=lambda s: s.order)
    return CropProfile(
        crop_id=crop_id,
        name=name,
        variety=variety.strip() or None if variety else None,
        area_per_unit=_positive(crop.get("area_per_unit"), "crop_profile.crop.area_per_unit"),
        groups=tuple(groups),
        stages=tuple(stages),
    )


def _soil(value: Any, key: str) -> str | None:
    try:
        if key == "soil_texture":
            return parse_texture(value)
        return parse_status(value, "P" if key == "soil_p" else "K")
    except ValueError as exc:
        raise _fail(key, str(exc)) from None


def _amount_or_zero(value: Any, key: str, maximum: float) -> float | None:
    """A quantity that may be 0 (no mineral N, no organic N), at most maximum."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(key, f"must be a number, got {value!r}")
    if not 0 <= value <= maximum:
        raise _fail(key, f"must be from 0 to {maximum:g}, got {value:g}")
    return float(value)


def _sns(value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int) or value not in SNS_INDICES:
        raise _fail("sns_index", f"must be a whole number from 0 to 6, got {value!r}")
    return value


def _previous_crop(value: Any) -> str | None:
    if value is None or value == "":
        return None
    known = previous_crops()
    if not isinstance(value, str) or value.strip() not in known:
        raise _fail("previous_crop", f"must be one of {', '.join(known)}, got {value!r}")
    return value.strip()


def parse_organic(raw: Any) -> Nutrients:
    if raw is None:
        return Nutrients()
    problems: list[str] = []
    organic = Nutrients.parse(raw, "organic", problems, unknown=False)
    if problems:
        raise RequestInvalid(problems[0], {"organic": "; ".join(problems)})
    return organic


def parse_request(raw: Any) -> RecommendRequest:
    """The request document: {"crop_profile": {...}, optional target_yield (kg/m²), soil_p,
    soil_k (an RB209 index, a VDLUFA class, or low|medium|high), soil_texture, nmin (kg N/ha,
    0–90 cm), sns_index (0–6), humus_pct, previous_crop, organic_n_last_year (kg N/ha),
    region, growth_period_days, growth_period_basis, organic {N, P, K} g/m², mean_daily_gdd
    (°C·day per day: with the profile's stage heat sums, the season's days)}."""
    if not isinstance(raw, Mapping):
        raise _fail("request", "must be a JSON object")
    allowed = {
        "crop_profile",
        "target_yield",
        "soil_p",
        "soil_k",
        "region",
        "growth_period_days",
        "organic",
        "provider",
        "mean_daily_gdd",
        "nmin",
        "sns_index",
        "soil_texture",
        "humus_pct",
        "previous_crop",
        "organic_n_last_year",
        "growth_period_basis",
    }
    # Every problem at once: each part is checked even when another is wrong.
    problems: dict[str, str] = {}

    def checked(parse: Any, *args: Any) -> Any:
        try:
            return parse(*args)
        except RequestInvalid as exc:
            problems.update(exc.details)
            return None

    if "crop_profile" not in raw:
        problems["crop_profile"] = "missing key"
    for key in sorted(set(raw) - allowed):
        problems[key] = f"unknown key (allowed: {', '.join(sorted(allowed))})"
    region = raw.get("region")
    if region is not None and not isinstance(region, str):
        problems["region"] = "must be text"
    days = raw.get("growth_period_days")
    if days is not None:
        if isinstance(days, float) and days.is_integer():
            days = int(days)
        if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= MAX_SEASON_DAYS:
            problems["growth_period_days"] = (
                f"must be a whole number of days, 1–{MAX_SEASON_DAYS}, got {days!r}"
            )
    organic = checked(parse_organic, raw.get("organic"))
    profile = checked(parse_profile, raw.get("crop_profile"))
    target_yield = checked(_positive, raw.get("target_yield"), "target_yield", 1000)
    soil_p = checked(_soil, raw.get("soil_p"), "soil_p")
    soil_k = checked(_soil, raw.get("soil_k"), "soil_k")
    mean_gdd = checked(_positive, raw.get("mean_daily_gdd"), "mean_daily_gdd", MAX_MEAN_DAILY_GDD)
    texture = checked(_soil, raw.get("soil_texture"), "soil_texture")
    nmin = checked(_amount_or_zero, raw.get("nmin"), "nmin", MAX_NMIN)
    sns = checked(_sns, raw.get("sns_index"))
    humus = checked(_amount_or_zero, raw.get("humus_pct"), "humus_pct", 100)
    previous = checked(_previous_crop, raw.get("previous_crop"))
    organic_n = checked(
        _amount_or_zero, raw.get("organic_n_last_year"), "organic_n_last_year", MAX_ORGANIC_N
    )
    basis = raw.get("growth_period_basis") or "stated"
    if basis not in PERIOD_BASES:
        problems["growth_period_basis"] = f"must be one of {', '.join(PERIOD_BASES)}"
    if mean_gdd is not None and profile is not None:
        _check_heat_sum_season(profile, mean_gdd, problems)
    if problems:
        message = "; ".join(f"{key}: {problem}" for key, problem in problems.items())
        raise RequestInvalid(message, problems)
    return RecommendRequest(
        profile=profile,
        target_yield_kg_m2=target_yield,
        soil_p=soil_p,
        soil_k=soil_k,
        region=(region or "").strip() or None,
        growth_period_days=days,
        organic=organic,
        mean_daily_gdd=mean_gdd,
        nmin=nmin,
        sns_index=sns,
        soil_texture=texture,
        humus_pct=humus,
        previous_crop=previous,
        organic_n_last_year=organic_n,
        growth_period_basis=basis,
    )


def _check_heat_sum_season(profile: CropProfile, mean_gdd: float, problems: dict) -> None:
    """A mean daily heat sum that makes the profile's stages a season no crop has."""
    total = heat_sum(profile.stages)
    if total is None:
        return
    days = total / mean_gdd
    if days > MAX_SEASON_DAYS:
        problems["mean_daily_gdd"] = (
            f"with the profile's stage heat sums ({total:g} °C·day) it gives {days:.0f} days;"
            f" a season is at most {MAX_SEASON_DAYS}"
        )
