"""How long a plan's season is, and from what: the days the request states; else the crop
profile's own stage heat sums (GDD) over a stated mean daily heat sum; else the reference
library's typical duration. Only figures the request or profile give, or the library cites;
the plan's notes say which one was used."""

from __future__ import annotations

from dataclasses import dataclass

from webapp.fertilizer.request import RecommendRequest, heat_sum
from webapp.reference.library import Crop


@dataclass(frozen=True)
class Season:
    days: int | None
    # "stated", "heat_sums", "library" or "unknown": where the days come from.
    basis: str
    note: str
    source_url: str | None = None


def library_days(crop: Crop | None) -> int | None:
    """The crop's typical season: the midpoint of its cited total growing period."""
    duration = crop.fact("total_growing_period_days") if crop else None
    if duration is None or duration.midpoint is None:
        return None
    return round(duration.midpoint)


def _g(value: float) -> str:
    return f"{value:g}"


def season_of(request: RecommendRequest, crop: Crop | None) -> Season:
    if request.growth_period_days:
        days = request.growth_period_days
        if request.growth_period_basis == "to_first_harvest":
            return Season(
                days,
                "stated",
                f"Season: {days} days, the culture's growth to first harvest; its harvest window"
                " is unknown, so the season may run longer.",
            )
        return Season(days, "stated", f"Season: {days} days, the growth period given.")
    stages = request.profile.stages
    total = heat_sum(stages)
    mean = request.mean_daily_gdd
    if total is not None and mean is not None:
        days = round(total / mean)
        sums = " + ".join(_g(stage.required_gdd or 0) for stage in stages)
        return Season(
            days,
            "heat_sums",
            f"Season: {days} days from the profile's stage heat sums: {sums} = {_g(total)}"
            f" °C·day ÷ {_g(mean)} °C·day per day (the mean daily heat sum given).",
        )
    unused = (
        f" The profile's stage heat sums ({_g(total)} °C·day in all) are not used: no mean"
        " daily heat sum was given to turn them into days."
        if total is not None
        else ""
    )
    days = library_days(crop)
    if crop is not None and days is not None:
        duration = crop.facts["total_growing_period_days"]
        return Season(
            days,
            "library",
            f"Season: {days} days, the midpoint of {duration.claim}{unused}",
            duration.source.url,
        )
    return Season(None, "unknown", f"Season: unknown.{unused}")
