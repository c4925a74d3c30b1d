"""One error shape for the whole app: Invalid and Unavailable as the API and pages answer
them, and problems put on a form."""

from wtforms import Form, StringField

from webapp import create_app
from webapp.auth.access import public
from webapp.config import load_settings
from webapp.extensions import db
from webapp.problems import Invalid, Problem, Unavailable, show_on_form


class Refused(Invalid):
    code = "sheet_refused"


def test_an_invalid_lists_its_problems_with_their_codes_and_a_field_view():
    refused = Refused(
        [
            Problem("Give a width.", "width", "value_missing"),
            Problem("At most 3 m.", "depth"),
            Problem("Not below zero.", "depth"),
        ],
        summary="The sheet cannot be stored.",
    )
    assert refused.message == "The sheet cannot be stored."
    assert str(refused) == "Give a width.; At most 3 m.; Not below zero."
    assert [p.code for p in refused.problems] == ["value_missing", "sheet_refused", "sheet_refused"]
    assert refused.errors == {"width": "Give a width.", "depth": "At most 3 m. Not below zero."}
    one = Invalid("Give a number.", code="not_a_number", loc="yield")
    assert one.message == str(one) == "Give a number."
    assert one.error_details() == {
        "errors": [{"loc": "yield", "code": "not_a_number", "message": "Give a number."}]
    }
    assert isinstance(one, ValueError) and isinstance(Unavailable("down"), RuntimeError)


def app_raising(services, error: Exception):
    fresh = create_app(load_settings(services.env()))

    @fresh.get("/api/v1/sheets")
    @fresh.get("/sheets")
    @public
    def sheets():
        raise error

    return fresh


def test_the_api_answers_an_invalid_422_with_every_problem(app, services):
    refused = Refused(
        [Problem("Give a width.", "width", "value_missing"), Problem("At most 3 m.", "depth")],
        summary="The sheet cannot be stored.",
    )
    fresh = app_raising(services, refused)
    response = fresh.test_client().get("/api/v1/sheets")
    page = fresh.test_client().get("/sheets")
    with fresh.app_context():
        db.engine.dispose()
    assert response.status_code == 422
    assert response.get_json() == {
        "error": {
            "code": "sheet_refused",
            "message": "The sheet cannot be stored.",
            "details": {
                "errors": [
                    {"loc": "width", "code": "value_missing", "message": "Give a width."},
                    {"loc": "depth", "code": "sheet_refused", "message": "At most 3 m."},
                ]
            },
        }
    }
    # A page that lets one through shows it as a page, never a traceback.
    assert page.status_code == 422
    assert "The sheet cannot be stored." in page.get_data(as_text=True)


def test_the_api_answers_an_unavailable_503_saying_what_to_set(app, services):
    class SheetsDown(Unavailable):
        code = "sheets_unavailable"

    fresh = app_raising(services, SheetsDown("The sheet service needs SHEETS_URL."))
    response = fresh.test_client().get("/api/v1/sheets")
    with fresh.app_context():
        db.engine.dispose()
    assert response.status_code == 503
    assert response.get_json() == {
        "error": {"code": "sheets_unavailable", "message": "The sheet service needs SHEETS_URL."}
    }


def test_an_unknown_provider_is_the_request_s_fault_naming_the_choices(client_as):
    editor = client_as("editor")
    answer = editor.post(
        "/api/v1/fertilizer/recommend",
        json={"crop_profile": {"crop": {"crop_id": "x", "name": "X"}}, "provider": "oracle"},
        headers={"X-CSRFToken": editor.csrf_token("/")},
    )
    # A name that is no provider is a bad request (422), not a service that is down (503).
    assert answer.status_code == 422
    error = answer.get_json()["error"]
    assert error["code"] == "invalid_request" and error["details"]["errors"][0]["loc"] == "provider"
    assert "'offline' or 'openai'" in error["details"]["errors"][0]["message"]


class SheetForm(Form):
    width = StringField()
    depth = StringField()


def test_problems_go_under_their_field_or_a_place_and_the_rest_to_the_form():
    form = SheetForm()
    rest = show_on_form(
        form,
        [
            Problem("Give a width.", "width"),
            Problem("Not below zero.", "rows.0.depth"),
            Problem("The sheet is full."),
            Problem("Not a sheet field.", "colour"),
        ],
        places={"rows.0.depth": form.depth},
    )
    assert form.width.errors == ["Give a width."]
    assert form.depth.errors == ["Not below zero."]
    assert form.form_errors == ["The sheet is full.", "Not a sheet field."]
    assert [p.loc for p in rest] == ["", "colour"]
