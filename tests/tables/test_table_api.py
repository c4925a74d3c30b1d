from sqlalchemy import func, select

from webapp.auth.models import ApiToken
from webapp.extensions import db
from webapp.tables.models import DataTable, TableRow

TRIAL = {
    "name": "Wheat trial",
    "columns": [
        {"name": "Variety", "type": "text"},
        {"name": "Yield", "type": "number", "unit": "t/ha"},
        {"name": "Soil", "type": "select", "options": ["sand", "loam"]},
    ],
}


def api_client(client_as, role: str):
    client = client_as(role)
    client.headers = {"X-CSRFToken": client.csrf_token()}
    return client


def create(client, body=TRIAL):
    return client.post("/api/v1/tables", json=body, headers=client.headers)


def test_a_table_is_created_read_and_listed(client_as):
    editor = api_client(client_as, "editor")
    created = create(editor)
    assert created.status_code == 201
    body = created.get_json()
    assert body["name"] == "Wheat trial" and body["row_count"] == 0
    columns = [
        (c["name"], c["type"], c["unit"], c["options"], c["position"]) for c in body["columns"]
    ]
    assert columns == [
        ("Variety", "text", None, [], 0),
        ("Yield", "number", "t/ha", [], 1),
        ("Soil", "select", None, ["sand", "loam"], 2),
    ]
    shown = editor.get(f"/api/v1/tables/{body['id']}").get_json()
    assert shown["columns"] == body["columns"] and shown["updated_at"].endswith("Z")
    create(editor, {**TRIAL, "name": "Barley"})
    listed = editor.get("/api/v1/tables?per_page=1").get_json()
    assert (listed["total"], listed["pages"], listed["per_page"]) == (2, 2, 1)
    assert [t["name"] for t in listed["tables"]] == ["Barley"]
    assert editor.get("/api/v1/tables/999999").get_json()["error"]["code"] == "not_found"


def test_a_table_that_cannot_be_made_answers_422_with_each_problem(client_as):
    editor = api_client(client_as, "editor")
    create(editor)
    refused = create(
        editor,
        {
            "name": "WHEAT trial",
            "columns": [
                {"name": "Yield", "type": "float"},
                {"name": "Soil", "type": "select"},
                {"name": "Plot", "type": "text", "unit": "m²"},
            ],
        },
    )
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "table_invalid"
    assert error["message"] == "The table cannot be created as given."
    assert error["details"]["errors"] == [
        {
            "field": "name",
            "message": "There is already a table named “WHEAT trial”.",
            "loc": "name",
            "code": "name_invalid",
        },
        {
            "field": "type",
            "index": 0,
            "column": "Yield",
            "message": "Choose a type: text, number, boolean, select, url.",
            "loc": "columns.0.type",
            "code": "type_invalid",
        },
        {
            "field": "options",
            "index": 1,
            "column": "Soil",
            "message": "A select column needs at least one option.",
            "loc": "columns.1.options",
            "code": "options_invalid",
        },
        {
            "field": "unit",
            "index": 2,
            "column": "Plot",
            "message": "Only number columns have a unit.",
            "loc": "columns.2.unit",
            "code": "unit_invalid",
        },
    ]
    no_columns = create(editor, {"name": "Empty"}).get_json()["error"]
    assert no_columns["details"]["errors"] == [
        {
            "field": "columns",
            "message": "Give the table at least one column.",
            "loc": "columns",
            "code": "columns_invalid",
        }
    ]
    not_json = editor.post("/api/v1/tables", data="name=x", headers=editor.headers)
    assert not_json.status_code == 400
    assert db.session.scalar(select(func.count()).select_from(DataTable)) == 1


