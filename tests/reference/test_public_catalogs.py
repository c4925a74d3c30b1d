"""Two public vegetable lists read name by name: every name finds the crop of its species (and
type) or nothing, and no known confusion finds the crop it is not.

Judged by hand, by species: a name is right when the library crop is the species (and crop
type) the list means; "Corn" in a produce or garden list is sweet corn or grain maize, which
the name does not say, so it matches nothing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from webapp.reference.library import _contains, _singulars, _words, library

DATA = Path(__file__).with_name("data")

# Name -> the library crop it is; every other name of the list matches nothing.
HOWFRESH = {
    "Brussels sprouts": "brussels_sprouts",
    "Spinach": "spinach",
    "Onions": "onion",
    "Tomatoes": "tomato",
    "Parsnips": "parsnip",
    "Arugula": "rocket",
    "Cauliflower": "cauliflower",
    "Peas": "pea",
    "Peppers, sweet": "bell_pepper",
    "Pumpkins": "winter_squash",
    "Garlic": "garlic",
    "Celeriac": "celeriac",
    "Cabbage": "cabbage",
    "Zucchini": "zucchini",
    "Chard": "swiss_chard",
    "Radishes": "radish",
    "Beets": "table_beet",
    "Potatoes": "potato",
    "Cucumbers": "cucumber",
    "Eggplant": "aubergine",
    "Squash, summer": "zucchini",
    "Kale": "kale",
    "Fava beans": "faba_bean",
    "Carrots": "carrot",
    "Squash, winter": "winter_squash",
    "Lettuce": "lettuce",
    "Fennel": "fennel",
    "Green beans": "green_bean",
    "Kohlrabi": "kohlrabi",
    "Broccoli": "broccoli",
    "Leeks": "leek",
}
MARYS = {
    "Bean-Bush": "green_bean",
    "Beets": "table_beet",
    "Broccoli": "broccoli",
    "Brussels Sprouts": "brussels_sprouts",
    "Cabbage": "cabbage",
    "Carrots": "carrot",
    "Cauliflower": "cauliflower",
    "Cucumber": "cucumber",
    "Eggplant": "aubergine",
    "Kale": "kale",
    "Kohlrabi": "kohlrabi",
    "Leeks": "leek",
    "Lettuce-heading": "lettuce",
    "Lettuce-loose leaf": "lettuce",
    "Onion": "onion",
    "Parsnips": "parsnip",
    "Peas": "pea",
    "Peppers": "bell_pepper",
    "Potatoes": "potato",
    "Pumpkin": "winter_squash",
    "Radish": "radish",
    "Spinach": "spinach",
    "Squash-summer": "zucchini",
    "Squash-winter": "winter_squash",
    "Swiss Chard": "swiss_chard",
    "Tomatoes": "tomato",
    "Melon": "melon",
}
LISTS = [
    ("howfresh_vegetables.txt", HOWFRESH, 79),
    ("marys_spacing_chart.txt", MARYS, 46),
]


def names_of(file_name: str) -> list[str]:
    lines = (DATA / file_name).read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize(("file_name", "expected", "size"), LISTS)
def test_each_name_of_a_public_list_finds_its_species_crop_or_nothing(file_name, expected, size):
    names = names_of(file_name)
    assert len(names) == size >= 46 and len(set(names)) == size
    assert set(expected) <= set(names)
    found = {name: crop.id if (crop := library().resolve(name)) else None for name in names}
    wrong = {
        name: crop
        for name, crop in found.items()
        if crop is not None and expected.get(name) != crop
    }
    missed = {name: crop for name, crop in expected.items() if found[name] != crop}
    assert wrong == {} and missed == {}
    matched = sum(crop is not None for crop in found.values())
    assert matched == len(expected)


def test_the_two_lists_hold_at_least_fifty_names_and_their_counts_are_known():
    counts = {}
    for file_name, expected, _size in LISTS:
        names = names_of(file_name)
        counts[file_name] = (len(expected), len(names) - len(expected))
    assert counts == {"howfresh_vegetables.txt": (31, 48), "marys_spacing_chart.txt": (27, 19)}
    assert sum(len(names_of(file_name)) for file_name, *_ in LISTS) >= 50


# The names of the lists that are another species or type than a library crop they hold a
# name of: each matches nothing, and the library says which confusion it is.
CONFUSED = {
    "howfresh_vegetables.txt": [
        "Corn",
        "Broccoli rabe",
        "Pea shoots",
        "Green garlic",
        "Bok choy",
        "Peppers, chile",
        "Sweet potatoes",
    ],
    "marys_spacing_chart.txt": [
        "Corn",
        "Bean-Pole",
        "Pigeon Peas",
        "Chinese Cabbage",
        "Sweet Potato",
    ],
}


@pytest.mark.parametrize("file_name", sorted(CONFUSED))
def test_no_known_confusion_in_a_public_list_finds_the_crop_it_is_not(file_name):
    lib = library()
    names = names_of(file_name)
    for name in CONFUSED[file_name]:
        assert name in names
        assert lib.resolve(name) is None, name
        assert lib.confusion(name) is not None, name
    # Any name of the list holding a confusion of several words never finds a crop it is not.
    for name in names:
        words = _singulars(_words(name.replace("-", " ")))
        crop = lib.resolve(name)
        for confusion in lib.confusions:
            if len(confusion.words) > 1 and _contains(words, _singulars(confusion.words)):
                assert crop is None or crop.id not in confusion.not_crops, name
