"""Reading pages as HTML, not as strings: find elements by id and selector, compare their text."""

from __future__ import annotations

from bs4 import BeautifulSoup, Tag
from werkzeug.test import TestResponse


def soup(page: TestResponse | str) -> BeautifulSoup:
    text = page if isinstance(page, str) else page.get_data(as_text=True)
    return BeautifulSoup(text, "html.parser")


def by_id(page: TestResponse | str | BeautifulSoup, element_id: str) -> Tag:
    """The element with this id; fails the test when the page has none."""
    document = page if isinstance(page, BeautifulSoup) else soup(page)
    element = document.find(id=element_id)
    assert isinstance(element, Tag), f'no element with id="{element_id}"'
    return element


def rows(table: Tag) -> list[list[str]]:
    """The text of each cell of a table's body rows."""
    return [
        [cell.get_text(" ", strip=True) for cell in row.find_all("td")]
        for row in table.tbody.find_all("tr")
    ]


def counts_of(page) -> dict[str, str]:
    """The counts of an apply-all confirm page, by their words."""
    dl = by_id(page, "apply-all-counts")
    return {
        dt.get_text(strip=True): dd.get_text(" ", strip=True).split(" ")[0]
        for dt, dd in zip(dl.find_all("dt"), dl.find_all("dd"), strict=True)
    }
