"""Demo cultures for a new install: one per reference-library crop, with only what it knows."""

from __future__ import annotations

from sqlalchemy import func, select

from webapp.cultures.catalog import create_culture
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.reference.library import library


def load_demo_cultures() -> int:
    """Add the demo cultures when the catalog is empty; return how many were added."""
    if db.session.scalar(select(func.count()).select_from(Culture)):
        return 0
    # Name, family and reference crop only: the rest is what enrichment is for.
    for crop in library().crops:
        create_culture(
            {"name": crop.name("en"), "crop_family": crop.family, "reference_crop": crop.id}
        )
    db.session.commit()
    return len(library().crops)
