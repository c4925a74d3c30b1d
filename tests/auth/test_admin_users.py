from webapp.auth.models import User
from webapp.auth.roles import Role
from webapp.extensions import db


def test_an_admin_adds_a_person_who_can_then_sign_in(admin_client, client):
    response = admin_client.submit(
        "/admin/users",
        {
            "name": "Bo",
            "email": "bo@example.org",
            "role": "reviewer",
            "password": "kohlrabi long passphrase",
        },
    )
    assert response.status_code == 302
    assert User.by_email("bo@example.org").role == Role.reviewer
    assert client.login("bo@example.org", "kohlrabi long passphrase").status_code == 302


def test_adding_a_duplicate_rerenders_the_form_with_the_reason(admin_client, make_user):
    existing = make_user("viewer")
    response = admin_client.submit(
        "/admin/users",
        {"email": existing.email, "role": "viewer", "password": "kohlrabi long passphrase"},
    )
    assert response.status_code == 422
    page = response.get_data(as_text=True)
    assert f"There is already an account for {existing.email}." in page
    assert f'value="{existing.email}"' in page


def test_an_unknown_role_is_refused(admin_client):
    response = admin_client.submit(
        "/admin/users",
        {"email": "x@example.org", "role": "boss", "password": "kohlrabi long passphrase"},
    )
    assert response.status_code == 422
    assert "Not a valid choice" in response.get_data(as_text=True)
    assert User.by_email("x@example.org") is None


def test_disable_enable_reset_and_change_role(admin_client, make_user, client):
    person = make_user("editor")
    admin_client.submit(f"/admin/users/{person.id}/active")
    assert db.session.get(User, person.id).active is False
    assert client.login(person.email).status_code == 422
    admin_client.submit(f"/admin/users/{person.id}/active")
    admin_client.submit(f"/admin/users/{person.id}/password", {"password": "brand new secret"})
    assert client.login(person.email, "brand new secret").status_code == 302
    admin_client.submit(f"/admin/users/{person.id}/role", {"role": "reviewer"})
    assert db.session.get(User, person.id).role == Role.reviewer


def test_a_too_short_reset_password_is_refused_with_a_message(admin_client, make_user):
    person = make_user("viewer")
    response = admin_client.submit(
        f"/admin/users/{person.id}/password", {"password": "short"}, follow_redirects=True
    )
    assert f"Password for {person.email}: Use at least 12 characters." in response.get_data(
        as_text=True
    )


def test_the_last_admin_cannot_be_disabled_or_demoted(admin_client):
    me = admin_client.user
    page = admin_client.submit(f"/admin/users/{me.id}/active", follow_redirects=True)
    assert "last active administrator" in page.get_data(as_text=True)
    admin_client.submit(f"/admin/users/{me.id}/role", {"role": "viewer"})
    assert db.session.get(User, me.id).role == Role.admin
    assert db.session.get(User, me.id).active is True


def test_people_change_their_own_password(client_as, client):
    person = client_as("viewer")
    wrong = person.submit(
        "/account/password",
        {
            "current": "nope nope nope",
            "password": "another long one",
            "confirm": "another long one",
        },
    )
    assert wrong.status_code == 422
    assert "not your current password" in wrong.get_data(as_text=True)
    ok = person.submit(
        "/account/password",
        {
            "current": "correct horse battery",
            "password": "another long one",
            "confirm": "another long one",
        },
    )
    assert ok.status_code == 302
    assert client.login(person.user.email, "another long one").status_code == 302
