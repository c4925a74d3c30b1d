"""IFT by campaign, as the official method counts it: a campaign runs from 1 September (n−1) to
31 August (n) (MAA guide v3, 2018), and each treatment counts in the campaign of its own date
(its step's start + its day). Segments are kept apart per intervention, step and campaign;
biocontrol and seed treatments are reported apart from the compliance total."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, timedelta
from typing import Any

from webapp.systems.calculators import ift
from webapp.systems.calculators.context import Context, known_values, split_list
from webapp.systems.calculators.result import rounded
from webapp.systems.document import moment
from webapp.systems.indicators import IFT_SEGMENTS, IFT_TOTAL_SEGMENTS

CAMPAIGN_START_MONTH = 9  # 1 September
BASIS = (
    "IFT per campaign (1 September to 31 August), each intervention in the campaign of its own "
    "date (its step's start + its day), value × frequence; biocontrol and seed treatments apart "
    "from the total."
)
SEGMENT_LABELS = {
    "herbicide": "Herbicide",
    "fungicide": "Fungicide",
    "insecticide": "Insecticide",
    "other": "Other",
    "biocontrol": "Biocontrol",
    "seed_treatment": "Seed treatment",
}


def campaign_of(day: date) -> int:
    """The campaign a date falls in, named by the year it ends: 2024-09-01 → 2025."""
    return day.year + 1 if day.month >= CAMPAIGN_START_MONTH else day.year


def campaign_label(campaign: int) -> str:
    return f"{campaign - 1}–{campaign} campaign"


def _segments() -> dict[str, float]:
    return dict.fromkeys(IFT_SEGMENTS, 0.0)


def compliance_total(segments: Mapping[str, float]) -> float:
    """Herbicide + fungicide + insecticide + other: biocontrol and seed treatments stay out."""
    return rounded(sum(segments[s] for s in IFT_TOTAL_SEGMENTS))


@dataclass
class Treatment:
    """One intervention's IFT, split by segment, × its frequence, in its campaign."""

    step_id: str
    intervention_id: str
    name: str
    day: date
    frequency: float
    segments: dict[str, float]
    note: str = ""  # how its segment was chosen, when it was not the calculator's split

    @property
    def campaign(self) -> int:
        return campaign_of(self.day)

    @property
    def total(self) -> float:
        return compliance_total(self.segments)

    def to_dict(self) -> dict[str, Any]:
        return {
            "step_id": self.step_id,
            "intervention_id": self.intervention_id,
            "name": self.name,
            "date": self.day.isoformat(),
            "campaign": campaign_label(self.campaign),
            "frequence": self.frequency,
            "segments": self.segments,
            "total": self.total,
            **({"note": self.note} if self.note else {}),
        }


@dataclass
class Tally:
    """Segments summed over treatments (a step's or a campaign's)."""

    label: str
    segments: dict[str, float] = field(default_factory=_segments)

    @property
    def total(self) -> float:
        return compliance_total(self.segments)

    def add(self, treatment: Treatment) -> None:
        for key, value in treatment.segments.items():
            self.segments[key] = rounded(self.segments[key] + value)

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "segments": self.segments, "total": self.total}


@dataclass
class CampaignIft:
    treatments: list[Treatment] = field(default_factory=list)
    campaigns: dict[int, Tally] = field(default_factory=dict)
    steps: dict[str, Tally] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)  # interventions without an IFT (or date)

    def to_dict(self) -> dict[str, Any]:
        return {
            "basis": BASIS,
            "unit": "IFT",
            "campaigns": [t.to_dict() for _, t in sorted(self.campaigns.items())],
            "steps": {step_id: t.to_dict() for step_id, t in self.steps.items()},
            "interventions": [t.to_dict() for t in self.treatments],
            "missing": self.missing,
        }


def ift_by_campaign(
    document: Mapping[str, Any], doses: ift.ReferenceDoses | None = None
) -> CampaignIft:
    """Every intervention's IFT value (× frequence) by segment, summed per step and per
    campaign; doses: the reference-dose table that splits a calculated value by segment."""
    found = CampaignIft()
    table = ift.reference_doses() if doses is None else doses  # one look-up for every treatment
    for step in document.get("steps") or ():
        start = _start(step)
        step_tally = found.steps.setdefault(step.get("id", ""), Tally(step.get("name", "")))
        for intervention in step.get("interventions") or ():
            values = known_values(intervention)
            name = intervention.get("name") or intervention.get("id", "")
            if "ift" not in values or start is None:  # an undated step has no campaign
                found.missing.append(name)
                continue
            frequency = values.get("frequence", 1.0)
            split, note = _split(document, step, intervention, values["ift"], table)
            treatment = Treatment(
                step.get("id", ""),
                intervention.get("id", ""),
                name,
                start + timedelta(days=int(intervention.get("day") or 0)),
                frequency,
                {k: rounded(v * frequency) for k, v in split.items()},
                note,
            )
            found.treatments.append(treatment)
            step_tally.add(treatment)
            campaign = treatment.campaign
            found.campaigns.setdefault(campaign, Tally(campaign_label(campaign))).add(treatment)
    return found


def _start(step: Mapping[str, Any]) -> date | None:
    try:
        return moment(step.get("startDate") or "").astimezone(UTC).date()
    except ValueError:
        return None


def _split(
    document: Mapping[str, Any],
    step: Mapping[str, Any],
    intervention: Mapping[str, Any],
    value: float,
    doses: ift.ReferenceDoses,
) -> tuple[dict[str, float], str]:
    """value by segment: the calculator's split when it gives this value (a mixture, a
    biocontrol product); else all of it in the stated segment, else in other, said in words."""
    context = Context.at(document, step, intervention)
    result = ift.calculate(context, doses)
    if result.value is not None and rounded(result.value) == rounded(value) and result.parts:
        return dict(result.parts), ""
    segments = _segments()
    if value == 0:  # not a treatment (a ploughing): nothing to split
        return segments, ""
    stated = [
        s.replace(" ", "_").casefold() for s in split_list(context.assumptions.text("Segment"))
    ]
    if len(set(stated)) == 1 and stated[0] in IFT_SEGMENTS:
        segments[stated[0]] = value
        return segments, ""
    segments["other"] = value
    why = "several segments, and a value the calculator does not give" if stated else "no segment"
    return segments, f"counted as other: {why}"
