"""Sessions end when they should: a copied session or remember cookie dies with sign-out, a
password, role or state change; a bearer token authenticates alone or not at all."""

import pytest

from tests.support.app import PASSWORD
from webapp.auth.models import User
from webapp.extensions import db

REMEMBER = "remember_token"
NEW_PASSWORD = "a different long phrase"


def sign_in(app, user, remember=False):
    client = app.test_client()
    data = {"csrf_token": client.csrf_token("/login"), "email": user.email, "password": PASSWORD}
    if remember:
        data["remember"] = "y"
    assert client.post("/login", data=data).status_code == 302
    return client


def copy_of(app, client, *names):
    """Another browser holding the same cookies, as an attacker who copied them would."""
    other = app.test_client()
    for name in names:
        other.set_cookie(name, client.get_cookie(name).value)
    return other


def whoami(client):
    response = client.get("/api/v1/me")
    return response.status_code, (response.get_json() or {}).get("email")


def test_a_copied_session_cookie_dies_at_logout(app, make_user):
    user = make_user()
    client = sign_in(app, user)
    copy = copy_of(app, client, "session")
    assert whoami(copy) == (200, user.email)
    assert client.submit("/logout").status_code == 302
    assert whoami(copy)[0] == 401


def test_a_copied_remember_token_alone_dies_at_logout(app, make_user):
    user = make_user()
    client = sign_in(app, user, remember=True)
    copy = copy_of(app, client, REMEMBER)
    assert whoami(copy) == (200, user.email)  # the remember cookie alone signs in
    client.submit("/logout")
    assert client.get_cookie(REMEMBER) is None
    assert whoami(copy)[0] == 401


def test_a_password_change_ends_other_sessions_but_not_this_one(app, make_user):
    user = make_user()
    client = sign_in(app, user, remember=True)
    elsewhere = sign_in(app, user)
    copied_session = copy_of(app, client, "session")
    copied_remember = copy_of(app, client, REMEMBER)
    changed = client.submit(
        "/account/password",
        {"current": PASSWORD, "password": NEW_PASSWORD, "confirm": NEW_PASSWORD},
    )
    assert changed.status_code == 302
    assert whoami(client) == (200, user.email)
    for other in (elsewhere, copied_session, copied_remember):
        assert whoami(other)[0] == 401
    # The remember cookie this browser got with the new password still works on its own.
    assert whoami(copy_of(app, client, REMEMBER)) == (200, user.email)


@pytest.mark.parametrize("change", ["role", "disable", "reset"])
def test_an_administrators_change_ends_that_persons_sessions(app, admin_client, make_user, change):
    user = make_user("editor")
    client = sign_in(app, user, remember=True)
    copied_remember = copy_of(app, client, REMEMBER)
    url, data = {
        "role": (f"/admin/users/{user.id}/role", {"role": "viewer"}),
        "disable": (f"/admin/users/{user.id}/active", {}),
        "reset": (f"/admin/users/{user.id}/password", {"password": NEW_PASSWORD}),
    }[change]
    assert admin_client.submit(url, data, page="/admin/users").status_code == 302
    if change == "disable":  # enabled again, the old sessions stay ended
        admin_client.submit(url, page="/admin/users")
        assert db.session.get(User, user.id).active
    assert whoami(client)[0] == 401
    assert whoami(copied_remember)[0] == 401


def test_an_unchanged_role_keeps_the_sessions(app, admin_client, make_user):
    user = make_user("editor")
    client = sign_in(app, user)
    admin_client.submit(f"/admin/users/{user.id}/role", {"role": "editor"}, page="/admin/users")
    assert whoami(client) == (200, user.email)


def test_sign_out_everywhere_is_on_the_account_page(app, make_user):
    user = make_user()
    client, elsewhere = sign_in(app, user), sign_in(app, user, remember=True)
    elsewhere_remembered = copy_of(app, elsewhere, REMEMBER)
    page = client.get("/account").get_data(as_text=True)
    assert "Sign out everywhere" in page
    assert client.post("/logout").status_code == 400  # without its CSRF token: refused
    assert whoami(elsewhere) == (200, user.email)
    assert client.submit("/logout").status_code == 302
    assert whoami(client)[0] == 401
    assert whoami(elsewhere)[0] == 401
    assert whoami(elsewhere_remembered)[0] == 401


def test_an_invalid_bearer_token_is_401_and_never_falls_back_to_the_cookie(admin_client):
    # The request: a signed-in browser's cookie plus any bearer header skipped CSRF.
    response = admin_client.post(
        "/api/v1/maintenance/integrity-check", headers={"Authorization": "Bearer x"}
    )
    assert response.status_code == 401
    error = response.get_json()["error"]
    assert error["code"] == "unauthorized"
    assert "bearer token" in error["message"]
    assert admin_client.get("/api/v1/me", headers={"Authorization": "Bearer x"}).status_code == 401


def test_a_valid_bearer_token_acts_as_its_owner_whatever_cookie_comes_with_it(client_as, make_user):
    viewer = client_as("viewer")
    page = viewer.submit("/account/tokens", {"name": "t"}).get_data(as_text=True)
    token = page.split('<code class="token">')[1].split("</code>")[0]
    admin = client_as("admin")
    me = admin.get("/api/v1/me", headers={"Authorization": f"Bearer {token}"})
    assert me.get_json()["email"] == viewer.user.email
    forbidden = admin.post(
        "/api/v1/maintenance/integrity-check", headers={"Authorization": f"Bearer {token}"}
    )
    assert forbidden.status_code == 403


def test_a_session_from_before_generations_existed_is_signed_out(app, make_user):
    user = make_user()
    client = sign_in(app, user)
    with client.session_transaction() as session:
        session["_user_id"] = str(user.id)  # the plain id the session held before
    assert whoami(client)[0] == 401
