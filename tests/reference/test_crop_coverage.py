"""The crops added so the library covers what people grow: each fact quotes a public source
that states its figure, names resolve in four languages, plurals find their crop."""

from __future__ import annotations

import re

import pytest

from webapp.reference.library import BASES, Crop, Fact, ReferenceLibrary, library

NEW_CROPS = [
    "rice",
    "soybean",
    "chickpea",
    "lentil",
    "oats",
    "rye",
    "triticale",
    "durum_wheat",
    "kohlrabi",
    "swiss_chard",
    "spinach_beet",
    "celeriac",
    "parsnip",
    "fennel",
    "sweet_corn",
    "winter_squash",
    "strawberry",
    "lambs_lettuce",
    "rocket",
    "broccoli",
    "cauliflower",
    "brussels_sprouts",
    "kale",
    "bell_pepper",
    "aubergine",
    "melon",
]

# How a figure as the source writes it converts to the fact's unit: the unit conversions
# the claims show, and nothing else.
CONVERSIONS = {
    ("t/ha", "kg/m²"): 0.1,
    ("dt/ha", "kg/m²"): 0.01,
    ("pounds", "kg/plant"): 0.4536,
    ("weeks", "days"): 7,
}
NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _crop(crop_id: str) -> Crop:
    crop = library().get(crop_id)
    assert crop is not None, crop_id
    return crop


def _numbers(text: str) -> list[float]:
    return [float(found) for found in NUMBER.findall(text)]


def _conversion(figure: str, unit: str) -> float:
    """The factor from the figure's unit (its last word: "26-40 t/ha") to the fact's."""
    said = figure.split()[-1]
    assert (said, unit) in CONVERSIONS, (figure, unit)
    return CONVERSIONS[(said, unit)]


def _states_its_figure(where: str, fact: Fact, bounds: dict) -> None:
    """min and max are the source's numbers: in the claim as they are (days), or the figure
    the claim quotes, converted by the unit factor."""
    low, high = bounds.get("min"), bounds.get("max")
    figure = bounds.get("figure")
    if figure is not None:
        assert figure in fact.claim, where
    if low is None and high is None:
        return
    if fact.unit == "days" and (figure is None or figure.endswith("days")):
        stated = _numbers(fact.claim)
        assert low in stated and high in stated, (where, low, high)
        return
    assert figure is not None, where
    factor = _conversion(figure, fact.unit)
    converted = sorted({round(n * factor, 2) for n in _numbers(figure)})
    assert converted == sorted({low, high}), (where, converted, low, high)


def test_the_library_covers_at_least_45_crops_including_the_ones_people_asked_for():
    lib = library()
    assert len(lib.crops) >= 45
    for crop_id in NEW_CROPS:
        crop = _crop(crop_id)
        assert set(crop.names) >= {"en", "de", "fr", "ja"}, crop_id
        assert crop.aliases, crop_id
        assert crop.facts, crop_id


@pytest.mark.parametrize("crop_id", NEW_CROPS)
def test_every_new_fact_cites_a_source_whose_claim_contains_its_figure(crop_id):
    for name, fact in _crop(crop_id).facts.items():
        where = f"{crop_id}.{name}"
        assert fact.source.url.startswith(("https://", "http://")), where
        assert fact.source.title.strip() and fact.source.publisher.strip(), where
        # Transcribed from the source, never worked out beyond it.
        assert fact.derived is False, where
        bounds = {"min": fact.min, "max": fact.max, "figure": fact.extra.get("figure")}
        _states_its_figure(where, fact, bounds)
        for label, variant in fact.extra.get("variants", {}).items():
            _states_its_figure(f"{where} ({label})", fact, variant)
        if name == "days_to_first_harvest":
            assert fact.extra["basis"] in BASES, where
            for variant in fact.extra.get("variants", {}).values():
                assert variant["basis"] in BASES, where


