import pytest

from webapp.systems.indicators import (
    CHARGE_KEYS,
    IFT_SEGMENTS,
    INDICATORS,
    Level,
    Made,
    indicator,
    keys_at,
)

ITINERA_KEYS = {
    "frequence",
    "semences",
    "engrais",
    "coutsPhytos",
    "mecanisation",
    "irrigation",
    "azoteMineral",
    "azoteOrganique",
    "ift",
    "eiq",
    "gnr",
    "coutGnr",
    "tempsTravail",
    "ges",
    "rendement",
    "prixVente",
    "totalProduits",
    "totalCharges",
    "margeBrute",
}


def test_registry_keeps_itinera_keys():
    assert set(INDICATORS) == ITINERA_KEYS


def test_every_indicator_has_labels_unit_and_levels():
    for item in INDICATORS.values():
        assert item.label_fr and item.label_en and item.unit and item.levels


def test_fuel_volume_and_cost_kept_apart():
    assert indicator("gnr").unit == "L/ha"
    assert indicator("coutGnr").unit == "€/ha"


def test_derived_and_charges():
    assert {k for k, i in INDICATORS.items() if i.made == Made.derived} == {
        "totalProduits",
        "totalCharges",
        "margeBrute",
    }
    assert set(CHARGE_KEYS) == {
        "coutsPhytos",
        "semences",
        "engrais",
        "mecanisation",
        "coutGnr",
        "irrigation",
    }


def test_ift_segments_and_labels():
    assert IFT_SEGMENTS[-2:] == ("biocontrol", "seed_treatment")
    assert indicator("ift").label("en") == "Treatment frequency index"


def test_levels():
    assert "frequence" in keys_at(Level.intervention)
    assert "frequence" not in keys_at("step")
    assert "prixVente" not in keys_at("intervention")


def test_unknown_key_names_the_known_ones():
    with pytest.raises(KeyError, match="margeBrute"):
        indicator("nope")
