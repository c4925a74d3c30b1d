"""The API contract: the exact requests that once answered 500 (or stored what no parser can
read) now answer 4xx, and the published document covers every call."""

import pytest

from webapp.auth.models import ApiToken
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.tables.catalog import create_table


@pytest.fixture
def token(make_user):
    """An administrator's bearer token: every call is open to it."""
    _token, secret = ApiToken.issue(make_user("admin"), "contract")
    db.session.commit()
    return {"Authorization": f"Bearer {secret}"}


def send(app, token, method: str, url: str, body=None, raw: str | None = None):
    client = app.test_client()
    if raw is not None:
        headers = {**token, "Content-Type": "application/json"}
        return client.open(url, method=method, data=raw, headers=headers)
    return client.open(url, method=method, json=body, headers=token)


@pytest.fixture
def table(app):
    made = create_table("Yields", [{"name": "Crop"}, {"name": "Yield", "type": "number"}], None)
    db.session.commit()
    return made


REFUSED = [
    # One request used to compute a million-digit integer for 30 s.
    ("POST", "/api/v1/cultures", {"name": "x", "growth_duration_days": "1e1000000"}),
    ("POST", "/api/v1/cultures", {}),
    ("POST", "/api/v1/cultures", {"name": "x", "nutrient_demand": [1]}),
    ("POST", "/api/v1/cultures", {"name": "x", "growth_duration_days": 2**63}),
    ("POST", "/api/v1/cultures/enrich-batch", {"ids": 5}),
    ("POST", "/api/v1/cultures/enrich-batch", {"ids": [2**70]}),
    # Past PostgreSQL's integer, found by the fuzzing suite on the PostgreSQL pass.
    ("POST", "/api/v1/cultures/enrich-batch", {"mode": "changes", "ids": [2**55, 68057]}),
    # The first table API's body is no longer taken: its key is an unknown one.
    ("POST", "/api/v1/runs/1/apply", {"row_ids": [1]}),
    ("POST", "/api/v1/runs/1/apply", {"suggestions": [True]}),
    ("POST", "/api/v1/runs/1/apply", {"suggestions": [1], "edits": {"x": "1"}}),
    ("POST", "/api/v1/cultures", {"name": "x", "expected_yield": "inf"}),
    ("POST", "/api/v1/cultures", {"name": "x", "expected_yield": "nan"}),
    ("POST", "/api/v1/cultures", {"name": "x", "row_spacing_cm": True}),
    ("POST", "/api/v1/cultures", {"name": "x" * 201}),
]


@pytest.mark.parametrize(("method", "url", "body"), REFUSED)
def test_bodies_of_the_wrong_shape_are_422_with_every_problem(app, token, method, url, body):
    answer = send(app, token, method, url, body)
    assert answer.status_code == 422, answer.get_data(as_text=True)
    error = answer.get_json()["error"]
    assert error["code"] in ("invalid_request", "culture_invalid") and error["message"]
    assert error["details"]["errors"][0]["message"]


NOT_FINITE = [
    '{"name": "x", "expected_yield": 1e400}',
    '{"name": "x", "expected_yield": NaN}',
    '{"name": "x", "expected_yield": -Infinity}',
]


@pytest.mark.parametrize("raw", NOT_FINITE)
def test_a_number_that_is_not_finite_is_refused_and_nothing_is_stored(app, token, raw):
    answer = send(app, token, "POST", "/api/v1/cultures", raw=raw)
    assert answer.status_code == 422
    assert answer.get_json()["error"]["code"] == "invalid_request"
    assert "finite" in answer.get_json()["error"]["message"]
    assert db.session.query(Culture).count() == 0


def test_enrich_with_a_list_for_a_body_and_huge_ids_are_refused(app, token, table):
    culture = Culture(name="Carrot")
    db.session.add(culture)
    db.session.commit()
    assert send(app, token, "POST", f"/api/v1/cultures/{culture.id}/enrich", [1]).status_code == 422
    answer = send(
        app,
        token,
        "POST",
        f"/api/v1/tables/{table.id}/enrich",
        {"target_column": "Yield", "strategy": "lookup", "row_ids": [2**70]},
    )
    assert answer.status_code == 422


def test_a_row_with_a_4000_digit_number_is_refused(app, token, table):
    raw = '{"rows": [{"Crop": "maize", "Yield": ' + "9" * 4000 + "}]}"
    answer = send(app, token, "POST", f"/api/v1/tables/{table.id}/rows", raw=raw)
    assert answer.status_code == 422
    assert "too large" in answer.get_json()["error"]["message"]


def test_ids_and_pages_beyond_what_a_database_holds_are_4xx(app, token):
    client = app.test_client()
    assert client.get("/api/v1/runs?page=99999999999999999999", headers=token).status_code == 422
    assert client.get(f"/api/v1/cultures/{2**70}", headers=token).status_code == 404
    assert client.get(f"/api/v1/cultures/{2**31}", headers=token).status_code == 404
    assert client.get("/api/v1/runs?page=0", headers=token).status_code == 422


def test_the_document_names_every_call_its_role_and_its_body(app, token):
    document = app.test_client().get("/api/v1/openapi.json", headers=token).get_json()
    assert document["openapi"] == "3.1.0"
    routes = {
        (rule.rule, method)
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api/v1/")
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    assert len(routes) == sum(len(ops) for ops in document["paths"].values())
    apply = document["paths"]["/api/v1/runs/{run_id}/apply"]["post"]
    assert apply["x-role"] == "reviewer"
    body = apply["requestBody"]["content"]["application/json"]["schema"]
    assert {"suggestions", "all_valid", "reconfirm", "edits"} <= set(body["properties"])
    assert "422" in apply["responses"] and "503" in apply["responses"]
    # The legacy apply calls are retired (docs/api.md, Changes): one apply is left.
    assert "row_ids" not in body["properties"]
    assert "/api/v1/cultures/{culture_id}/apply" not in document["paths"]
    assert send(app, token, "POST", "/api/v1/cultures/1/apply", {}).status_code == 404
    created = document["paths"]["/api/v1/cultures"]["post"]
    assert created["requestBody"]["content"]["application/json"]["schema"]["required"] == ["name"]


def test_the_docs_page_reads_the_document_to_people(client_as):
    page = client_as("viewer").get("/api/docs").get_data(as_text=True)
    assert "POST /api/v1/runs/{run_id}/apply" in page and "reviewer" in page
    # Rendered on the server from the document: nothing loaded from elsewhere.
    assert "https://" not in page
