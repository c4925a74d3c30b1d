"""Inputs found to answer 500 (or the wrong refusal) once, each sent as is: numbers too large
for any column given as text, a document nested deeper than its reader goes, a list where a
name goes, an id beyond what an id column holds with every method, and a query string key that
no call takes. Each is refused with the one error shape; none is a server fault."""

from __future__ import annotations

import json

import pytest

from tests.systems.test_system_api import itinera
from webapp.auth.models import ApiToken
from webapp.contract import openapi_document
from webapp.extensions import db

pytestmark = pytest.mark.usefixtures("idle_queue")

TOO_LARGE = ["1e27", "1e308"]
BEYOND_IDS = 2**31  # one more than the largest id a PostgreSQL integer column holds


@pytest.fixture
def admin(app, make_user):
    """A client with an administrator's bearer token: call(method, url, **kwargs)."""
    _token, secret = ApiToken.issue(make_user("admin"), "edges")
    db.session.commit()
    client = app.test_client()
    headers = {"Authorization": f"Bearer {secret}"}

    def call(method: str, url: str, **kwargs):
        return client.open(
            url, method=method, headers=headers | kwargs.pop("headers", {}), **kwargs
        )

    return call


def refused(answer, status: int = 422) -> dict:
    """The answer is the refusal `status` in the one error shape; its error."""
    assert answer.status_code == status, (answer.status_code, answer.get_data(as_text=True)[:800])
    body = answer.get_json()
    assert isinstance(body, dict) and isinstance(body.get("error"), dict), body
    assert {"code", "message"} <= body["error"].keys(), body
    return body["error"]


def not_a_fault(answer) -> None:
    assert answer.status_code < 500, (answer.status_code, answer.get_data(as_text=True)[:800])


# A culture's expected yield beyond any column, as text


@pytest.mark.parametrize("save_anyway", [False, True], ids=["checked", "save_anyway"])
@pytest.mark.parametrize("value", TOO_LARGE)
def test_a_yield_too_large_for_a_column_is_refused_on_create(admin, value, save_anyway):
    body = {"name": "Tomate", "harvest_method": "per_sqm", "expected_yield": value}
    error = refused(admin("POST", "/api/v1/cultures", json=body | {"save_anyway": save_anyway}))
    assert "expected_yield" in json.dumps(error)


@pytest.mark.parametrize("save_anyway", [False, True], ids=["checked", "save_anyway"])
@pytest.mark.parametrize("value", TOO_LARGE)
def test_a_yield_too_large_for_a_column_is_refused_on_update(admin, value, save_anyway):
    made = admin("POST", "/api/v1/cultures", json={"name": "Tomate", "harvest_method": "per_sqm"})
    assert made.status_code == 201, made.get_json()
    body = {"expected_yield": value, "save_anyway": save_anyway}
    error = refused(admin("PATCH", f"/api/v1/cultures/{made.get_json()['id']}", json=body))
    assert "expected_yield" in json.dumps(error)
    shown = admin("GET", f"/api/v1/cultures/{made.get_json()['id']}").get_json()
    assert shown["expected_yield"] is None


@pytest.mark.parametrize("dry_run", ["1", "0"])
@pytest.mark.parametrize("value", TOO_LARGE)
def test_a_yield_too_large_for_a_column_is_refused_in_a_csv_import(admin, value, dry_run):
    text = f"name;harvest_method;expected_yield\nTomate;per_sqm;{value}\n"
    answer = admin(
        "POST",
        f"/api/v1/cultures/import?dry_run={dry_run}&save_anyway=1",
        data=text,
        headers={"Content-Type": "text/csv"},
    )
    error = refused(answer)
    assert "expected_yield" in json.dumps(error)
    assert admin("GET", "/api/v1/cultures").get_json()["total"] == 0


@pytest.mark.parametrize("dry_run", ["1", "0"])
@pytest.mark.parametrize("value", TOO_LARGE)
def test_a_yield_too_large_for_a_column_is_refused_in_an_openfarmplanner_import(
    admin, value, dry_run
):
    export = [{"id": 1, "name": "Kohlrabi", "harvest_method": "per_sqm", "expected_yield": value}]
    answer = admin(
        "POST",
        f"/api/v1/cultures/import?dry_run={dry_run}&save_anyway=1",
        data=json.dumps(export),
        headers={"Content-Type": "application/json"},
    )
    error = refused(answer)
    assert "expected_yield" in json.dumps(error)
    assert admin("GET", "/api/v1/cultures").get_json()["total"] == 0


# A name that is a list


def test_an_import_with_a_list_for_a_name_is_refused_even_as_a_dry_run(admin):
    answer = admin(
        "POST",
        "/api/v1/cultures/import?dry_run=1",
        data=json.dumps([{"name": ["a"]}]),
        headers={"Content-Type": "application/json"},
    )
    refused(answer)


# An itinera document nested deeper than anyone writes one


def nested(depth: int) -> dict:
    value: dict = {"leaf": 1}
    for _ in range(depth - 1):
        value = {"k": value}
    return value


def deep_documents() -> list:
    at_top = itinera() | {"deep": nested(300)}
    in_a_step = itinera()
    in_a_step["steps"][0]["deep"] = nested(300)
    in_a_value = itinera()
    work = in_a_value["steps"][0]["interventions"][0]
    work["values"] = [{"key": "ift", "value": nested(300)}]
    return [
        pytest.param(at_top, id="at-the-top"),
        pytest.param(in_a_step, id="in-a-step"),
        pytest.param(in_a_value, id="as-a-value"),
    ]


