"""The applications over the season as SVG geometry: grouped N/P/K bars (g/m² per
application) at each application's place in the season, over the profile's stages. The
template only draws what this returns."""

from __future__ import annotations

import math
from dataclasses import dataclass

from webapp.fertilizer.plan import ELEMENTS, FertilizerPlan, Nutrients, topdress_positions
from webapp.fertilizer.request import Stage, season_bands

WIDTH, HEIGHT = 680, 260
LEFT, RIGHT, TOP, BOTTOM = 52, 16, 28, 44
BAR = 12


@dataclass(frozen=True)
class Bar:
    x: float
    y: float
    height: float
    element: str
    value: float
    label: str


@dataclass(frozen=True)
class Chart:
    width: int
    height: int
    plot: tuple[float, float, float, float]  # left, top, right, bottom
    bands: list[tuple[float, float, str]]  # x, width, stage name
    bars: list[Bar]
    events: list[tuple[float, str]]  # x, label under the axis
    ticks: list[tuple[float, str]]  # y, label
    bar_width: int = BAR


def _nice_ceiling(value: float) -> float:
    if value <= 0:
        return 1.0
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if value <= step * magnitude:
            return step * magnitude
    return 10 * magnitude


def _event_label(position: float, days: int | None) -> str:
    if position == 0:
        return "pre-plant"
    return f"day {round(position * days)}" if days else f"{round(position * 100)} %"


def season_chart(plan: FertilizerPlan, stages: tuple[Stage, ...], days: int | None) -> Chart:
    left, top, right, bottom = LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM
    span = right - left - 3 * BAR  # room for the last group of bars inside the plot

    def x_at(position: float) -> float:
        return left + 4 + position * span

    events: list[tuple[float, str, Nutrients]] = []  # position, type, per application
    for application in plan.applications:
        if application.type == "basal":
            positions = [0.0] * application.count
        else:
            positions = topdress_positions(application.count)
        for position in positions:
            events.append((position, application.type, application.per_application))
    ceiling = _nice_ceiling(
        max((getattr(n, e) or 0.0 for _, _, n in events for e in ELEMENTS), default=0.0)
    )
    scale = (bottom - top) / ceiling
    bars = []
    for position, kind, nutrients in events:
        for i, element in enumerate(ELEMENTS):
            value = getattr(nutrients, element)
            if value is None:
                # No cited figure: no bar, never a bar of 0.
                continue
            height = value * scale
            bars.append(
                Bar(
                    x=round(x_at(position) + i * BAR, 1),
                    y=round(bottom - height, 1),
                    height=round(height, 1),
                    element=element,
                    value=value,
                    label=f"{kind}, {_event_label(position, days)}: {element} {value:g} g/m²",
                )
            )
    bands = [
        (round(x_at(start), 1), round((end - start) * span, 1), name)
        for name, start, end in season_bands(stages)
    ]
    ticks = [
        (round(bottom - fraction * (bottom - top), 1), f"{ceiling * fraction:g}")
        for fraction in (0, 0.25, 0.5, 0.75, 1)
    ]
    labels = {}
    for position, _, _ in events:
        labels[round(x_at(position) + 1.5 * BAR, 1)] = _event_label(position, days)
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        plot=(left, top, right, bottom),
        bands=bands,
        bars=bars,
        events=sorted(labels.items()),
        ticks=ticks,
    )
