"""Request bodies are bounded per route before anything reads them: a public form a few KB, any
other form or JSON body 512 KB, only uploads more, and a URL-encoded form small everywhere; a
real `furrow serve` grows by less than 50 MB whatever body it is sent."""

from __future__ import annotations

import io
import json
import signal

import pytest

from tests.support.app import PASSWORD
from tests.support.body_drill import Session, drill, headers_of, shapes
from tests.support.server import start_server
from webapp.auth.models import ApiToken
from webapp.bodies import BODY_MAX_BYTES, FORM_MAX_PARTS, PUBLIC_MAX_BYTES
from webapp.contract import MAX_JSON_CONTAINERS, MAX_JSON_DEPTH
from webapp.extensions import db

GROWTH_LIMIT_MB = 50


def test_a_sign_in_form_beyond_a_few_kilobytes_is_refused_before_it_is_read(client):
    token = client.csrf_token("/login")
    response = client.post(
        "/login", data={"csrf_token": token, "email": "a" * PUBLIC_MAX_BYTES, "password": "x"}
    )
    assert response.status_code == 413
    assert "larger than the 16 KB this page accepts" in response.get_data(as_text=True)


def test_a_form_of_more_fields_than_any_list_holds_is_refused(client_as):
    client = client_as("editor")
    body = "csrf_token=" + client.csrf_token() + "&culture=1" * FORM_MAX_PARTS
    response = client.post(
        "/cultures/enrich-batch",
        data=body,
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 413
    assert f"more than {FORM_MAX_PARTS:,} fields" in response.get_data(as_text=True)


def test_a_multipart_form_to_a_page_that_takes_no_file_is_held_to_the_form_limit(client_as):
    client = client_as("admin")
    response = client.post_multipart(
        "/account/tokens",
        {"name": "x", "file": (io.BytesIO(b"x" * BODY_MAX_BYTES), "big.txt")},
        {"X-CSRFToken": client.csrf_token()},
    )
    assert response.status_code == 413


def test_an_upload_page_takes_a_file_but_not_a_large_url_encoded_form(client_as):
    client = client_as("editor")
    csrf = {"X-CSRFToken": client.csrf_token()}
    text = b"name,variety\n" + b"Tomato,x\n" * (BODY_MAX_BYTES // 9)
    as_file = client.post_multipart(
        "/cultures/import", {"file": (io.BytesIO(text), "cultures.csv")}, csrf
    )
    assert as_file.status_code != 413
    as_form = client.post("/cultures/import", data={"file": text.decode()}, headers=csrf)
    assert as_form.status_code == 413
    assert "512 KB this page accepts" in as_form.get_data(as_text=True)


def test_a_previewed_file_is_confirmed_as_multipart_beyond_the_form_limit(client_as):
    client = client_as("editor")
    rows = "".join(f"Crop {n},variety {n},{'A long note. ' * 300}\n" for n in range(200))
    text = "name,variety,notes\n" + rows
    assert len(text) > BODY_MAX_BYTES
    response = client.post_multipart(
        "/cultures/import/confirm", {"csv_text": text}, {"X-CSRFToken": client.csrf_token()}
    )
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    assert client.get("/api/v1/cultures?per_page=1").get_json()["total"] == 200


@pytest.fixture
def editor_token(make_user):
    _token, secret = ApiToken.issue(make_user("editor"), "bodies")
    db.session.commit()
    return {"Authorization": f"Bearer {secret}"}


def test_json_of_more_objects_and_lists_than_any_record_holds_is_refused(client, editor_token):
    body = "[" + "{}," * MAX_JSON_CONTAINERS + "{}]"
    response = client.post(
        "/api/v1/systems", data=body, content_type="application/json", headers=editor_token
    )
    assert response.status_code == 422
    error = response.get_json()["error"]
    assert error["code"] == "invalid_request"
    assert f"more than {MAX_JSON_CONTAINERS:,} objects and lists" in error["message"]


def test_json_nested_deeper_than_any_record_is_refused(client, editor_token):
    body = json.dumps({"name": "Deep", "document": {}, "x": json.loads("[" * 300 + "]" * 300)})
    response = client.post(
        "/api/v1/systems", data=body, content_type="application/json", headers=editor_token
    )
    assert response.status_code == 422
    assert f"deeper than {MAX_JSON_DEPTH} levels" in response.get_json()["error"]["message"]


@pytest.mark.worker
def test_no_body_grows_the_web_process_by_50_mb(services, tmp_path, make_user):
    user = make_user("admin")
    _token, secret = ApiToken.issue(user, "drill")
    db.session.commit()
    env = services.env(FURROW_SWEEP_SECONDS="86400")
    server = start_server(env, tmp_path / "instance", workers=0)
    try:
        session = Session(server.url, user.email, PASSWORD)

        answers = drill(server.url, server.process.pid, headers_of(session, secret), shapes())
    finally:
        server.stop(signal.SIGINT)
    for answer in answers:
        assert set(answer.statuses) == {413}, answer
        assert answer.growth_mb < GROWTH_LIMIT_MB, answer
