"""The column names a culture file may give each field, in English, German and French: the
import reads them, the import page lists them and its templates are written from them."""

from __future__ import annotations

from webapp.cultures.fields import CULTURE_FIELDS
from webapp.review.fields import alias_key

LANGUAGES = {"en": "English", "de": "Deutsch", "fr": "Français"}

# English is the field's own name, the one the export writes.
HEADERS: dict[str, dict[str, str]] = {
    "name": {"de": "Name", "fr": "Nom"},
    "variety": {"de": "Sorte", "fr": "Variété"},
    "crop_family": {"de": "Pflanzenfamilie", "fr": "Famille botanique"},
    "reference_crop": {"de": "Referenzkultur", "fr": "Culture de référence"},
    "cultivation_types": {"de": "Anbauarten", "fr": "Modes de culture"},
    "nutrient_demand": {"de": "Nährstoffbedarf", "fr": "Besoin en nutriments"},
    "growth_duration_days": {"de": "Kulturdauer (Tage)", "fr": "Durée de culture (jours)"},
    "harvest_duration_days": {"de": "Erntedauer (Tage)", "fr": "Durée de récolte (jours)"},
    "propagation_duration_days": {
        "de": "Anzuchtdauer (Tage)",
        "fr": "Durée d'élevage des plants (jours)",
    },
    "harvest_method": {"de": "Erntemethode", "fr": "Méthode de récolte"},
    "expected_yield": {"de": "Erwarteter Ertrag (kg)", "fr": "Rendement attendu (kg)"},
    "distance_within_row_cm": {
        "de": "Abstand in der Reihe (cm)",
        "fr": "Distance sur le rang (cm)",
    },
    "row_spacing_cm": {"de": "Reihenabstand (cm)", "fr": "Écartement des rangs (cm)"},
    "sowing_depth_cm": {"de": "Saattiefe (cm)", "fr": "Profondeur de semis (cm)"},
    "seed_rate_value": {"de": "Saatmenge", "fr": "Densité de semis"},
    "seed_rate_unit": {"de": "Einheit der Saatmenge", "fr": "Unité de densité de semis"},
    "thousand_kernel_weight_g": {
        "de": "Tausendkorngewicht (g)",
        "fr": "Poids de mille grains (g)",
    },
    "seed_packages": {"de": "Saatgutpackungen", "fr": "Sachets de semences"},
    "notes": {"de": "Notizen", "fr": "Notes"},
    "structured_sources": {"de": "Quellen", "fr": "Sources"},
}


def header(field: str, language: str) -> str:
    """The column name of field in language (a key of LANGUAGES)."""
    return field if language == "en" else HEADERS[field][language]


def headers(language: str) -> list[str]:
    """Every field's column name in language, in the export's order."""
    return [header(field, language) for field in CULTURE_FIELDS]


# Case, spaces, underscores and hyphens aside, as choices are read.
_FIELD_OF = {
    alias_key(header(field, language)): field for field in CULTURE_FIELDS for language in LANGUAGES
}


def field_of(column: str) -> str | None:
    """The field a column name stands for ("Sorte", "Variety", "variety"), or None."""
    return _FIELD_OF.get(alias_key(column))
