import io

from webapp import create_app
from webapp.auth.access import public
from webapp.bodies import BODY_MAX_BYTES
from webapp.config import load_settings
from webapp.extensions import db


def test_home_lists_the_five_workspaces(client_as):
    page = client_as("editor").get("/").get_data(as_text=True)
    for name in (
        "Cultures",
        "Fertilizer plans",
        "Research tables",
        "Farm systems",
        "Registry reviews",
    ):
        assert name in page
    assert "Run integrity check" not in page  # that button is for admins


def test_registry_reviews_are_for_editors_and_up(client_as):
    # Project documents hold personal data (owners' names).
    assert client_as("viewer").get("/registry").status_code == 403
    assert "Registry reviews" not in client_as("viewer").get("/").get_data(as_text=True)
    assert client_as("editor").get("/registry").status_code == 200


def test_health_check_needs_no_login_and_reports_both_services(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.get_json() == {"status": "ok", "down": [], "database": "ok", "redis": "ok"}


def test_unknown_pages_are_404_pages_and_json_under_api(client_as):
    client = client_as("viewer")
    page = client.get("/no/such/page")
    assert page.status_code == 404
    assert "There is nothing here" in page.get_data(as_text=True)
    api = client.get("/api/v1/no-such-thing")
    assert api.status_code == 404
    assert api.get_json()["error"]["code"] == "not_found"


def test_a_wrong_method_is_405_in_json_for_the_api(client_as):
    response = client_as("viewer").delete("/api/v1/me")
    assert response.status_code == 405
    assert response.get_json()["error"]["code"] == "method_not_allowed"


def test_an_oversized_upload_is_413_with_the_limit(app, client_as):
    client = client_as("admin")
    limit = app.config["MAX_CONTENT_LENGTH"]
    response = client.post_multipart(
        "/library/upload",
        {"file": (io.BytesIO(b"x" * (limit + 1)), "big.txt"), "title": "Big"},
        {"X-CSRFToken": client.csrf_token()},
    )
    assert response.status_code == 413
    assert "The upload is larger than the 20 MB" in response.get_data(as_text=True)


def test_an_oversized_form_is_413_with_the_limit_of_forms(client_as):
    client = client_as("admin")
    response = client.post(
        "/account/tokens",
        data={"name": "x" * BODY_MAX_BYTES},
        headers={"X-CSRFToken": client.csrf_token()},
    )
    assert response.status_code == 413
    assert "larger than the 512 KB this page accepts" in response.get_data(as_text=True)


def test_an_unexpected_error_is_a_500_page_without_traceback(app, services, make_user):
    fresh = create_app(load_settings(services.env()))

    @fresh.get("/explode")
    @public
    def explode():
        raise RuntimeError("secret internals")

    response = fresh.test_client().get("/explode")
    with fresh.app_context():
        db.engine.dispose()
    assert response.status_code == 500
    text = response.get_data(as_text=True)
    assert "Something went wrong on our side" in text
    assert "secret internals" not in text and "Traceback" not in text


def test_pages_send_security_headers(client):
    response = client.get("/login", follow_redirects=True)
    assert response.headers["X-Frame-Options"] == "DENY"
    assert "default-src 'self'" in response.headers["Content-Security-Policy"]


def test_user_input_is_escaped(client_as, make_user):
    admin = client_as("admin")
    make_user("viewer", name="<script>alert(1)</script>")
    page = admin.get("/admin/users").get_data(as_text=True)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_htmx_requests_get_fragments_and_normal_requests_whole_pages(client_as, htmx_client_as):
    assert "<html" in client_as("viewer").get("/runs").get_data(as_text=True)
    fragment = htmx_client_as("viewer").get("/runs").get_data(as_text=True)
    assert "<html" not in fragment and fragment.lstrip().startswith('<section id="run-table"')