def test_figures_mean_what_the_fact_means():
    rice = _crop("rice")
    season = rice.fact("total_growing_period_days")
    assert (season.min, season.max) == (70, 160)
    uptake = rice.fact("nutrient_uptake_kg_per_t")
    assert [uptake.extra[k] for k in ("n", "p", "k")] == [14.7, 2.6, 14.5]
    assert {14.7, 2.6, 14.5} <= set(_numbers(uptake.extra["figure"]))
    assert uptake.min is None and uptake.max is None
    rice_yield = rice.fact("yield_per_sqm_kg")
    assert (rice_yield.min, rice_yield.max) == (0.3, 0.5)  # 3-5 t/ha
    assert rice_yield.extra["variants"]["irrigated, dry season, very well managed"]["max"] == 1.0

    # A stated range stays a range; a season is not days to first harvest.
    lentil = _crop("lentil").fact("total_growing_period_days")
    assert (lentil.min, lentil.max) == (70, 120)
    assert lentil.extra["variants"]["autumn sown"]["max"] == 240
    assert _crop("lentil").fact("days_to_first_harvest") is None
    assert _crop("rye").fact("total_growing_period_days").extra["setting"] == "autumn sown"

    sprouts = _crop("brussels_sprouts")
    assert (sprouts.fact("yield_per_sqm_kg").min, sprouts.fact("yield_per_sqm_kg").max) == (
        0.8,
        1.2,
    )
    days = sprouts.fact("days_to_first_harvest")
    assert (days.min, days.max, days.extra["basis"]) == (100, 130, "transplanting")

    broccoli = _crop("broccoli").fact("days_to_first_harvest")
    assert (broccoli.min, broccoli.max, broccoli.extra["basis"]) == (55, 75, "transplanting")
    from_seed = broccoli.extra["variants"]["from seed"]
    assert (from_seed["min"], from_seed["max"], from_seed["basis"]) == (70, 100, "sowing")

    cauliflower = _crop("cauliflower").fact("days_to_first_harvest")
    assert (cauliflower.min, cauliflower.max) == (60, 100)
    assert cauliflower.extra["basis"] == "transplanting"
    from_seed = cauliflower.extra["variants"]["from seed"]
    assert (from_seed["min"], from_seed["max"], from_seed["basis"]) == (85, 130, "sowing")
    rocket = _crop("rocket").fact("days_to_first_harvest")
    assert (rocket.min, rocket.max, rocket.extra["basis"]) == (28, 49, "sowing")  # 4 to 7 weeks

    strawberry = _crop("strawberry").fact("yield_per_plant_kg")
    assert (strawberry.min, strawberry.max) == (0.23, 0.91)  # 0.5 to 2 pounds
    pepper = _crop("bell_pepper").fact("days_sowing_to_transplant")
    assert (pepper.min, pepper.max) == (56, 70)  # 8-10 weeks
    triticale = _crop("triticale").fact("yield_per_sqm_kg")
    assert (triticale.min, triticale.max) == (0.5, 0.9)  # 50 - 90 dt/ha


def test_a_figure_that_does_not_match_the_claim_is_caught():
    fact = _crop("parsnip").fact("yield_per_sqm_kg")
    with pytest.raises(AssertionError):
        _states_its_figure("parsnip", fact, {"min": 2.6, "max": 4.5, "figure": "26-40 t/ha"})
    with pytest.raises(AssertionError):
        _states_its_figure("parsnip", fact, {"min": 2.6, "max": 4.0, "figure": "26-45 t/ha"})
    days = _crop("fennel").fact("days_to_first_harvest")
    with pytest.raises(AssertionError):
        _states_its_figure("fennel", days, {"min": 80, "max": 95})


