from webapp.auth.models import LoginAttempt, User
from webapp.auth.roles import Role
from webapp.extensions import db


def test_a_fresh_install_sends_everyone_to_create_the_first_administrator(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response.headers["Location"].endswith("/setup")
    page = client.get("/setup").get_data(as_text=True)
    assert "Create the first administrator" in page


def test_creating_the_first_administrator_signs_them_in(client):
    token = client.csrf_token("/setup")
    response = client.post(
        "/setup",
        data={
            "csrf_token": token,
            "name": "Ada",
            "email": "Ada@Example.org",
            "password": "long enough pw",
            "confirm": "long enough pw",
        },
    )
    assert response.status_code == 302
    user = User.by_email("ada@example.org")
    assert user.role == Role.admin
    assert "Furrow" in client.get("/").get_data(as_text=True)


def test_setup_errors_rerender_with_messages_and_keep_input(client):
    token = client.csrf_token("/setup")
    response = client.post(
        "/setup",
        data={"csrf_token": token, "email": "ada@example.org", "password": "short", "confirm": "x"},
    )
    page = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "at least 12 characters" in page
    assert "The passwords differ." in page
    assert 'value="ada@example.org"' in page
    assert db.session.query(User).count() == 0


def test_setup_is_gone_once_someone_exists(client, make_user):
    make_user(Role.viewer)
    assert client.get("/setup").headers["Location"].endswith("/login")


def test_login_with_the_right_password(client, make_user):
    user = make_user(Role.editor)
    response = client.login(user.email)
    assert response.status_code == 302
    assert client.get("/api/v1/me").get_json()["role"] == "editor"


def test_a_wrong_password_is_refused_without_saying_which_part_was_wrong(client, make_user):
    user = make_user()
    response = client.login(user.email, "not the password")
    assert response.status_code == 422
    assert "Email or password is wrong" in response.get_data(as_text=True)


def test_a_disabled_account_cannot_sign_in(client, make_user):
    user = make_user()
    user.active = False
    db.session.commit()
    assert client.login(user.email).status_code == 422


def test_repeated_failures_lock_the_account_for_a_while(client, make_user):
    user = make_user()
    for _ in range(5):
        assert client.login(user.email, "guess guess").status_code == 422
    locked = client.login(user.email)  # even the right password waits now
    assert locked.status_code == 429
    assert "Too many failed sign-ins" in locked.get_data(as_text=True)
    assert db.session.query(LoginAttempt).filter_by(succeeded=False).count() == 5


def test_login_only_redirects_to_local_paths(client, make_user):
    user = make_user()
    token = client.csrf_token("/login")
    data = {"csrf_token": token, "email": user.email, "password": "correct horse battery"}
    response = client.post("/login?next=https://evil.example/", data=data)
    assert response.headers["Location"] == "/"


def test_login_returns_to_the_page_asked_for(client, make_user):
    user = make_user()
    assert client.get("/runs").headers["Location"].endswith("/login?next=/runs")
    token = client.csrf_token("/login")
    data = {"csrf_token": token, "email": user.email, "password": "correct horse battery"}
    assert client.post("/login?next=/runs", data=data).headers["Location"] == "/runs"


def test_sign_out_needs_a_post_with_csrf(client_as):
    client = client_as(Role.viewer)
    assert client.post("/logout").status_code == 400
    assert client.get("/api/v1/me").status_code == 200
    assert client.submit("/logout").status_code == 302
    assert client.get("/api/v1/me").status_code == 401


def test_an_htmx_poll_after_the_session_ended_sends_the_whole_page_to_login(client, make_user):
    make_user()
    response = client.get(
        "/runs/1", headers={"HX-Request": "true", "HX-Current-URL": "http://x.test/runs/1?a=b"}
    )
    assert response.status_code == 401
    assert response.headers["HX-Redirect"] == "/login?next=/runs/1?a%3Db"
