"""The farm-system indicators: one registry of itinera's keys (kept so files round-trip), each
with its labels, unit, the levels it appears at and how its value is made."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Made(StrEnum):
    calculated = "calculated"  # by a calculator from cited figures and the user's assumptions
    derived = "derived"  # arithmetic over other indicators
    entered = "entered"  # a person knows it (their yield, their frequency)
    ai = "ai"  # no cited figure: proposed by a model, reviewed by a person


class Level(StrEnum):
    intervention = "intervention"
    step = "step"
    system = "system"


@dataclass(frozen=True)
class Indicator:
    key: str
    label_fr: str
    label_en: str
    unit: str
    levels: tuple[Level, ...]
    made: Made
    formula: str = ""  # for derived indicators, in words

    def label(self, language: str = "fr") -> str:
        return self.label_en if language == "en" else self.label_fr


# The official IFT reports these apart (MAA guide v3, 2018; ift-api segments S1-S6).
IFT_SEGMENTS = ("herbicide", "fungicide", "insecticide", "other", "biocontrol", "seed_treatment")
# Biocontrol and seed treatments have IFTs of their own, outside the total.
IFT_TOTAL_SEGMENTS = ("herbicide", "fungicide", "insecticide", "other")

CHARGE_KEYS = ("coutsPhytos", "semences", "engrais", "mecanisation", "coutGnr", "irrigation")
STEP_OVERRIDES = ("rendement", "prixVente", "irrigation", "totalProduits")
DERIVED_KEYS = ("totalProduits", "totalCharges", "margeBrute")

_ALL = (Level.intervention, Level.step, Level.system)
_STEP_UP = (Level.step, Level.system)

INDICATORS: dict[str, Indicator] = {
    i.key: i
    for i in (
        Indicator(
            "frequence",
            "Fréquence",
            "Frequency",
            "times/year",
            (Level.intervention,),
            Made.entered,
            "times per year; 0.5 = every other year",
        ),
        Indicator("semences", "Semences", "Seeds", "€/ha", _ALL, Made.ai),
        Indicator("engrais", "Engrais", "Fertiliser", "€/ha", _ALL, Made.ai),
        Indicator("coutsPhytos", "Coûts phytos", "Crop protection", "€/ha", _ALL, Made.calculated),
        Indicator("mecanisation", "Mécanisation", "Machinery", "€/ha", _ALL, Made.calculated),
        Indicator("irrigation", "Irrigation", "Irrigation", "€/ha", _ALL, Made.entered),
        Indicator("azoteMineral", "Azote minéral", "Mineral N", "kg N/ha", _ALL, Made.calculated),
        Indicator(
            "azoteOrganique", "Azote organique", "Organic N", "kg N/ha", _ALL, Made.calculated
        ),
        Indicator(
            "ift",
            "IFT",
            "Treatment frequency index",
            "IFT",
            _ALL,
            Made.calculated,
            "Σ dose applied ÷ reference dose × share treated",
        ),
        Indicator("eiq", "EIQ", "EIQ field use rating", "EIQ", _ALL, Made.calculated),
        Indicator("gnr", "GNR", "Fuel", "L/ha", _ALL, Made.calculated),
        Indicator(
            "coutGnr", "Coût GNR", "Fuel cost", "€/ha", _ALL, Made.calculated, "gnr × fuel price"
        ),
        Indicator("tempsTravail", "Temps de travail", "Work time", "h/ha", _ALL, Made.calculated),
        Indicator("ges", "GES", "Greenhouse gases", "kg CO2e/ha", _ALL, Made.calculated),
        Indicator("rendement", "Rendement", "Yield", "t/ha", _STEP_UP, Made.entered),
        Indicator("prixVente", "Prix de vente", "Sale price", "€/t", _STEP_UP, Made.ai),
        Indicator(
            "totalProduits",
            "Total produits",
            "Total output",
            "€/ha",
            _STEP_UP,
            Made.derived,
            "rendement × prixVente",
        ),
        Indicator(
            "totalCharges",
            "Total charges",
            "Total costs",
            "€/ha",
            _ALL,
            Made.derived,
            " + ".join(CHARGE_KEYS),
        ),
        Indicator(
            "margeBrute",
            "Marge brute",
            "Gross margin",
            "€/ha",
            _STEP_UP,
            Made.derived,
            "totalProduits − totalCharges",
        ),
    )
}

# Grain yields are often written in quintals; a step says which unit its yield is in.
YIELD_UNITS = ("t/ha", "q/ha")


def indicator(key: str) -> Indicator:
    """The indicator for key; KeyError names the known keys."""
    try:
        return INDICATORS[key]
    except KeyError:
        raise KeyError(f"{key!r} is not an indicator; known: {', '.join(INDICATORS)}") from None


def keys_at(level: Level | str) -> tuple[str, ...]:
    """The keys of the indicators that appear at level, in registry order."""
    return tuple(k for k, i in INDICATORS.items() if Level(level) in i.levels)