NAMES = [
    ("Reis", "rice"),
    ("riz", "rice"),
    ("イネ", "rice"),
    ("水稲", "rice"),
    ("Sojabohne", "soybean"),
    ("soja", "soybean"),
    ("大豆", "soybean"),
    ("Kichererbse", "chickpea"),
    ("pois chiche", "chickpea"),
    ("Linse", "lentil"),
    ("lentille", "lentil"),
    ("Hafer", "oats"),
    ("avoine", "oats"),
    ("Roggen", "rye"),
    ("seigle", "rye"),
    ("ライコムギ", "triticale"),
    ("Hartweizen", "durum_wheat"),
    ("blé dur", "durum_wheat"),
    ("Durum", "durum_wheat"),
    ("chou-rave", "kohlrabi"),
    ("コールラビ", "kohlrabi"),
    ("Mangold", "swiss_chard"),
    ("blette", "swiss_chard"),
    ("Swiss chard", "swiss_chard"),
    ("Schnittmangold", "spinach_beet"),
    ("perpetual spinach", "spinach_beet"),
    ("Knollensellerie", "celeriac"),
    ("céleri-rave", "celeriac"),
    ("Pastinake", "parsnip"),
    ("panais", "parsnip"),
    ("Fenchel", "fennel"),
    ("fenouil", "fennel"),
    ("Zuckermais", "sweet_corn"),
    ("maïs doux", "sweet_corn"),
    ("Kürbis", "winter_squash"),
    ("pumpkin", "winter_squash"),
    ("カボチャ", "winter_squash"),
    ("Erdbeere", "strawberry"),
    ("fraise", "strawberry"),
    ("イチゴ", "strawberry"),
    ("Lamb's lettuce", "lambs_lettuce"),
    ("Feldsalat", "lambs_lettuce"),
    ("mâche", "lambs_lettuce"),
    ("corn salad", "lambs_lettuce"),
    ("Rucola", "rocket"),
    ("arugula", "rocket"),
    ("roquette", "rocket"),
    ("Brokkoli", "broccoli"),
    ("ブロッコリー", "broccoli"),
    ("Blumenkohl", "cauliflower"),
    ("chou-fleur", "cauliflower"),
    ("Rosenkohl", "brussels_sprouts"),
    ("chou de Bruxelles", "brussels_sprouts"),
    ("芽キャベツ", "brussels_sprouts"),
    ("Grünkohl", "kale"),
    ("Paprika", "bell_pepper"),
    ("poivron", "bell_pepper"),
    ("ピーマン", "bell_pepper"),
    ("eggplant", "aubergine"),
    ("ナス", "aubergine"),
    ("Melone", "melon"),
    ("cantaloupe", "melon"),
    ("メロン", "melon"),
]
# Plurals the library does not list: the lookup reads them as their singular.
PLURALS = [
    ("potatoes", "potato"),
    ("Tomatoes", "tomato"),
    ("strawberries", "strawberry"),
    ("Parsnips", "parsnip"),
    ("cauliflowers", "cauliflower"),
    ("Chickpeas", "chickpea"),
    ("lentils", "lentil"),
    ("Melons", "melon"),
    ("pumpkins", "winter_squash"),
    ("eggplants", "aubergine"),
    ("bell peppers", "bell_pepper"),
    ("Brussels sprout", "brussels_sprouts"),
    ("Organic strawberries", "strawberry"),
]


@pytest.mark.parametrize(("name", "expected"), [*NAMES, *PLURALS])
def test_new_crops_resolve_by_name_in_any_language_and_in_the_plural(name, expected):
    crop = library().resolve(name)
    assert crop is not None, name
    assert crop.id == expected


def test_plurals_are_read_by_the_lookup_not_only_from_listed_aliases():
    data = {
        "sources": {"src": {"url": "https://example.org/a", "title": "A", "publisher": "P"}},
        "crops": [
            {"id": "strawberry", "names": {"en": "Strawberry"}, "family": "Rosaceae"},
            {"id": "radish", "names": {"en": "Radish"}, "family": "Brassicaceae"},
            {"id": "lettuce", "names": {"en": "Lettuce"}, "family": "Asteraceae"},
            {"id": "pea", "names": {"en": "Pea", "fr": "Pois"}, "family": "Fabaceae"},
        ],
    }
    lib = ReferenceLibrary.from_data(data)
    assert lib.resolve("Strawberries").id == "strawberry"
    assert lib.resolve("radishes").id == "radish"
    assert lib.resolve("lettuces").id == "lettuce"
    assert lib.resolve("Peas").id == "pea"
    assert lib.resolve("Pois").id == "pea"  # a name as given wins over its "singular"
    assert lib.resolve("Strawberryes") is None
    assert lib.resolve("Grass") is None


def test_plural_names_still_respect_exclusions():
    lib = library()
    assert lib.resolve("Sweet potatoes") is None
    assert lib.resolve("Wild strawberries") is None
    assert lib.resolve("water melons") is None
