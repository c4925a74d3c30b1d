from sqlalchemy import select

from tests.support.app import PASSWORD, furrow
from webapp.auth.models import ApiToken, User
from webapp.extensions import db


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def test_cli_creates_users_and_prints_a_token_as_last_line(app, client):
    created = furrow(
        app,
        "users",
        "create",
        "Eve@Example.org",
        "--role",
        "reviewer",
        FURROW_PASSWORD="from the env var",
    )
    assert created.returncode == 0, created.stderr
    assert "created eve@example.org (reviewer)" in created.stdout
    issued = furrow(app, "users", "token", "eve@example.org", "--name", "script")
    assert issued.returncode == 0, issued.stderr
    token = issued.stdout.strip().splitlines()[-1]
    assert token.startswith("furrow_")

    me = client.get("/api/v1/me", headers=bearer(token))
    assert me.status_code == 200
    assert me.get_json() == {
        "id": me.get_json()["id"],
        "email": "eve@example.org",
        "name": "",
        "role": "reviewer",
    }
    db.session.expire_all()
    stored = db.session.scalar(select(ApiToken))
    assert stored.token_hash != token and token not in stored.token_hash
    assert stored.last_used_at is not None
    assert client.login("eve@example.org", "from the env var").status_code == 302


def test_cli_refuses_bad_input_with_one_line(app, make_user):
    user = make_user()
    duplicate = furrow(app, "users", "create", user.email, "--password", PASSWORD)
    assert duplicate.returncode == 2
    assert duplicate.stderr.strip() == f"furrow: There is already an account for {user.email}."
    bad_role = furrow(
        app, "users", "create", "x@example.org", "--role", "boss", "--password", PASSWORD
    )
    assert bad_role.returncode == 2
    assert "unknown role 'boss'" in bad_role.stderr
    no_password = furrow(app, "users", "create", "y@example.org", FURROW_PASSWORD="")
    assert no_password.returncode == 2
    assert "no password" in no_password.stderr
    unknown = furrow(app, "users", "token", "nobody@example.org")
    assert unknown.returncode == 2
    assert unknown.stderr.strip() == "furrow: no account for nobody@example.org"


def test_tokens_made_on_the_account_page_are_shown_once_and_can_be_revoked(client_as, client):
    owner = client_as("editor")
    page = owner.submit("/account/tokens", {"name": "laptop"}).get_data(as_text=True)
    token = page.split('<code class="token">')[1].split("</code>")[0]
    assert client.get("/api/v1/me", headers=bearer(token)).get_json()["role"] == "editor"
    assert token not in owner.get("/account").get_data(as_text=True)

    stored = db.session.scalar(select(ApiToken).where(ApiToken.name == "laptop"))
    assert owner.submit(f"/account/tokens/{stored.id}/revoke").status_code == 302
    refused = client.get("/api/v1/me", headers=bearer(token))
    assert refused.status_code == 401
    assert refused.get_json()["error"]["code"] == "unauthorized"


def test_nobody_can_revoke_someone_elses_token(client_as):
    owner, other = client_as("editor"), client_as("admin")
    owner.submit("/account/tokens", {"name": "mine"})
    stored = db.session.scalar(select(ApiToken).where(ApiToken.name == "mine"))
    assert other.submit(f"/account/tokens/{stored.id}/revoke").status_code == 404


def test_a_disabled_users_token_stops_working(client_as, client):
    owner = client_as("viewer")
    page = owner.submit("/account/tokens", {"name": "t"}).get_data(as_text=True)
    token = page.split('<code class="token">')[1].split("</code>")[0]
    user = db.session.get(User, owner.user.id)
    user.active = False
    db.session.commit()
    assert client.get("/api/v1/me", headers=bearer(token)).status_code == 401


def test_api_posts_with_a_bearer_token_need_no_csrf(client_as, client, worker):
    admin = client_as("admin")
    page = admin.submit("/account/tokens", {"name": "ci"}).get_data(as_text=True)
    token = page.split('<code class="token">')[1].split("</code>")[0]
    response = client.post("/api/v1/maintenance/integrity-check", headers=bearer(token))
    assert response.status_code == 202
    assert isinstance(response.get_json()["run_id"], int)


def test_cli_lists_users(app, make_user):
    user = make_user("reviewer")
    listed = furrow(app, "users", "list")
    assert f"{user.email}\treviewer\tactive" in listed.stdout.splitlines()
