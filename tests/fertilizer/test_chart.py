"""The season chart's geometry: bars in proportion, at their place in the season."""

from tests.fertilizer.profiles import TOMATO_FILE, load
from tests.fertilizer.test_plan import SEED_PLAN
from webapp.fertilizer.chart import season_chart
from webapp.fertilizer.plan import plan_from_dict
from webapp.fertilizer.request import parse_profile


def test_bars_are_per_application_in_proportion_and_stages_follow_thermal_time():
    plan = plan_from_dict(SEED_PLAN)
    stages = parse_profile(load(TOMATO_FILE)).stages
    chart = season_chart(plan, stages, days=160)
    _, top, _, bottom = chart.plot
    # One basal and two topdressings, three bars each.
    assert len(chart.bars) == 9
    n_bars = [b for b in chart.bars if b.element == "N"]
    assert [b.value for b in n_bars] == [6.0, 6.0, 6.0]
    k_basal = next(b for b in chart.bars if b.element == "K")
    assert k_basal.value == 3.0
    # The tallest value (6 g/m²) against a ceiling of 10.
    assert n_bars[0].height == round(0.6 * (bottom - top), 1)
    assert n_bars[0].x < n_bars[1].x < n_bars[2].x
    assert [label for _, label in chart.events] == ["pre-plant", "day 53", "day 107"]
    names = [name for _, _, name in chart.bands]
    assert names == ["育苗期", "定植期", "生育期", "収穫期"]
    widths = [width for _, width, _ in chart.bands]
    assert widths[2] == widths[3] > widths[0] > widths[1]  # 800, 800, 300, 50 GDD
    assert chart.ticks[-1][1] == "10"


def test_without_stages_or_days_the_season_is_in_percent():
    chart = season_chart(plan_from_dict(SEED_PLAN), (), None)
    assert chart.bands == []
    assert [label for _, label in chart.events] == ["pre-plant", "33 %", "67 %"]
