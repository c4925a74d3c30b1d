"""The right crop, or none: species and crop types, catalog forms, and known confusions."""

from __future__ import annotations

import json
import re

import pytest

from tests.reference.libraries import crop_entry, small_library
from webapp.reference.library import (
    DEFAULT_PATH,
    ReferenceLibrary,
    catalog_reading,
    library,
)

CONFUSIONS = json.loads(DEFAULT_PATH.read_text(encoding="utf-8"))["confusions"]
BINOMIAL = re.compile(r"^(× )?[A-Z][a-z]+( (× )?[a-z]+)?")


def test_every_crop_names_its_species():
    for crop in library().crops:
        assert BINOMIAL.match(crop.species), (crop.id, crop.species)


def test_one_species_with_several_library_crops_names_each_crops_type():
    by_species: dict[str, list] = {}
    for crop in library().crops:
        by_species.setdefault(crop.species, []).append(crop)
    for species, crops in by_species.items():
        if len(crops) > 1:
            types = [crop.crop_type for crop in crops]
            assert all(types), (species, [crop.id for crop in crops])
            assert len(set(types)) == len(types), species


def test_the_label_names_the_crop_its_species_and_a_type_its_name_does_not_say():
    lib = library()
    assert lib.get("pea").label() == "Pea, Pisum sativum"
    assert lib.get("sweet_corn").label() == "Sweet corn, Zea mays"
    assert lib.get("grain_maize").label() == "Grain maize, Zea mays"
    assert lib.get("zucchini").label() == "Zucchini, Cucurbita pepo (summer squash)"


@pytest.mark.parametrize(
    ("name", "reading"),
    [
        ("Beans, Bush", "Bush Beans"),
        ("Squash – Summer", "Summer Squash"),
        ("Squash - Winter", "Winter Squash"),
        ("Squash — Summer", "Summer Squash"),
        ("Rice, paddy", "paddy Rice"),
        ("Rote-Bete", "Rote-Bete"),
        ("Chou-fleur", "Chou-fleur"),
        ("Broad beans, horse beans, dry", "Broad beans, horse beans, dry"),
        ("Tomato - Cherry - Red", "Tomato - Cherry - Red"),
        ("Tomato", "Tomato"),
        (", Bush", ", Bush"),
    ],
)
def test_a_catalog_form_reads_as_its_second_part_before_its_first(name, reading):
    assert catalog_reading(name) == reading


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("Beans, Bush", "green_bean"),
        ("Bush beans", "green_bean"),
        ("Beans, Green", "green_bean"),
        ("Beans, Dry", "dry_bean"),
        ("Beans, Fava", "faba_bean"),
        ("Peppers", "bell_pepper"),
        ("Pepper - Bell", "bell_pepper"),
        ("Peppers, Sweet", "bell_pepper"),
        ("Squash – Summer", "zucchini"),
        ("Squash - Summer", "zucchini"),
        ("Summer squash", "zucchini"),
        ("Squash – Winter", "winter_squash"),
        ("Squash, Winter", "winter_squash"),
        ("Corn, Sweet", "sweet_corn"),
        ("Corn – Sweet Corn", "sweet_corn"),
        ("Organic sweet corn", "sweet_corn"),
        ("Field corn", "grain_maize"),
        ("Tomato - Cherry", "tomato"),
        ("Cucumber – Marketmore", "cucumber"),
        ("Chard - Swiss", "swiss_chard"),
        ("Lettuce - Leaf", "lettuce"),
        ("Pea, English", "pea"),
        ("Peas, dry", "pea"),
        ("Snap peas", "pea"),
        ("Chick peas", "chickpea"),
        ("Cabbage, Savoy", "cabbage"),
        ("Rice, paddy", "rice"),
        ("Pumpkins", "winter_squash"),
        ("Melons", "melon"),
        ("Bean-Bush", "green_bean"),
        ("Squash-summer", "zucchini"),
        ("Squash-winter", "winter_squash"),
        ("Corn-Sweet", "sweet_corn"),
        ("Rote-Bete", "table_beet"),
        ("céleri-rave", "celeriac"),
    ],
)
def test_catalog_and_plural_forms_find_the_crop_the_library_has(name, expected):
    crop = library().resolve(name)
    assert crop is not None, name
    assert crop.id == expected


