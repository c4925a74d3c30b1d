"""The methods' rules as plain functions: which region follows which method, how a soil test
is read, how the DüV scales by its tables, how RB209 picks its row."""

import pytest

from tests.fertilizer.profiles import profile
from webapp.fertilizer import duev, rb209
from webapp.fertilizer.regions import ELSEWHERE, GERMANY, UK, region_of
from webapp.fertilizer.request import RequestInvalid, parse_request
from webapp.fertilizer.soil import as_class, as_index, parse_status, parse_texture


@pytest.mark.parametrize(
    ("region", "method"),
    [
        ("Bayern", GERMANY),
        ("Thüringen", GERMANY),
        ("Landkreis Goslar, Niedersachsen", GERMANY),
        ("DE", GERMANY),
        ("Lincolnshire, England", UK),
        ("Northern Ireland", UK),
        ("UK", UK),
        # RB209 is not Scotland's advice; Bavaria, Alabama is not Bavaria.
        ("Aberdeenshire, Scotland", ELSEWHERE),
        ("Kantō", ELSEWHERE),
        ("New England", ELSEWHERE),
        ("", ELSEWHERE),
        (None, ELSEWHERE),
    ],
)
def test_the_last_named_place_picks_the_method(region, method):
    assert region_of(region) == method


def test_a_soil_test_is_an_rb209_index_a_vdlufa_class_or_the_old_words():
    assert parse_status("2-", "K") == "2-" and parse_status(" c ", "P") == "C"
    assert parse_status(3, "P") == "3" and parse_status("Low", "P") == "low"
    with pytest.raises(ValueError, match="must be an RB209 index"):
        parse_status("2-", "P")  # only K splits index 2
    assert as_class("low") == ("B", "“low” read as VDLUFA class B (low)")
    assert as_index("medium") == ("2", "“medium” read as RB209 index 2")
    assert as_class("2") == (None, None) and as_index("C") == (None, None)
    assert parse_texture("Sand") == "sand"
    with pytest.raises(ValueError, match="must be one of sand, loam"):
        parse_texture("gravel")


def test_the_request_refuses_what_no_method_reads_naming_each_key():
    with pytest.raises(RequestInvalid) as caught:
        parse_request(
            {
                "crop_profile": profile("Potato"),
                "nmin": -5,
                "sns_index": 9,
                "soil_texture": "gravel",
                "previous_crop": "Mais",
                "humus_pct": 140,
            }
        )
    assert set(caught.value.details) == {
        "nmin",
        "sns_index",
        "soil_texture",
        "previous_crop",
        "humus_pct",
    }


def test_tabelle_3_counts_part_steps_pro_rata_and_caps_only_the_surcharge():
    wheat = duev.row_of("winter_wheat")
    assert duev.yield_adjustment(wheat, 85)[0] == 5  # half a 10 dt step: +5
    assert duev.yield_adjustment(wheat, 200)[0] == 40  # +120 capped at +40
    assert duev.yield_adjustment(wheat, 20)[0] == -90  # −15 per 10 dt, no cap
    potato = duev.row_of("potato")
    assert duev.yield_adjustment(potato, 550)[0] == 20  # +10 per 50 dt


def test_tabelle_5_counts_whole_steps_of_twenty_percent():
    cabbage = duev.row_of("cabbage")  # Kopfkohl: ±40 kg N per 20 %
    reference = cabbage["yield_dt_per_ha"]
    assert duev.vegetable_adjustment("cabbage", cabbage, reference * 1.19)[0] == 0
    assert duev.vegetable_adjustment("cabbage", cabbage, reference * 1.45)[0] == 80
    lettuce = duev.row_of("lettuce")  # every other crop: ±20 per 20 %
    assert duev.vegetable_adjustment("lettuce", lettuce, 300)[0] == -40  # −40 % of 500 dt


def test_rb209_reads_the_soil_category_and_the_sns_band():
    assert rb209.soil_category(["Light sand soils", "Medium soils"], "sand") == "Light sand soils"
    assert rb209.soil_category(["Light sand soils", "Deep clayey soils"], "clay") == (
        "Deep clayey soils"
    )
    assert rb209.soil_category(["All soil types"], "loam") == "All soil types"
    assert rb209.soil_category(["All soil types"], "peat") is None
    # RB209 Table 4.10: less than 60 is 0, 61–80 is 1 … more than 240 is 6.
    assert [rb209.sns_from_nmin(n) for n in (10, 60, 75, 150, 241)] == [0, 0, 1, 4, 6]
    assert rb209.maintenance_index("carrot", "P2O5") == "3"  # vegetables' target is P 3
    assert rb209.maintenance_index("winter_wheat", "K2O") == "2-"
