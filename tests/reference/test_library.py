"""The bundled reference library: every value cites its source, and names resolve to crops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.reference.libraries import crop_entry, small_library
from webapp import ROOT
from webapp.reference.library import BASES, Crop, ReferenceLibrary, library, load_library

SOURCE_FILE = ROOT.parent / "shared" / "reference" / "agronomy-sources.md"


def _crop(crop_id: str) -> Crop:
    crop = library().get(crop_id)
    assert crop is not None, crop_id
    return crop


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "crops.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def _small_library(**changes: object) -> dict:
    crops = [
        crop_entry("tomato", "Tomato", "tomatoes", "Solanaceae"),
        crop_entry("potato", "Potato", "potatoes", "Solanaceae"),
    ]
    return small_library(crops, **changes)


def test_library_has_at_least_20_crops_and_every_fact_cites_a_web_source_with_a_title():
    lib = library()
    assert len(lib.crops) >= 20
    for crop in lib.crops:
        assert crop.names["en"] and crop.family
        assert crop.facts, crop.id
        for fact in crop.facts.values():
            assert fact.source.url.startswith(("https://", "http://")), (crop.id, fact.name)
            assert fact.source.title.strip(), (crop.id, fact.name)
            assert fact.claim.strip(), (crop.id, fact.name)


def test_required_crops_are_present_with_names_in_four_languages():
    required = [
        "lettuce",
        "carrot",
        "spinach",
        "radish",
        "table_beet",
        "tomato",
        "cucumber",
        "zucchini",
        "onion",
        "potato",
        "pea",
        "green_bean",
        "sunflower",
        "winter_wheat",
        "grain_maize",
        "cabbage",
        "garlic",
        "leek",
        "winter_barley",
        "spring_barley",
        "rapeseed",
        "sugar_beet",
        "dry_bean",
        "faba_bean",
    ]
    for crop_id in required:
        crop = _crop(crop_id)
        assert set(crop.names) >= {"en", "de", "fr", "ja"}, crop_id


# Sources added to the library after the shared source list was written; each states the
# figures its facts transcribe. They are listed here until the shared list names them too.
ADDED_SOURCES = {
    "umaine_planting_chart",
    "fedco_vegetable_planting_guide",
    "olds_seed_chart",
    "jung_seed_lettuce",
    "illinois_vegguide_beet",
    "illinois_vegguide_carrot",
    "illinois_vegguide_spinach",
    "illinois_vegguide_radish",
    "illinois_vegguide_lettuce",
    "illinois_vegguide_onion",
    "illinois_vegguide_cabbage",
    "illinois_vegguide_pea",
    "illinois_vegguide_cucumber",
    "illinois_vegguide_squash",
    "illinois_vegguide_bean",
    "illinois_vegguide_potato",
    "msu_extension_tomato_column",
    "mother_earth_news_leeks",
    "iastate_garlic_planting",
    "uky_wheat_seeding_rate",
    "agriland_spring_barley_tgw",
    "agriland_winter_barley_tgw",
    "agriland_malting_barley_seed_rate",
    "agriland_winter_cereal_seed_rates",
    "farminguk_osr_seed_numbers",
    "lfa_sunflower_sowing",
    "fao_ecocrop_chickpea",
    "fao_ecocrop_lentil",
    "fao_ecocrop_oats",
    "fao_ecocrop_rye",
    "fao_ecocrop_durum_wheat",
    "fao_ecocrop_soybean",
    "fao_ecocrop_parsnip",
    "fao_ecocrop_brussels_sprouts",
    "ifa_world_fertilizer_manual_rice",
    "rice_internal_nutrient_efficiencies",
    "agravis_winter_triticale",
    "agravis_winter_oats",
    "illinois_vegguide_pepper",
    "illinois_vegguide_eggplant",
    "illinois_vegguide_sweetcorn",
    "illinois_vegguide_chard",
    "planet_natural_broccoli",
    "aggie_horticulture_cauliflower",
    "uc_master_gardener_sonoma_kale",
    "wikifarmer_melon",
    "west_coast_seeds_kohlrabi_kolpak",
    "how_to_grow_celeriac",
    "seeds_n_beyond_florence_fennel",
    "honest_seed_corn_salad",
    "ucce_master_gardener_arugula",
    "fedco_perpetual_spinach",
    "biologyinsights_strawberry_yield",
    "yara_us_tomato_nutrition",
}


def test_the_bundled_file_cites_sources_named_in_the_shared_source_list():
    sources = library().sources
    assert set(sources) >= ADDED_SOURCES, ADDED_SOURCES - set(sources)
    if not SOURCE_FILE.exists():
        pytest.skip("shared source list not present")
    text = SOURCE_FILE.read_text(encoding="utf-8")
    # FAO-56 and AquaCrop are named there without an address; the rest are quoted verbatim.
    named_elsewhere = {"fao_56_table_11", "aquacrop_crop_presets"}
    for source in sources.values():
        if source.id not in named_elsewhere | ADDED_SOURCES:
            assert source.url in text, source.id


def test_every_source_is_cited_by_a_fact():
    cited = {fact.source.id for crop in library().crops for fact in crop.facts.values()}
    assert cited == set(library().sources)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Tomate", "tomato"),
        ("トマト", "tomato"),
        ("tomato", "tomato"),
        ("TOMATO ", "tomato"),
        ("Rote Bete", "table_beet"),
        ("rote-beete", "table_beet"),
        ("Rote   Bete", "table_beet"),
        ("betterave", "table_beet"),
        ("beetroot", "table_beet"),
        ("ビーツ", "table_beet"),
        ("Courgette", "zucchini"),
        ("Zucchini", "zucchini"),
        ("ズッキーニ", "zucchini"),
        ("Weizen", "winter_wheat"),
        ("wheat", "winter_wheat"),
        ("blé", "winter_wheat"),
        ("ble", "winter_wheat"),
        ("小麦", "winter_wheat"),
        ("maïs", "grain_maize"),
        ("Mais", "grain_maize"),
        ("field corn", "grain_maize"),
        ("子実用トウモロコシ", "grain_maize"),
        ("Kohl", "cabbage"),
        ("Weißkohl", "cabbage"),
        ("Weisskohl", "cabbage"),
        ("chou", "cabbage"),
        ("キャベツ", "cabbage"),
        ("Raps", "rapeseed"),
        ("colza", "rapeseed"),
        ("ナタネ", "rapeseed"),
        ("Sommergerste", "spring_barley"),
        ("spring barley", "spring_barley"),
        ("betterave sucrière", "sugar_beet"),
        ("Pomme de terre", "potato"),
    ],
)
def test_names_in_any_language_and_spelling_resolve_to_their_crop(name, expected):
    crop = library().resolve(name)
    assert crop is not None, name
    assert crop.id == expected


def test_a_variety_in_or_beside_the_name_still_resolves_to_the_crop():
    lib = library()
    assert lib.resolve("Tomate", variety="Harzfeuer").id == "tomato"
    assert lib.resolve("Tomate 'Harzfeuer'").id == "tomato"
    assert lib.resolve("Tomate Harzfeuer", variety="Harzfeuer").id == "tomato"
    assert lib.resolve("Cherry tomato").id == "tomato"
    assert lib.resolve("Barley", variety="Spring").id == "spring_barley"
    assert lib.resolve("Barley", variety="Sebastian").id == "winter_barley"
    assert lib.resolve("bean", variety="green").id == "green_bean"


def test_whole_name_matches_win_over_single_words():
    lib = library()
    assert lib.resolve("sugar beet").id == "sugar_beet"
    assert lib.resolve("Organic sugar beet").id == "sugar_beet"
    assert lib.resolve("spring barley Avalon").id == "spring_barley"


def test_unknown_ambiguous_and_excluded_names_resolve_to_nothing():
    lib = library()
    assert lib.resolve("Dragonfruit") is None
    assert lib.resolve("") is None
    assert lib.resolve("   ") is None
    assert lib.resolve("tomato and cucumber mix") is None
    assert lib.resolve("Sweet potato") is None
    assert lib.resolve("Potato", variety="Sweet") is None
    assert lib.resolve("Potato", variety="Linda").id == "potato"
    assert lib.resolve("Sea lettuce") is None
    assert lib.resolve("Sweet potatoes") is None
    assert lib.resolve("summer squash").id == "zucchini"
    assert lib.resolve("Wild rice") is None
    assert lib.resolve("chili pepper") is None
    assert lib.resolve("Tomatoe") is None  # no fuzzy similarity


# The facts no public source states a figure for: judgements, offered only for confirmation.
EXPECTED_DERIVED = {
    ("tomato", "yield_per_sqm_kg"),
    ("radish", "yield_per_sqm_kg"),
    ("pea", "yield_per_sqm_kg"),
    ("garlic", "yield_per_sqm_kg"),
    ("lettuce", "yield_per_plant_kg"),
    ("carrot", "yield_per_plant_kg"),
    ("radish", "yield_per_plant_kg"),
    ("cucumber", "yield_per_plant_kg"),
    ("zucchini", "yield_per_plant_kg"),
    ("onion", "yield_per_plant_kg"),
    ("potato", "yield_per_plant_kg"),
    ("grain_maize", "yield_per_plant_kg"),
    ("garlic", "yield_per_plant_kg"),
    ("grain_maize", "plants_per_m2"),
    ("sunflower", "thousand_kernel_weight_g"),
    ("grain_maize", "thousand_kernel_weight_g"),
    ("faba_bean", "thousand_kernel_weight_g"),
}


def test_derived_facts_are_the_ones_the_sources_call_derived():
    tomato = _crop("tomato")
    potato = _crop("potato")
    wheat = _crop("winter_wheat")
    for fact in (
        tomato.fact("yield_per_sqm_kg"),
        _crop("lettuce").fact("yield_per_plant_kg"),
        _crop("grain_maize").fact("plants_per_m2"),
        _crop("sunflower").fact("thousand_kernel_weight_g"),
        potato.fact("nutrient_demand_class"),
    ):
        assert fact is not None
        assert fact.derived is True, fact.name
        assert "not a quotation" in fact.claim
    for fact in (
        potato.fact("n_demand_kg_per_ha"),
        potato.fact("total_growing_period_days"),
        potato.fact("yield_per_sqm_kg"),
        tomato.fact("nutrient_uptake_kg_per_ha"),
        tomato.fact("yield_per_plant_kg"),
        tomato.fact("plants_per_m2"),
        tomato.fact("thousand_kernel_weight_g"),
        wheat.fact("thousand_kernel_weight_g"),
        wheat.fact("plants_per_m2"),
        _crop("cabbage").fact("nutrient_removal_lb_per_acre"),
        _crop("lettuce").fact("days_to_first_harvest"),
    ):
        assert fact is not None
        assert fact.derived is False, fact.name
    derived = set()
    for crop in library().crops:
        for fact in crop.facts.values():
            if fact.derived:
                derived.add((crop.id, fact.name))
                assert fact.claim.startswith("Derived"), (crop.id, fact.name)
                assert "not a quotation" in fact.claim, (crop.id, fact.name)
            else:
                # A transcribed fact quotes its source; it never says the source has no figure.
                assert "not a quotation" not in fact.claim, (crop.id, fact.name)
                assert "gives no" not in fact.claim, (crop.id, fact.name)
        demand_class = crop.fact("nutrient_demand_class")
        assert demand_class is None or demand_class.derived, crop.id
    classes = {(crop.id, "nutrient_demand_class") for crop in library().crops}
    assert derived == EXPECTED_DERIVED | (classes & derived)
    assert len(derived) == 25


def test_transcribed_numbers_match_the_source_file():
    tomato_yield = _crop("tomato").fact("yield_per_sqm_kg")
    assert (tomato_yield.min, tomato_yield.max, tomato_yield.cap) == (4, 10, 20)
    assert tomato_yield.midpoint == 7
    assert tomato_yield.is_range
    assert tomato_yield.unit == "kg/m²"
    assert tomato_yield.extra["variants"]["greenhouse, per year"]["cap"] == 100

    potato_n = _crop("potato").fact("n_demand_kg_per_ha")
    assert (potato_n.min, potato_n.max) == (180, 180)
    assert not potato_n.is_range
    assert potato_n.extra["reference_yield_dt_per_ha"] == 450
    assert potato_n.source.url == "https://www.gesetze-im-internet.de/d_v_2017/anlage_4.html"

    lettuce_days = _crop("lettuce").fact("total_growing_period_days")
    assert (lettuce_days.min, lettuce_days.max, lettuce_days.unit) == (75, 140, "days")

    sunflower_density = _crop("sunflower").fact("plants_per_m2")
    assert (sunflower_density.min, sunflower_density.max) == (5, 5.5)
    assert sunflower_density.extra["variants"]["cool zones or humid end of cycle"]["min"] == 6

    wheat_tkg = _crop("winter_wheat").fact("thousand_kernel_weight_g")
    assert (wheat_tkg.min, wheat_tkg.max) == (22.68, 45.36)  # 10,000-20,000 seeds per pound
    wheat_density = _crop("winter_wheat").fact("plants_per_m2")
    assert (wheat_density.min, wheat_density.max) == (322.9, 376.7)  # 30-35 plants/ft²

    lettuce_tkg = _crop("lettuce").fact("thousand_kernel_weight_g")
    assert (lettuce_tkg.min, lettuce_tkg.max, lettuce_tkg.unit) == (1.13, 1.42, "g")
    cabbage_tkg = _crop("cabbage").fact("thousand_kernel_weight_g")
    assert (cabbage_tkg.min, cabbage_tkg.max) == (4.05, 4.72)  # 6,000-7,000 seeds per ounce

    tomato_density = _crop("tomato").fact("plants_per_m2")
    assert (tomato_density.min, tomato_density.max) == (1.67, 5.56)  # 0.3/0.6 x 0.6/1 m
    tomato_per_plant = _crop("tomato").fact("yield_per_plant_kg")
    assert (tomato_per_plant.min, tomato_per_plant.max) == (3.63, 3.63)  # 8 lbs/plant
    assert tomato_per_plant.extra["variants"]["greenhouse, per year"]["cap"] == 30
    cabbage_per_plant = _crop("cabbage").fact("yield_per_plant_kg")
    assert (cabbage_per_plant.min, cabbage_per_plant.max, cabbage_per_plant.cap) == (0.34, 1.36, 8)

    carrot_yield = _crop("carrot").fact("yield_per_sqm_kg")
    assert (carrot_yield.min, carrot_yield.max, carrot_yield.cap) == (5.6, 5.6, 15)  # 25 t/A
    assert not carrot_yield.is_range
    beet_yield = _crop("table_beet").fact("yield_per_sqm_kg")
    assert (beet_yield.min, beet_yield.max) == (3.25, 4.88)  # 10 lbs per 10 ft, rows 12-18 in
    potato_yield = _crop("potato").fact("yield_per_sqm_kg")
    assert (potato_yield.min, potato_yield.max, potato_yield.cap) == (4.5, 4.5, 12)  # 450 dt/ha
    sugar_beet_yield = _crop("sugar_beet").fact("yield_per_sqm_kg")
    assert (sugar_beet_yield.min, sugar_beet_yield.cap) == (6.5, None)  # 650 dt/ha

    wheat_n = _crop("winter_wheat").fact("n_demand_kg_per_ha")
    assert wheat_n.min == 230
    assert wheat_n.extra["variants"]["quality group E"]["min"] == 260

    cucumber_removal = _crop("cucumber").fact("nutrient_removal_lb_per_acre")
    assert cucumber_removal.extra["n"] == (100, 200)
    assert cucumber_removal.extra["at_yield"] == "24 t/A"
    cabbage_removal = _crop("cabbage").fact("nutrient_removal_lb_per_acre")
    assert [cabbage_removal.extra[k] for k in ("n", "p2o5", "k2o")] == [125, 30, 130]

    tomato_npk = _crop("tomato").fact("nutrient_uptake_kg_per_ha")
    assert tomato_npk.extra["k"] == (160, 240)


def test_nutrient_demand_class_follows_the_duv_thresholds():
    expected = {"winter_wheat": "high", "potato": "medium", "grain_maize": "medium"}
    for crop_id, cls in expected.items():
        fact = _crop(crop_id).fact("nutrient_demand_class")
        assert fact.value == cls
        assert fact.min is None and fact.midpoint is None
    for crop in library().crops:
        demand = crop.fact("n_demand_kg_per_ha")
        assert (demand is None) == (crop.fact("nutrient_demand_class") is None), crop.id


VEGETABLES = [
    "lettuce",
    "carrot",
    "spinach",
    "radish",
    "table_beet",
    "tomato",
    "cucumber",
    "zucchini",
    "onion",
    "potato",
    "pea",
    "green_bean",
    "cabbage",
    "leek",
]


def test_days_to_first_harvest_are_stated_with_what_the_count_starts_from():
    for crop_id in VEGETABLES:
        fact = _crop(crop_id).fact("days_to_first_harvest")
        assert fact is not None, crop_id
        assert fact.unit == "days" and fact.cap is None, crop_id
        assert fact.extra["basis"] in BASES, crop_id
        assert fact.derived is False, crop_id
        assert 0 < fact.min <= fact.max < fact_max_days(crop_id), crop_id
    # No source found states garlic's days to harvest (it is planted in autumn).
    assert _crop("garlic").fact("days_to_first_harvest") is None
    expected = {
        "lettuce": (45, 70, "sowing"),
        "radish": (22, 28, "sowing"),
        "spinach": (45, 45, "sowing"),
        "tomato": (50, 80, "transplanting"),
        "cabbage": (63, 85, "transplanting"),
        "leek": (60, 80, "transplanting"),
        "potato": (100, 120, "sowing"),
    }
    for crop_id, (low, high, basis) in expected.items():
        fact = _crop(crop_id).fact("days_to_first_harvest")
        assert (fact.min, fact.max, fact.extra["basis"]) == (low, high, basis), crop_id
    from_sowing = _crop("leek").fact("days_to_first_harvest").extra["variants"]["from sowing"]
    assert (from_sowing["min"], from_sowing["max"], from_sowing["basis"]) == (90, 100, "sowing")


def fact_max_days(crop_id: str) -> float:
    """First harvest comes before the end of the FAO-56 season, where FAO-56 lists the crop."""
    season = _crop(crop_id).fact("total_growing_period_days")
    return season.max + 1 if season else 365


def test_days_from_sowing_to_transplanting_are_weeks_times_seven_or_days():
    expected = {"tomato": (25, 35), "cabbage": (28, 42), "cucumber": (21, 28)}
    for crop_id, bounds in expected.items():
        fact = _crop(crop_id).fact("days_sowing_to_transplant")
        assert (fact.min, fact.max) == bounds, crop_id
        assert fact.unit == "days" and not fact.derived, crop_id


def test_load_library_rejects_days_to_first_harvest_without_a_basis(tmp_path):
    data = _small_library()
    days = {
        "min": 50,
        "max": 60,
        "cap": None,
        "unit": "days",
        "source": "src",
        "claim": "The source states 50-60 days to harvest.",
        "derived": False,
    }
    data["crops"][0]["facts"]["days_to_first_harvest"] = days
    with pytest.raises(ValueError, match=r"crop 'tomato', fact 'days_to_first_harvest': 'basis'"):
        load_library(_write(tmp_path, data))
    days["basis"] = "transplanting"
    fact = load_library(_write(tmp_path, data)).get("tomato").fact("days_to_first_harvest")
    assert fact.extra["basis"] == "transplanting"


def test_tkg_is_absent_where_it_does_not_apply():
    assert _crop("potato").fact("thousand_kernel_weight_g") is None
    assert _crop("garlic").fact("thousand_kernel_weight_g") is None


def test_crop_names_fall_back_to_english_and_facts_are_read_only():
    tomato = _crop("tomato")
    assert tomato.name() == "Tomato"
    assert tomato.name("ja") == "トマト"
    assert tomato.name("xx") == "Tomato"
    assert tomato.fact("no_such_fact") is None
    with pytest.raises(TypeError):
        tomato.facts["x"] = tomato.facts["yield_per_sqm_kg"]  # type: ignore[index]


def test_library_is_loaded_once():
    assert library() is library()


def test_a_valid_small_file_loads(tmp_path):
    lib = load_library(_write(tmp_path, _small_library()))
    assert [crop.id for crop in lib.crops] == ["tomato", "potato"]
    assert lib.resolve("Potatoes").id == "potato"


def test_load_library_rejects_a_fact_citing_an_unknown_source(tmp_path):
    data = _small_library()
    data["crops"][1]["facts"]["yield_per_sqm_kg"]["source"] = "nowhere"
    with pytest.raises(ValueError, match=r"crop 'potato', fact 'yield_per_sqm_kg'.*'nowhere'"):
        load_library(_write(tmp_path, data))


def test_load_library_rejects_an_alias_used_by_two_crops(tmp_path):
    data = _small_library()
    data["crops"][1]["aliases"].append("Tomatoes")
    with pytest.raises(ValueError, match=r"crop 'potato'.*'Tomatoes'.*'tomato'"):
        load_library(_write(tmp_path, data))


def test_load_library_rejects_a_non_web_source_url(tmp_path):
    data = _small_library()
    data["sources"]["src"]["url"] = "file:///etc/passwd"
    with pytest.raises(ValueError, match="source 'src'"):
        load_library(_write(tmp_path, data))


def test_load_library_rejects_min_above_max_and_cap_below_max(tmp_path):
    data = _small_library()
    data["crops"][0]["facts"]["yield_per_sqm_kg"].update(min=5, max=2)
    with pytest.raises(ValueError, match=r"crop 'tomato', fact 'yield_per_sqm_kg': min"):
        load_library(_write(tmp_path, data))
    data = _small_library()
    data["crops"][0]["facts"]["yield_per_sqm_kg"].update(cap=1.5)
    with pytest.raises(ValueError, match=r"crop 'tomato', fact 'yield_per_sqm_kg': cap"):
        load_library(_write(tmp_path, data))


def test_load_library_rejects_duplicate_crop_ids(tmp_path):
    data = _small_library()
    data["crops"][1]["id"] = "tomato"
    data["crops"][1]["aliases"] = []
    data["crops"][1]["names"] = {"en": "Tomato again"}
    with pytest.raises(ValueError, match="crop 'tomato' appears twice"):
        load_library(_write(tmp_path, data))


def test_library_can_be_built_from_parsed_json():
    lib = ReferenceLibrary.from_data(_small_library())
    assert lib.get("tomato").fact("yield_per_sqm_kg").source.title == "A"
    assert lib.get("dragonfruit") is None


def test_crops_and_facts_can_be_kept_in_sets():
    tomato = _crop("tomato")
    assert {tomato, library().resolve("Tomate")} == {tomato}
    assert len({fact for fact in tomato.facts.values()}) == len(tomato.facts)