@pytest.mark.parametrize("document", deep_documents())
def test_a_document_nested_300_levels_is_no_server_fault_on_import_or_replace(admin, document):
    farm = {"farm": "Ferme du Bocage", "region": "Bretagne"}
    imported = admin("POST", "/api/v1/systems", json=farm | {"document": document})
    not_a_fault(imported)
    assert imported.status_code in (201, 422), imported.get_json()
    plain = admin("POST", "/api/v1/systems", json=farm | {"document": itinera(), "name": "Plain"})
    assert plain.status_code == 201, plain.get_json()
    system_id = plain.get_json()["id"]
    replaced = admin("PUT", f"/api/v1/systems/{system_id}", json=document)
    not_a_fault(replaced)
    assert replaced.status_code in (200, 422), replaced.get_json()
    for url in (f"/api/v1/systems/{system_id}", f"/api/v1/systems/{system_id}/totals"):
        not_a_fault(admin("GET", url))
    if imported.status_code == 201:
        not_a_fault(admin("GET", f"/api/v1/systems/{imported.get_json()['id']}"))


# NUL in a document, which PostgreSQL's JSONB cannot hold


def documents_with_nul() -> list:
    in_a_key = itinera() | {"extra\x00": 1}
    in_a_step = itinera()
    in_a_step["steps"][0]["note"] = "a\x00b"
    return [pytest.param(in_a_key, id="in-a-key"), pytest.param(in_a_step, id="in-a-step")]


@pytest.mark.parametrize("document", documents_with_nul())
def test_nul_in_a_document_is_no_server_fault_on_import_or_replace(admin, document):
    farm = {"farm": "Ferme du Bocage", "region": "Bretagne"}
    plain = admin("POST", "/api/v1/systems", json=farm | {"document": itinera(), "name": "Plain"})
    assert plain.status_code == 201, plain.get_json()
    replaced = admin("PUT", f"/api/v1/systems/{plain.get_json()['id']}", json=document)
    imported = admin("POST", "/api/v1/systems", json=farm | {"document": document})
    for answer in (replaced, imported):
        assert "NUL character" in json.dumps(refused(answer))
    assert admin("GET", "/api/v1/systems").get_json()["total"] == 1


# An id beyond what an id column holds, with every method of every call that takes one


def operations_with_an_id(app) -> list[tuple[str, str, bool]]:
    """(method, address with every id beyond the column, whether a GET has the address too)."""
    document = openapi_document(app)
    found = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            ids = [
                p["name"]
                for p in operation["parameters"]
                if p["in"] == "path" and p["schema"].get("type") == "integer"
            ]
            url = path
            for name in ids:
                url = url.replace("{" + name + "}", str(BEYOND_IDS))
            if ids:
                found.append((method.upper(), url, method != "get" and "get" in operations))
    return found


def not_404(admin, calls) -> dict[str, tuple[int, str]]:
    wrong = {}
    for method, url, _shared in calls:
        answer = admin(method, url, json={})
        if answer.status_code != 404 or answer.get_json()["error"]["code"] != "not_found":
            wrong[f"{method} {url}"] = (answer.status_code, answer.get_data(as_text=True)[:200])
    return wrong


def test_an_id_beyond_any_column_is_404_with_every_method(app, admin):
    calls = operations_with_an_id(app)
    assert len(calls) >= 40
    assert {m for m, _u, _s in calls} >= {"GET", "POST", "PUT", "PATCH", "DELETE"}
    assert not not_404(admin, calls)


# A query string key no call takes


def test_a_query_key_the_rows_call_does_not_take_is_422(admin):
    made = admin("POST", "/api/v1/tables", json={"name": "Trials", "columns": [{"name": "crop"}]})
    assert made.status_code == 201, made.get_json()
    table_id = made.get_json()["id"]
    assert admin("GET", f"/api/v1/tables/{table_id}/rows").status_code == 200
    error = refused(admin("GET", f"/api/v1/tables/{table_id}/rows?bogus=1"))
    assert "bogus" in json.dumps(error)


def test_a_nul_in_a_system_document_is_named_by_its_path(admin):
    document = itinera()
    document["steps"][0]["note"] = "a\x00b"
    farm = {"farm": "Ferme du Bocage", "region": "Bretagne"}
    error = refused(admin("POST", "/api/v1/systems", json=farm | {"document": document}))
    assert error["details"]["errors"] == [
        {
            "loc": "steps[0].note",
            "code": "document_invalid",
            "message": "A text may not hold a NUL character (U+0000): remove it.",
        }
    ]


# A NUL in a farm system's details or its farm's region (PostgreSQL's text cannot hold one: it
# was a 500 there, found by the fuzz test), and another control character in a one-line detail.
@pytest.mark.parametrize(
    ("field", "value"),
    [("gps_location", "\u0000"), ("description", "a\u0000b"), ("region", "\u0000"),
     ("system_type", "Tab\there")],
)  # fmt: skip
def test_a_control_character_in_a_systems_text_is_refused_by_name(admin, field, value):
    body = {"farm": "Edge farm", "name": "Edge", "document": itinera(), field: value}
    error = refused(admin("POST", "/api/v1/systems", json=body))
    assert field in json.dumps(error) and "Remove the control character" in json.dumps(error)
    lines = admin("POST", "/api/v1/systems", json=body | {field: "Line one\nline two"})
    if field == "description":  # tab and line breaks are fine in multi-line text
        assert lines.status_code == 201, lines.get_data(as_text=True)[:400]
