"""One page of a list, for every paginated list and its API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select, func, select


@dataclass(frozen=True)
class Page:
    items: list[Any]
    number: int
    per_page: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, -(-self.total // self.per_page))

    def as_json(self, name: str, items: list[Any]) -> dict[str, Any]:
        """An API list answer: the items under name, with where this page stands."""
        return {
            name: items,
            "page": self.number,
            "per_page": self.per_page,
            "total": self.total,
            "pages": self.pages,
        }


def paginate(query: Select, number: int, per_page: int) -> Page:
    """One page of a select's rows, with the total count of all of them."""
    from webapp.extensions import db

    number = max(1, number)
    total = db.session.scalar(select(func.count()).select_from(query.order_by(None).subquery()))
    items = db.session.scalars(query.limit(per_page).offset((number - 1) * per_page)).all()
    return Page(list(items), number, per_page, total or 0)


def page_number(args) -> int:
    """The ?page= of a request, 1 when missing or not a positive number."""
    raw = args.get("page", "1")
    return int(raw) if raw.isdigit() and int(raw) > 0 else 1


def per_page(args, default: int, most: int = 200) -> int:
    """The ?per_page= of an API request, within 1..most."""
    raw = args.get("per_page", "")
    return min(most, int(raw)) if raw.isdigit() and int(raw) > 0 else default
