"""No NUL or control character in names and text fields; tab and line breaks only where the
field is multi-line text. One rule (webapp.text), used by users, cultures, tables, library."""

import io

import pytest

from tests.library.files import long_markdown
from tests.support.app import PASSWORD, furrow
from webapp.auth.models import ApiToken, User
from webapp.extensions import db
from webapp.text import control_character_problem, nul_paths


@pytest.mark.parametrize(
    ("text", "multiline", "problem"),
    [
        ("Rote Bete", False, None),
        ("トマト «Cœur de bœuf»", False, None),
        ("a\x00b", False, "U+0000 at character 2"),
        ("a\tb", False, "U+0009"),
        ("line\nline", False, "U+000A"),
        ("line\r\nline\tcell", True, None),
        ("bell\x07", True, "U+0007 at character 5 (tab and line breaks are fine here)"),
        ("escape \x1b[31m", True, "U+001B"),
        ("del\x7f", False, "U+007F"),
        ("c1\x85", False, "U+0085"),
    ],
)
def test_the_rule(text, multiline, problem):
    found = control_character_problem(text, multiline)
    assert (found is None) if problem is None else (problem in found), found


def api_client(client_as, role):
    client = client_as(role)
    _, secret = ApiToken.issue(client.user, "tests")
    db.session.commit()
    client.headers = {"Authorization": f"Bearer {secret}"}
    return client


def test_a_culture_name_with_a_nul_is_refused_and_notes_keep_their_lines(client_as):
    editor = api_client(client_as, "editor")
    refused = editor.post("/api/v1/cultures", json={"name": "To\x00mate"}, headers=editor.headers)
    assert refused.status_code == 422
    assert "U+0000" in refused.get_json()["error"]["details"]["fields"]["name"]
    bell = editor.post(
        "/api/v1/cultures", json={"name": "Tomate", "notes": "a\x07"}, headers=editor.headers
    )
    assert "U+0007" in bell.get_json()["error"]["details"]["fields"]["notes"]
    notes = "Sow in March.\n\n- row\tspacing 50 cm\r\n"
    kept = editor.post(
        "/api/v1/cultures", json={"name": "Tomate", "notes": notes}, headers=editor.headers
    )
    assert kept.status_code == 201, kept.get_json()
    assert kept.get_json()["notes"] == notes.strip()


def test_tables_refuse_control_characters_in_names_and_cells(client_as):
    editor = api_client(client_as, "editor")
    columns = [
        {"name": "Variety", "type": "text"},
        {"name": "So\x1fil", "type": "text"},
        {"name": "Colour", "type": "select", "options": ["red", "gr\x00een"]},
    ]
    refused = editor.post(
        "/api/v1/tables", json={"name": "Trial\x00", "columns": columns}, headers=editor.headers
    )
    assert refused.status_code == 422
    messages = [e["message"] for e in refused.get_json()["error"]["details"]["errors"]]
    assert [m for m in messages if "control character" in m] == [
        "Remove the control character U+0000 at character 6.",
        "Remove the control character U+001F at character 3.",
        "Option: Remove the control character U+0000 at character 3.",
    ]

    columns = [{"name": "Variety", "type": "text"}, {"name": "Link", "type": "url"}]
    created = editor.post(
        "/api/v1/tables", json={"name": "Trial", "columns": columns}, headers=editor.headers
    )
    rows = f"/api/v1/tables/{created.get_json()['id']}/rows"
    bad = editor.post(
        rows,
        json={"rows": [{"Variety": "Aron\x00"}, {"Link": "example.org/\tx"}]},
        headers=editor.headers,
    )
    assert bad.status_code == 422
    errors = bad.get_json()["error"]["details"]["errors"]
    assert [(e["row"], e["column"]) for e in errors] == [(0, "Variety"), (1, "Link")]
    assert "U+0000" in errors[0]["message"] and "U+0009" in errors[1]["message"]
    good = editor.post(
        rows, json={"rows": [{"Variety": "two\nlines\tand a tab"}]}, headers=editor.headers
    )
    assert good.status_code == 201


def test_a_library_title_with_a_control_character_is_refused(client_as):
    editor = api_client(client_as, "editor")
    form = {"file": (io.BytesIO(long_markdown(2).encode()), "notes.md"), "title": "Guide\x1b[2J"}
    response = editor.post(
        "/api/v1/library/documents",
        data=form,
        headers=editor.headers,
        content_type="multipart/form-data",
    )
    assert response.status_code == 422
    assert "U+001B" in response.get_json()["error"]["message"]


def test_a_user_name_with_a_control_character_is_refused(admin_client, app):
    page = admin_client.submit(
        "/admin/users",
        {"name": "Bo\x00", "email": "bo@example.org", "role": "viewer", "password": PASSWORD},
        page="/admin/users",
    )
    assert page.status_code == 422
    assert "Name: Remove the control character U+0000" in page.get_data(as_text=True)
    cli = furrow(
        app, "users", "create", "cy@example.org", "--name", "Cy\x07", "--password", PASSWORD
    )
    assert cli.returncode == 2
    assert cli.stderr.strip().startswith("furrow: Name: Remove the control character U+0007")
    assert (
        db.session.query(User).filter(User.email.in_(["bo@example.org", "cy@example.org"])).count()
        == 0
    )


def test_a_nul_in_an_address_is_refused_before_any_view_reads_it(client_as):
    """Found by the API fuzzing on PostgreSQL: `?q=%00` reached a search and answered 500."""
    editor = api_client(client_as, "editor")
    api = editor.get("/api/v1/cultures?q=to%00mate", headers=editor.headers)
    assert api.status_code == 422
    error = api.get_json()["error"]
    assert (error["code"], error["message"]) == (
        "invalid_request",
        "The address may not contain a NUL character (%00).",
    )
    page = client_as("viewer").get("/cultures?q=%00")
    assert page.status_code == 422 and b"may not contain a NUL" in page.data
    assert client_as("viewer").get("/cultures?q=%C3%B1").status_code == 200
    # In the path too: a requirement's id reached a query and PostgreSQL refused it.
    in_path = editor.get("/api/v1/reviews/1/requirements/REQ%00-1", headers=editor.headers)
    assert in_path.status_code == 422
    assert (
        in_path.get_json()["error"]["message"]
        == "The address may not contain a NUL character (%00)."
    )


def test_every_nul_in_a_document_is_found_by_its_path():
    data = {
        "name": "ok",
        "steps": [{"id": "a"}, {"note": "a\x00b", "values": [{"k\x00": 1}, "x"]}],
        "plain": ["\x00"],
    }
    assert nul_paths(data) == [("steps", 1, "note"), ("steps", 1, "values", 0), ("plain", 0)]
    assert nul_paths(data, most=1) == [("steps", 1, "note")]
    assert nul_paths({"a": ["b", {"c": 1}]}) == []
