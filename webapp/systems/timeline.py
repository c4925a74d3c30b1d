"""The rotation as a timeline, laid out for the system page's SVG: steps as bars over the months
and years of the rotation, main crops and cover crops in their own lanes, and each intervention
a mark at its day in the lane of its type (itinera's top and bottom). Plain data in, plain
coordinates out; the template only draws them."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, timedelta
from typing import Any

from webapp.systems.document import TOP, moment

WIDTH = 1000  # viewBox units across; the SVG scales to its box
LEFT = 110  # room for the lane names
# Years on the first line, months on the second, then the four lanes.
YEAR_Y, MONTH_Y = 11, 24
TOP_MARKS_Y, MAIN_Y, COVER_Y, BOTTOM_MARKS_Y = 42, 60, 94, 128
BAR_HEIGHT = 28
HEIGHT = 158
MONTHS = "JFMAMJJASOND"


@dataclass(frozen=True)
class Bar:
    x: float
    y: int
    width: float
    name: str
    color: str | None
    start: date
    end: date
    label: str  # the name cut to what the bar can hold ("" when it holds nothing)


@dataclass(frozen=True)
class Mark:
    x: float
    y: int
    name: str
    day: date
    top: bool


@dataclass(frozen=True)
class Tick:
    x: float
    label: str
    year: bool


@dataclass
class Timeline:
    bars: list[Bar] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    ticks: list[Tick] = field(default_factory=list)
    start: date | None = None
    end: date | None = None
    width: int = WIDTH
    height: int = HEIGHT
    left: int = LEFT
    year_y: int = YEAR_Y
    month_y: int = MONTH_Y
    lanes: tuple[tuple[str, int], ...] = (
        ("Main-crop work", TOP_MARKS_Y - 8),
        ("Main crops", MAIN_Y + 8),
        ("Cover crops", COVER_Y + 8),
        ("Cover-crop work", BOTTOM_MARKS_Y + 4),
    )

    @property
    def years(self) -> float:
        if self.start is None or self.end is None:
            return 0
        return max((self.end - self.start).days / 365.25, 0)


def _day(text: str) -> date:
    return moment(text).astimezone(UTC).date()


def _fit(name: str, width: float) -> str:
    """As much of the name as a bar this wide shows (about 7 units per letter)."""
    room = int(width // 7)
    if room >= len(name):
        return name
    return name[: room - 1].rstrip() + "…" if room >= 4 else ""


def layout(document: dict[str, Any]) -> Timeline:
    steps = document.get("steps", [])
    timeline = Timeline()
    if not steps:
        return timeline
    spans = [(_day(s["startDate"]), _day(s["endDate"])) for s in steps]
    marks_at = [
        (start + timedelta(days=int(i.get("day", "0"))), i, step)
        for step, (start, _end) in zip(steps, spans, strict=True)
        for i in step.get("interventions", [])
    ]
    first = min([start for start, _ in spans] + [d for d, _i, _s in marks_at])
    last = max([end for _, end in spans] + [d for d, _i, _s in marks_at])
    begin = first.replace(day=1)
    finish = date(last.year + (last.month == 12), last.month % 12 + 1, 1)
    days = max((finish - begin).days, 1)
    scale = (WIDTH - LEFT) / days

    def x(day: date) -> float:
        return round(LEFT + (day - begin).days * scale, 1)

    timeline.start, timeline.end = first, last
    for step, (start, end) in zip(steps, spans, strict=True):
        width = max(x(end) - x(start), 1.0)
        cover = bool(step.get("secondary_crop"))
        timeline.bars.append(
            Bar(
                x(start),
                COVER_Y if cover else MAIN_Y,
                width,
                step["name"],
                step.get("color"),
                start,
                end,
                _fit(step["name"].strip(), width - 6),
            )
        )
    for day, intervention, _step in marks_at:
        top = intervention.get("type", TOP) == TOP
        y = TOP_MARKS_Y if top else BOTTOM_MARKS_Y
        timeline.marks.append(Mark(x(day), y, intervention["name"], day, top))
    month = begin
    many_years = days > 4 * 365
    while month <= finish:
        if month.month == 1 or month == begin:
            timeline.ticks.append(Tick(x(month), str(month.year), True))
        if not many_years:
            timeline.ticks.append(Tick(x(month), MONTHS[month.month - 1], False))
        month = date(month.year + (month.month == 12), month.month % 12 + 1, 1)
    return timeline
