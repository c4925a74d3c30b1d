"""The bundled reference library: every value cites its source, and names resolve to crops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from webapp import ROOT
from webapp.reference.library import Crop, ReferenceLibrary, library, load_library

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
    fact = {
        "min": 1,
        "max": 2,
        "cap": 3,
        "unit": "kg/m²",
        "source": "src",
        "claim": "The source states 1–2 kg/m².",
        "derived": False,
    }
    data: dict = {
        "sources": {"src": {"url": "https://example.org/a", "title": "A", "publisher": "P"}},
        "crops": [
            {
                "id": "tomato",
                "names": {"en": "Tomato"},
                "aliases": ["tomatoes"],
                "family": "Solanaceae",
                "facts": {"yield_per_sqm_kg": dict(fact)},
            },
            {
                "id": "potato",
                "names": {"en": "Potato"},
                "aliases": ["potatoes"],
                "family": "Solanaceae",
                "facts": {"yield_per_sqm_kg": dict(fact)},
            },
        ],
    }
    data.update(changes)
    return data


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


def test_the_bundled_file_cites_sources_named_in_the_shared_source_list():
    if not SOURCE_FILE.exists():
        pytest.skip("shared source list not present")
    text = SOURCE_FILE.read_text(encoding="utf-8")
    # FAO-56 and AquaCrop are named there without an address; the rest are quoted verbatim.
    named_elsewhere = {"fao_56_table_11", "aquacrop_crop_presets"}
    for source in library().sources.values():
        if source.id not in named_elsewhere:
            assert source.url in text, source.id


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
        ("corn", "grain_maize"),
        ("トウモロコシ", "grain_maize"),
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
    assert lib.resolve("Lamb's lettuce") is None
    assert lib.resolve("blé dur") is None
    assert lib.resolve("Tomatoe") is None  # no fuzzy similarity


def test_derived_facts_are_the_ones_the_sources_call_derived():
    tomato = _crop("tomato")
    potato = _crop("potato")
    wheat = _crop("winter_wheat")
    for fact in (
        tomato.fact("yield_per_sqm_kg"),
        tomato.fact("yield_per_plant_kg"),
        tomato.fact("plants_per_m2"),
        wheat.fact("thousand_kernel_weight_g"),
        potato.fact("nutrient_demand_class"),
    ):
        assert fact is not None
        assert fact.derived is True, fact.name
        assert "not a quotation" in fact.claim
    for fact in (
        potato.fact("n_demand_kg_per_ha"),
        potato.fact("growth_duration_days"),
        tomato.fact("nutrient_uptake_kg_per_ha"),
        _crop("cabbage").fact("nutrient_removal_lb_per_acre"),
    ):
        assert fact is not None
        assert fact.derived is False, fact.name
    for crop in library().crops:
        for name in (
            "yield_per_sqm_kg",
            "yield_per_plant_kg",
            "plants_per_m2",
            "thousand_kernel_weight_g",
            "nutrient_demand_class",
        ):
            fact = crop.fact(name)
            assert fact is None or fact.derived, (crop.id, name)


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

    lettuce_days = _crop("lettuce").fact("growth_duration_days")
    assert (lettuce_days.min, lettuce_days.max, lettuce_days.unit) == (75, 140, "days")

    sunflower_density = _crop("sunflower").fact("plants_per_m2")
    assert (sunflower_density.min, sunflower_density.max) == (5, 7)

    wheat_tkg = _crop("winter_wheat").fact("thousand_kernel_weight_g")
    assert (wheat_tkg.min, wheat_tkg.max) == (30, 55)

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
