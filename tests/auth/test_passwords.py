"""New passwords: at least 12 characters, not one character repeated or only spaces, not one of
the bundled common passwords, and not easy to guess by zxcvbn's estimate; the same rule on every
way a password is set."""

import pytest

from tests.support.app import PASSWORD, furrow
from webapp.auth.models import User
from webapp.auth.passwords import common_passwords, password_problem
from webapp.extensions import db


@pytest.mark.parametrize(
    ("password", "problem"),
    [
        ("elevenchars", "at least 12"),
        ("aaaaaaaaaaaaaaaa", "more than one character"),
        (" " * 14, "more than one character"),
        (" \t \t \t \t \t \t", "more than spaces"),
        ("qwertyuiop12", "most common"),  # qwertyuiop, with digits after it
        ("Password2024!", "most common"),
        ("!!1 Football 99", "most common"),
        ("1qaz2wsx3edc", "most common"),  # itself in the list
        ("Iloveyou Iloveyou", None),  # two common words make a longer, rarer phrase
        # What zxcvbn finds easy: a sequence, a repeat with one change, a repeated pair, a
        # common word doubled, a keyboard run, a name and a year.
        ("123456789012", "easy to guess"),
        ("111111111112", "easy to guess"),
        ("abababababab", "easy to guess"),
        ("passwordpassword", "easy to guess"),
        ("qwertzuiopasdf", "easy to guess"),
        ("michael19851985", "easy to guess"),
        ("kohlrabi in the spring rain", None),
        (PASSWORD, None),
    ],
)
def test_the_rule(password, problem):
    found = password_problem(password)
    assert (found is None) if problem is None else (problem in found), found


def test_a_weak_password_is_told_why_and_a_very_long_one_is_scored_quickly():
    found = password_problem("abababababab")
    assert found.startswith("This password is easy to guess. Repeats like")
    assert password_problem("correct horse battery " * 5_000) is None


def test_the_bundled_list_is_the_top_ten_thousand():
    common = common_passwords()
    assert len(common) == 10_000
    assert {"123456", "password", "dragon"} <= common


def test_setup_refuses_a_common_password_with_the_reason(client):
    response = client.post(
        "/setup",
        data={
            "csrf_token": client.csrf_token("/setup"),
            "email": "ada@example.org",
            "password": "password1234",
            "confirm": "password1234",
        },
    )
    assert response.status_code == 422
    assert "one of the most common passwords" in response.get_data(as_text=True)
    assert db.session.query(User).count() == 0


def test_an_administrator_cannot_create_or_reset_to_a_weak_password(admin_client, make_user):
    created = admin_client.submit(
        "/admin/users",
        {"email": "bo@example.org", "role": "viewer", "password": "aaaaaaaaaaaaaa"},
        page="/admin/users",
    )
    assert created.status_code == 422
    assert "more than one character" in created.get_data(as_text=True)
    person = make_user()
    reset = admin_client.submit(
        f"/admin/users/{person.id}/password",
        {"password": "Baseball123456"},
        page="/admin/users",
        follow_redirects=True,
    )
    assert "one of the most common passwords" in reset.get_data(as_text=True)
    assert db.session.get(User, person.id).check_password(PASSWORD)


def test_the_account_page_refuses_a_weak_new_password(client_as):
    client = client_as("viewer")
    weak = client.submit(
        "/account/password",
        {"current": PASSWORD, "password": "superman2000", "confirm": "superman2000"},
    )
    assert weak.status_code == 422
    assert "one of the most common passwords" in weak.get_data(as_text=True)
    assert db.session.get(User, client.user.id).check_password(PASSWORD)


def test_the_cli_refuses_a_weak_password_in_one_line(app):
    result = furrow(app, "users", "create", "x@example.org", "--password", "trustno1!!!!")
    assert result.returncode == 2
    assert result.stderr.strip() == (
        "furrow: Password: This is one of the most common passwords; choose another."
    )
