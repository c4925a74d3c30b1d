"""The one undo every workspace's pages post to: which groups it takes back is the targets' to
say, once; it returns to the page that asked, if that page is this site's."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

import pytest

from tests.support.html import soup
from webapp.extensions import db
from webapp.review import service
from webapp.review.audit import record_changes
from webapp.review.targets import ReviewTarget, register_target


class Beds(ReviewTarget):
    """Records are dicts grouped in gardens; a group across gardens is no one garden's."""

    kind = "test_bed"
    label = "Bed"
    undo_sources = ("apply",)

    def __init__(self) -> None:
        self.records: dict[int, dict[str, Any]] = {}
        self.garden: dict[int, str] = {}

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: dict(self.records[i]) for i in ids if i in self.records}

    def write(self, target_id: int, values: Mapping[str, Any], user) -> dict[str, tuple[Any, Any]]:
        record = self.records[target_id]
        changed = {f: (record.get(f), v) for f, v in values.items() if record.get(f) != v}
        record.update(values)
        return changed

    def names(self, ids: Collection[int]) -> dict[int, str]:
        return {i: f"Bed {i}" for i in ids if i in self.records}

    def field_label(self, field: str) -> str:
        return field.capitalize()

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        return super().owns(ids, sources) and len({self.garden[i] for i in ids}) == 1

    def back_url(self, ids: Collection[int]) -> str | None:
        return f"/gardens/{self.garden[min(ids)]}"


BEDS = register_target(Beds())


@pytest.fixture
def beds(app):
    BEDS.records = {1: {"depth": 2}, 2: {"depth": 5}, 3: {"depth": 1}}
    BEDS.garden = {1: "north", 2: "north", 3: "south"}
    return BEDS


def changed(beds: Beds, values: dict[int, dict[str, Any]], source: str = "apply") -> str:
    """Write values as one group made by source, as an apply would; returns the group."""
    group = None
    for target_id, mine in values.items():
        done = beds.write(target_id, mine, None)
        group = record_changes(beds.kind, target_id, done, None, source, group=group)
    db.session.commit()
    return group


def flashes(page) -> list[str]:
    return [li.get_text(" ", strip=True) for li in soup(page).select(".flashes li")]


def test_an_undo_restores_returns_to_the_page_that_asked_and_is_refused_twice(beds, client_as):
    group = changed(beds, {1: {"depth": 3, "width": 40}, 2: {"depth": 6}})
    reviewer = client_as("reviewer")
    undone = reviewer.submit(f"/review/undo/{group}", {"back": "/cultures?page=2"})
    assert undone.status_code == 302 and undone.headers["Location"] == "/cultures?page=2"
    assert beds.records == {1: {"depth": 2, "width": None}, 2: {"depth": 5}, 3: {"depth": 1}}
    assert flashes(reviewer.get("/cultures")) == ["Undone — Bed 1: Depth, Width; Bed 2: Depth."]
    again = reviewer.submit(f"/review/undo/{group}", {"back": "/cultures"})
    assert flashes(reviewer.get(again.headers["Location"])) == [
        "Nothing was undone: these changed since — Bed 1: Depth, Width; Bed 2: Depth."
    ]
    assert beds.records[1] == {"depth": 2, "width": None}


def test_without_a_page_of_this_site_to_return_to_the_target_says_where(beds, client_as):
    reviewer = client_as("reviewer")
    for back in ("", "//elsewhere.example/x", "https://elsewhere.example/", "/\\elsewhere"):
        group = changed(beds, {3: {"depth": 9}})
        undone = reviewer.submit(f"/review/undo/{group}", {"back": back})
        assert undone.headers["Location"] == "/gardens/south"
        assert beds.records[3] == {"depth": 1}


def test_a_group_the_target_does_not_own_is_nothing_to_undo(beds, client_as):
    across = changed(beds, {1: {"depth": 7}, 3: {"depth": 7}})  # two gardens
    typed = changed(beds, {2: {"depth": 8}}, source="manual")  # not an apply
    reviewer = client_as("reviewer")
    for group in (across, typed, "0123abcd", "not-a-group"):
        refused = reviewer.submit(f"/review/undo/{group}", {"back": "/cultures"})
        assert refused.headers["Location"] == "/cultures"
        assert flashes(reviewer.get("/cultures")) == ["There was nothing to undo."]
    assert service.undoable_group(across) is None
    assert beds.records == {1: {"depth": 7}, 2: {"depth": 8}, 3: {"depth": 7}}
    api = reviewer.post(f"/api/v1/undo/{across}", headers={"X-CSRFToken": reviewer.csrf_token("/")})
    assert api.status_code == 404 and api.get_json()["error"]["code"] == "not_found"


def test_only_a_reviewer_undoes_and_only_with_the_forms_token(beds, client_as):
    group = changed(beds, {1: {"depth": 4}})
    assert client_as("editor").submit(f"/review/undo/{group}").status_code == 403
    reviewer = client_as("reviewer")
    assert reviewer.post(f"/review/undo/{group}").status_code == 400
    assert beds.records[1] == {"depth": 4}


def test_a_long_undo_is_said_in_one_line(beds, client_as):
    beds.records |= {i: {"depth": 0} for i in range(10, 40)}
    beds.garden |= {i: "west" for i in range(10, 40)}
    group = changed(beds, {i: {f"f{n}": n for n in range(9)} for i in range(10, 40)})
    reviewer = client_as("reviewer")
    undone = reviewer.submit(f"/review/undo/{group}", {"back": "/cultures"})
    [said] = flashes(reviewer.get(undone.headers["Location"]))
    assert said == (
        "Undone — Bed 10: F0, F1, F2, F3, F4 and 4 more; Bed 11: F0, F1, F2, F3, F4 and 4 more; "
        "Bed 12: F0, F1, F2, F3, F4 and 4 more; and 27 more."
    )
