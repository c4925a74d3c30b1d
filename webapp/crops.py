"""The crop catalog as other workspaces see it, and what they keep for a crop.

The cultures workspace owns the catalog and registers it here (`register_catalog`): a crop by
id, the list to pick one from, a crop's profile for a fertilizer plan. The fertilizer workspace
registers the plans it saves to a crop (`register_plans`), which a culture's page shows. Each
reaches the other only through this module; neither imports the other. A row of another
workspace points at a crop by name: `ForeignKey(f"{TABLE}.id")`, `relationship(MODEL)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Collection
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from webapp.review.targets import ReviewTarget

TABLE = "cultures"  # the catalog's table, for a foreign key to a crop
MODEL = "Culture"  # its mapped class, for a relationship to a crop


class Crop(Protocol):
    """A culture as another workspace reads it."""

    id: int
    name: str
    variety: str
    growth_duration_days: int | None
    harvest_duration_days: int | None
    harvest_method: str | None
    expected_yield: Decimal | None

    @property
    def label(self) -> str:
        """As people tell it apart: “Tomato ‘Harzfeuer’”."""
        ...


class CropCatalog(ABC):
    """What the catalog's owner registers: subclass it and `register_catalog` an instance."""

    @abstractmethod
    def get(self, crop_id: int) -> Crop | None:
        """The crop, or None when there is none with this id."""

    @abstractmethod
    def choices(self) -> list[tuple[int, str]]:
        """Every crop as (id, label), by name."""

    @abstractmethod
    def names(self, ids: Collection[int]) -> dict[int, str]:
        """The names of the crops that exist among ids."""

    @abstractmethod
    def url(self, crop_id: int) -> str:
        """The crop's page."""

    @abstractmethod
    def profile(self, crop: Crop) -> dict[str, Any]:
        """The crop as a crop profile (the `agrr crop` document a fertilizer plan starts from)."""


_CATALOG: list[CropCatalog] = []


def register_catalog(catalog: CropCatalog) -> CropCatalog:
    _CATALOG[:] = [catalog]
    return catalog


def catalog() -> CropCatalog:
    if not _CATALOG:
        raise LookupError("no crop catalog is registered (the cultures workspace registers it)")
    return _CATALOG[0]


class CropRecords(ReviewTarget):
    """A review target whose records are crops: named and linked as the catalog does."""

    def names(self, ids: Collection[int]) -> dict[int, str]:
        return catalog().names(ids)

    def url(self, target_id: int) -> str:
        return catalog().url(target_id)


@dataclass(frozen=True)
class CropPlans:
    """The plans another workspace saves to a crop, as the crop's page shows them."""

    target: str  # the review target of a crop's current plan: its changes are the crop's too
    saved_to: Callable[[int], list[Any]]  # the plans saved to a crop (by id), newest first
    field: str  # the field of the target its changes set
    words: Callable[[Any], str]  # one of its values in words, for the crop's history


_PLANS: list[CropPlans] = []


def register_plans(plans: CropPlans) -> CropPlans:
    _PLANS[:] = [plans]
    return plans


def plan_targets() -> tuple[str, ...]:
    """The review targets whose changes and suggestions belong to a crop besides its own."""
    return tuple(p.target for p in _PLANS)


def plans_of(crop_id: int) -> list[Any]:
    """The plans saved to a crop, newest first (none when no workspace keeps plans)."""
    return [plan for p in _PLANS for plan in p.saved_to(crop_id)]


def plan_words(field: str, value: Any) -> str | None:
    """A plan's value in a crop's history in words; None for a field no plans keep."""
    return next((p.words(value) for p in _PLANS if p.field == field), None)
