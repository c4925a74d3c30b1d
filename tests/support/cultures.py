"""Cultures that tests share."""

from webapp.cultures.models import Culture
from webapp.extensions import db


def add_crowded_tomato() -> Culture:
    """A tomato at 10 × 10 cm (100 plants/m²): any per-plant tomato yield then implies an
    impossible yield per m², so its yield suggestion is always invalid."""
    culture = Culture(
        name="Tomate",
        variety="Harzfeuer",
        reference_crop="tomato",
        harvest_method="per_plant",
        distance_within_row_cm=10,
        row_spacing_cm=10,
    )
    db.session.add(culture)
    db.session.commit()
    return culture