@pytest.mark.parametrize("entry", CONFUSIONS, ids=[entry["name"] for entry in CONFUSIONS])
def test_every_known_confusion_matches_nothing_in_any_form(entry):
    lib = library()
    name = entry["name"]
    for said in (name, name.title(), f"{name}s", f"Organic {name}", f"{name} 'Selection'"):
        assert lib.resolve(said) is None, said
    assert lib.resolve("Organic", variety=name) is None
    confusion = lib.confusion(name)
    assert confusion is not None and confusion.name == name
    assert confusion.species == entry["species"]
    for crop_id in entry["not"]:
        assert lib.get(crop_id) is not None, crop_id


@pytest.mark.parametrize(
    ("name", "not_crop"),
    [
        ("Black Eyed Peas", "pea"),
        ("Black-eyed peas", "pea"),
        ("Cow Peas", "pea"),
        ("Peas, Southern", "pea"),
        ("Broccoli Rabe", "broccoli"),
        ("Broccoli raab", "broccoli"),
        ("Corn", "grain_maize"),
        ("Corn 'Golden Bantam'", "grain_maize"),
        ("Beans, Pole", "green_bean"),
        ("Pole beans", "green_bean"),
        ("Sweet potato", "potato"),
        ("Bok choy cabbage", "cabbage"),
        ("Cabbage - Chinese", "cabbage"),
        ("Pepper - Hot", "bell_pepper"),
        ("Jalapeño peppers", "bell_pepper"),
        ("Chillies and peppers, green", "bell_pepper"),
        ("Onions, green", "onion"),
        ("Radish - Winter", "radish"),
        ("Squash", "zucchini"),
        ("Cow peas, dry", "pea"),
        ("Cow-pea", "pea"),
        ("Pea-Cow", "pea"),
        ("Bean-Pole", "green_bean"),
        ("Pea shoots", "pea"),
        ("Green garlic", "garlic"),
    ],
)
def test_the_issues_wrong_matches_match_nothing(name, not_crop):
    lib = library()
    assert lib.resolve(name) is None, name
    assert lib.confusion(name) is not None, name
    assert not_crop in lib.confusion(name).not_crops


def test_a_name_that_matches_a_crop_is_no_confusion():
    lib = library()
    assert lib.confusion("Sweet corn") is None
    assert lib.confusion("Pea") is None
    assert lib.confusion("Dragonfruit") is None  # matches nothing, but no known confusion


def _data(**changes: object) -> dict:
    pea = crop_entry("pea", "Pea", "peas", "Fabaceae", species="Pisum sativum")
    cow_pea = {"name": "cow pea", "species": "Vigna unguiculata", "not": ["pea"], "note": "n"}
    return small_library([pea], **{"confusions": [cow_pea], **changes})


def test_a_library_file_with_confusions_loads_and_uses_them():
    lib = ReferenceLibrary.from_data(_data())
    assert lib.resolve("Peas").species == "Pisum sativum"
    assert lib.resolve("Cow peas") is None


@pytest.mark.parametrize(
    ("confusions", "message"),
    [
        ([{"name": "peas", "species": "X y", "not": ["pea"], "note": "n"}], "is a name of"),
        ([{"name": "cow pea", "species": "X y", "not": ["bean"], "note": "n"}], "unknown crop"),
        ([{"name": "cow pea", "species": "X y", "not": [], "note": "n"}], "'not' must list"),
        ([{"name": "cow pea", "not": ["pea"], "note": "n"}], "'species'"),
        ({"name": "cow pea"}, "must be a list"),
    ],
)
def test_a_bad_confusion_is_refused(confusions, message):
    with pytest.raises(ValueError, match=message):
        ReferenceLibrary.from_data(_data(confusions=confusions))
