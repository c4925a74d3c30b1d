import pytest

from webapp.auth.roles import Role

BELOW_ADMIN = [Role.viewer, Role.editor, Role.reviewer]


@pytest.mark.parametrize("role", BELOW_ADMIN)
def test_only_admins_see_the_user_administration(client_as, role):
    client = client_as(role)
    response = client.get("/admin/users")
    assert response.status_code == 403
    assert "needs the admin role" in response.get_data(as_text=True)
    assert client.submit("/admin/users", {"email": "x@example.org"}).status_code == 403


@pytest.mark.parametrize("role", BELOW_ADMIN)
def test_only_admins_start_the_integrity_check(client_as, role):
    client = client_as(role)
    assert client.submit("/maintenance/integrity-check").status_code == 403
    api = client.post(
        "/api/v1/maintenance/integrity-check", headers={"X-CSRFToken": client.csrf_token("/")}
    )
    assert api.status_code == 403
    assert api.get_json()["error"]["code"] == "forbidden"


@pytest.mark.parametrize("role", list(Role))
def test_every_role_may_read_runs(client_as, role):
    client = client_as(role)
    assert client.get("/runs").status_code == 200
    assert client.get("/api/v1/runs").status_code == 200


def test_pages_need_a_login_and_the_api_says_401_in_json(client, make_user):
    make_user()
    assert client.get("/runs").status_code == 302
    response = client.get("/api/v1/runs")
    assert response.status_code == 401
    assert response.get_json()["error"]["code"] == "unauthorized"


def test_a_post_without_csrf_token_is_refused(admin_client):
    response = admin_client.post("/maintenance/integrity-check")
    assert response.status_code == 400
    assert "security token is missing" in response.get_data(as_text=True)


def test_htmx_posts_carry_the_token_in_a_header(admin_client):
    token = admin_client.csrf_token("/account")
    response = admin_client.post(
        "/account/tokens",
        data={"name": "from htmx"},
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )
    assert response.status_code == 200
    fragment = response.get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="tokens">')
    assert "not shown again" in fragment


def test_api_posts_with_a_session_cookie_need_csrf_too(admin_client):
    response = admin_client.post("/api/v1/maintenance/integrity-check")
    assert response.status_code == 400
    assert response.get_json()["error"]["code"] == "csrf_failed"
