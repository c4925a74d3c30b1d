"""Which reference crop a culture is matched to, as the culture page and its suggestions say it:
"Pea, Pisum sativum", or no crop and why."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from sqlalchemy import select

from webapp.cultures.fields import NO_CROP
from webapp.cultures.models import Culture
from webapp.database import among
from webapp.extensions import db
from webapp.reference.library import Confusion, Crop, library


@dataclass(frozen=True)
class ReferenceMatch:
    crop: Crop | None
    confusion: Confusion | None = None
    unknown: str | None = None  # a stored crop key the library does not hold
    chosen: bool = False  # a person chose the crop, or chose none

    @property
    def text(self) -> str:
        if self.crop is not None:
            return self.crop.label() + (" (chosen by a person)" if self.chosen else "")
        if self.chosen:
            return "no reference crop: a person said none of the library's applies"
        if self.confusion is not None:
            wrong = ", ".join(
                crop.name() for key in self.confusion.not_crops if (crop := library().get(key))
            )
            return (
                f"no reference crop: the name is a known confusion, {self.confusion.species}"
                f" ({self.confusion.note}), not {wrong}"
            )
        if self.unknown:
            return f"no reference crop: the library has no crop “{self.unknown}”"
        return "no reference crop: the name matches none"


def reference_match(
    name: str, variety: str | None, reference_crop: str | None, chosen: bool = False
) -> ReferenceMatch:
    """The crop a person chose (or their "none"), as they chose it; else the stored reference
    crop, unless the name is a known confusion of it (a culture "Black Eyed Peas" stored as pea
    before confusions were known); without a stored crop, the one the name resolves to."""
    reference = library()
    if chosen and reference_crop == NO_CROP:
        return ReferenceMatch(None, chosen=True)
    if reference_crop:
        crop = reference.get(reference_crop)
        if crop is None:
            return ReferenceMatch(None, unknown=reference_crop)
        if chosen:
            return ReferenceMatch(crop, chosen=True)
        confusion = reference.confusion_with(crop, name or "", variety or None)
        return ReferenceMatch(None, confusion) if confusion else ReferenceMatch(crop)
    crop = reference.resolve(name or "", variety or None)
    if crop is not None:
        return ReferenceMatch(crop)
    return ReferenceMatch(None, reference.confusion(name or "", variety or None))


def culture_match(culture: Culture) -> ReferenceMatch:
    return reference_match(
        culture.name, culture.variety, culture.reference_crop, culture.reference_crop_chosen
    )


def reference_matches(ids: Collection[int]) -> dict[int, ReferenceMatch]:
    """The match of each of these cultures, in one query."""
    query = select(
        Culture.id,
        Culture.name,
        Culture.variety,
        Culture.reference_crop,
        Culture.reference_crop_chosen,
    ).where(among(db.session, Culture.id, ids))
    return {
        i: reference_match(name, variety, crop, chosen)
        for i, name, variety, crop, chosen in db.session.execute(query)
    }
