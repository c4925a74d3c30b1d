"""One page of a list, for every paginated list and its API."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Select

COUNT_DIGITS = 9  # a page or a count beyond a billion is no request anyone makes
MOST_PER_PAGE = 500  # the longest page any list serves (a table's rows through the API)


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
    """One page of a select's rows, with the total count of all of them: Flask-SQLAlchemy's
    paginate, which answers a page past the last with no rows rather than a 404."""
    from webapp.extensions import db

    found = db.paginate(
        query, page=number, per_page=per_page, max_per_page=MOST_PER_PAGE, error_out=False
    )
    return Page(found.items, found.page, found.per_page, found.total or 0)


def count_of(raw: str) -> int | None:
    """A positive whole number from a query argument, None for anything else: ASCII digits
    only ("²" is a digit to str.isdigit, and int() refuses it) and few of them (int() of
    thousands of digits raises)."""
    if not (raw.isascii() and raw.isdigit()) or len(raw) > COUNT_DIGITS:
        return None
    return int(raw) or None


def page_number(args) -> int:
    """The ?page= of a request, 1 when missing or not a positive number."""
    return count_of(args.get("page", "1")) or 1


def per_page(args, default: int, most: int = 200) -> int:
    """The ?per_page= of an API request, within 1..most."""
    count = count_of(args.get("per_page", ""))
    return min(most, count) if count else default


def paginate_list(items: list[Any], number: int, per_page: int) -> Page:
    """One page of a list already in memory, as paginate answers a select."""
    start = (number - 1) * per_page
    return Page(items[start : start + per_page], number, per_page, len(items))