def test_rows_are_added_all_or_nothing_and_read_page_by_page(client_as):
    editor = api_client(client_as, "editor")
    table_id = create(editor).get_json()["id"]
    url = f"/api/v1/tables/{table_id}/rows"
    rows = [{"Variety": f"V{n}", "Yield": n / 2, "soil": "loam"} for n in range(120)]
    added = editor.post(url, json={"rows": rows}, headers=editor.headers)
    assert added.status_code == 201
    row_ids = added.get_json()["row_ids"]
    assert len(row_ids) == 120 and row_ids == sorted(row_ids)

    page = editor.get(f"{url}?page=3&per_page=50").get_json()
    assert (page["page"], page["per_page"], page["total"], page["pages"]) == (3, 50, 120, 3)
    assert page["rows"][0] == {
        "id": row_ids[100],
        "values": {"Variety": "V100", "Yield": 50, "Soil": "loam"},
    }
    assert len(page["rows"]) == 20
    assert editor.get(f"/api/v1/tables/{table_id}").get_json()["row_count"] == 120


def test_rows_that_do_not_fit_answer_422_naming_row_and_column(client_as):
    editor = api_client(client_as, "editor")
    table_id = create(editor).get_json()["id"]
    url = f"/api/v1/tables/{table_id}/rows"
    refused = editor.post(
        url,
        json={
            "rows": [
                {"Variety": "Aron", "Yield": "7.5"},
                {"Yield": "a lot", "Soil": "peat"},
                {"Colour": "red", "Variety": ["a", "list"]},
                "not a row",
            ]
        },
        headers=editor.headers,
    )
    assert refused.status_code == 422
    error = refused.get_json()["error"]
    assert error["code"] == "rows_invalid"
    assert error["message"] == "Some values do not fit their columns; no row was added."
    assert error["details"]["errors"] == [
        {
            "row": 1,
            "column": "Soil",
            "message": "Choose one of the options (sand, loam).",
            "loc": "rows.1.Soil",
            "code": "value_invalid",
        },
        {
            "row": 1,
            "column": "Yield",
            "message": "Give a number, not 'a lot'.",
            "loc": "rows.1.Yield",
            "code": "value_invalid",
        },
        {
            "row": 2,
            "column": "Colour",
            "message": "There is no column named “Colour”.",
            "loc": "rows.2.Colour",
            "code": "value_invalid",
        },
        {
            "row": 2,
            "column": "Variety",
            "message": "Give one value, not a list or an object.",
            "loc": "rows.2.Variety",
            "code": "value_invalid",
        },
        {
            "row": 3,
            "message": "Give the row as an object of column name: value.",
            "loc": "rows.3",
            "code": "row_invalid",
        },
    ]
    missing = editor.post(url, json={"rows": []}, headers=editor.headers).get_json()["error"]
    assert missing["details"]["errors"] == [
        {
            "field": "rows",
            "message": "Give at least one row.",
            "loc": "rows",
            "code": "rows_invalid",
        }
    ]
    assert db.session.scalar(select(func.count()).select_from(TableRow)) == 0


def test_viewers_read_editors_write_and_session_posts_need_csrf(client_as, make_user):
    editor = api_client(client_as, "editor")
    table_id = create(editor).get_json()["id"]
    viewer = api_client(client_as, "viewer")
    assert viewer.get(f"/api/v1/tables/{table_id}/rows").status_code == 200
    assert create(viewer, {**TRIAL, "name": "Mine"}).status_code == 403
    forbidden = viewer.post(
        f"/api/v1/tables/{table_id}/rows", json={"rows": [{}]}, headers=viewer.headers
    )
    assert forbidden.status_code == 403
    assert forbidden.get_json()["error"]["code"] == "forbidden"
    no_csrf = editor.post("/api/v1/tables", json={**TRIAL, "name": "Other"})
    assert no_csrf.status_code == 400
    assert no_csrf.get_json()["error"]["code"] == "csrf_failed"

    _token, secret = ApiToken.issue(make_user("editor"), "script")
    db.session.commit()
    with_token = editor.application.test_client().post(
        f"/api/v1/tables/{table_id}/rows",
        json={"rows": [{"Variety": "Aron"}]},
        headers={"Authorization": f"Bearer {secret}"},
    )
    assert with_token.status_code == 201
    assert client_as("viewer").get("/api/v1/tables").get_json()["total"] == 1
