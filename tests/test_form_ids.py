"""Ids in forms are read by one rule (webapp.ids): "²" (a digit to str.isdigit that int()
refuses), Arabic-Indic digits, thirty digits, a negative or zero name no record, so the page
answers as it does for an id that does not exist — never a 500."""

import re

import pytest

from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.fertilizer.target import plan_id_of
from webapp.ids import MAX_ID, digits_at_most, record_id, record_ids

NOT_IDS = ["²", "٣", "1" * 30, "-1", "0", " 7", "7 ", "1.5", "", str(MAX_ID + 1)]


@pytest.mark.parametrize("raw", NOT_IDS)
def test_what_names_no_record_is_none(raw):
    assert record_id(raw) is None
    assert plan_id_of(raw) is None and plan_id_of({"plan_id": raw}) is None


def test_ids_are_read_in_order_once_each():
    assert record_ids(["3", "²", "1", "3", str(MAX_ID), True, 5]) == [3, 1, MAX_ID, 5]
    assert record_id(True) is None and record_id(0) is None and record_id(MAX_ID + 1) is None
    assert plan_id_of({"plan_id": 12}) == 12 and plan_id_of({"plan_id": "12"}) == 12


def test_a_culture_batch_of_ids_that_name_nothing_asks_for_a_choice(client_as):
    editor = client_as("editor")
    culture = Culture(name="Kohlrabi")
    db.session.add(culture)
    db.session.commit()
    for raw in NOT_IDS:
        response = editor.submit("/cultures/enrich-batch", {"culture": raw}, page="/cultures")
        assert response.status_code == 302, raw
        assert "Select at least one culture." in editor.get("/cultures").get_data(as_text=True)
    # A real id sent with them is the batch.
    chosen = editor.submit(
        "/cultures/enrich-batch", {"culture": ["²", str(culture.id)]}, page="/cultures"
    )
    page = chosen.get_data(as_text=True)
    assert chosen.status_code == 200 and "Enrich 1 culture(s)?" in page
    assert f'name="culture" value="{culture.id}"' in page


def test_a_plan_form_naming_no_culture_by_id_says_so(client_as, idle_queue):
    editor = client_as("editor")
    for raw in ("²", "1" * 30):
        response = editor.submit("/fertilizer", {"culture": raw}, page="/fertilizer")
        assert response.status_code == 422, raw


@pytest.mark.parametrize("limit", [1, 9, 10, 19, 20, 101, 2024, 987_654, MAX_ID])
def test_the_url_pattern_of_ids_matches_exactly_one_to_the_limit(limit):
    pattern = re.compile(digits_at_most(limit) + r"\Z")
    numbers = {*range(0, min(limit * 2, 3000)), limit - 1, limit, limit + 1, limit * 10}
    for n in numbers:
        assert bool(pattern.match(str(n))) == (1 <= n <= limit), (limit, n)
    assert not pattern.match("007") and not pattern.match("٣")


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_an_id_beyond_any_record_is_404_for_every_method(client_as, method):
    client = client_as("admin")
    csrf = {"X-CSRFToken": client.csrf_token()}
    response = client.open(f"/api/v1/cultures/{MAX_ID + 1}", method=method, headers=csrf)
    assert response.status_code == 404
    assert response.get_json()["error"]["code"] == "not_found"
