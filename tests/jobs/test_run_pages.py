import csv
import io

import redis
from sqlalchemy import select

from tests.support.app import HTMX
from tests.support.html import by_id, rows
from tests.support.kinds import GatedItems
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import JobQueue, enqueue_run


def make_run(user, status=RunStatus.succeeded, **values):
    run = Run(
        **{
            "kind": "test_gated",
            "title": "Gated test items",
            "requested_by": user,
            "status": status,
            "items": ["item-0", "item-1"],
            "total": 2,
            **values,
        }
    )
    db.session.add(run)
    db.session.commit()
    return run


def test_a_live_run_page_polls_and_a_finished_one_does_not(client_as):
    client = client_as("editor")
    live = make_run(client.user, RunStatus.running, done=1, done_items=["item-0"])
    finished = make_run(client.user, RunStatus.succeeded, done=2)

    status = by_id(client.get(f"/runs/{live.id}"), "run-status")
    assert status["hx-trigger"] == "every 1s" and status["hx-get"] == f"/runs/{live.id}"
    assert status.progress["value"] == "50"
    assert "1 / 2 items — 50 %" in status.select_one(".progress-label").get_text(" ", strip=True)

    fragment = client.get(f"/runs/{live.id}", headers=HTMX).get_data(as_text=True)
    assert fragment.lstrip().startswith('<section id="run-status"')
    assert "<html" not in fragment

    done = by_id(client.get(f"/runs/{finished.id}"), "run-status")
    assert not done.has_attr("hx-trigger") and done["data-status"] == "succeeded"


def test_only_the_requester_or_an_admin_controls_a_run(client_as):
    owner, other_editor, admin = client_as("editor"), client_as("editor"), client_as("admin")
    run = make_run(owner.user, RunStatus.running)
    assert ">Cancel" not in other_editor.get(f"/runs/{run.id}").get_data(as_text=True)
    assert other_editor.submit(f"/runs/{run.id}/cancel").status_code == 403
    assert ">Cancel" in admin.get(f"/runs/{run.id}").get_data(as_text=True)
    assert owner.submit(f"/runs/{run.id}/cancel").status_code == 302
    assert db.session.get(Run, run.id).cancel_requested_at is not None


def test_resume_is_offered_for_failed_runs_with_unfinished_items(client_as):
    client = client_as("editor")
    run = make_run(
        client.user,
        RunStatus.failed,
        done=1,
        done_items=["item-0"],
        error_code="worker_lost",
        error_message="gone",
    )
    page = client.get(f"/runs/{run.id}").get_data(as_text=True)
    assert "Resume (1 unfinished)" in page
    assert "worker_lost" in page


def test_the_run_list_filters_pages_and_exports(client_as):
    client = client_as("viewer")
    for _ in range(3):
        make_run(client.user, RunStatus.failed)
    make_run(None, RunStatus.succeeded)
    page = client.get("/runs?status=failed").get_data(as_text=True)
    assert page.count("status-failed") == 3 and "status-succeeded" not in page
    assert "3 run(s)." in page
    mine = client.get("/runs?mine=1", headers=HTMX).get_data(as_text=True)
    assert mine.lstrip().startswith('<section id="run-table"') and "3 run(s)." in mine

    csv_text = client.get("/runs/export.csv?status=failed").get_data(as_text=True)
    lines = csv_text.strip().splitlines()
    assert lines[0].startswith("id,kind,title,status")
    assert len(lines) == 4

    api = client.get("/api/v1/runs?status=failed&per_page=2").get_json()
    assert api["total"] == 3 and api["pages"] == 2 and len(api["runs"]) == 2
    assert api["runs"][0]["status"] == "failed"


def test_the_run_export_cannot_run_formulas(client_as):
    client = client_as("viewer")
    make_run(client.user, RunStatus.failed, title="=cmd|' /C calc'!A0", error_message="@SUM(1)")
    exported = client.get("/runs/export.csv").get_data(as_text=True)
    row = next(csv.DictReader(io.StringIO(exported)))
    assert (row["title"], row["error_message"]) == ("'=cmd|' /C calc'!A0", "'@SUM(1)")
    assert row["done"] == "0"


def test_the_api_shows_one_run_with_progress(client_as):
    client = client_as("viewer")
    run = make_run(client.user, RunStatus.running, done=1)
    body = client.get(f"/api/v1/runs/{run.id}").get_json()
    assert body["progress"] == {
        "done": 1,
        "total": 2,
        "percent": 50,
        "stage": "queued",
        "message": "",
    }
    missing = client.get("/api/v1/runs/999999")
    assert missing.status_code == 404
    assert missing.get_json()["error"] == {
        "code": "not_found",
        "message": "There is no run #999999.",
    }


def test_api_cancel_and_resume_answer_conflicts_in_json(client_as):
    client = client_as("editor")
    run = make_run(client.user, RunStatus.succeeded)
    token = client.csrf_token("/")
    response = client.post(f"/api/v1/runs/{run.id}/cancel", headers={"X-CSRFToken": token})
    assert response.status_code == 409
    assert response.get_json()["error"]["code"] == "run_state_conflict"


def unreachable_queue(app):
    """Point the app at a Redis that is not there, for one test."""
    saved = app.extensions["furrow.jobs"]
    dead = redis.Redis(unix_socket_path="/nonexistent/redis.sock", socket_connect_timeout=1)
    app.extensions["furrow.jobs"] = JobQueue(dead, saved.queue.__class__("x", connection=dead))
    return saved


def test_redis_down_at_enqueue_is_a_clear_error_and_a_failed_run(app, client_as):
    client = client_as("admin")
    saved = unreachable_queue(app)
    try:
        response = client.submit("/maintenance/integrity-check", follow_redirects=True)
        page = response.get_data(as_text=True)
        assert "The job queue is not reachable" in page
        api = client.post(
            "/api/v1/maintenance/integrity-check", headers={"X-CSRFToken": client.csrf_token("/")}
        )
        assert api.status_code == 503
        assert api.get_json()["error"]["code"] == "queue_unavailable"
        health = client.get("/healthz")
        assert health.status_code == 503 and health.get_json()["redis"].startswith("error")
        assert health.get_json()["down"] == ["redis"]
    finally:
        app.extensions["furrow.jobs"] = saved
    runs = db.session.scalars(select(Run)).all()
    assert len(runs) == 2
    assert {r.status for r in runs} == {RunStatus.failed}
    assert {r.error_code for r in runs} == {"queue_unavailable"}


def test_enqueue_refuses_an_unregistered_kind(app, make_user):
    class Unregistered(GatedItems):
        name = "never_registered"

    try:
        enqueue_run(Unregistered, make_user("admin"), {"count": 1, "gate_dir": "/tmp"})
    except ValueError as exc:
        assert "not registered" in str(exc)
    else:
        raise AssertionError("an unregistered kind was enqueued")
    assert db.session.scalars(select(Run)).all() == []


def test_run_list_headers_sort_by_title_and_keep_the_filters(client_as):
    client = client_as("editor")
    for title in ("Beta", "alpha", "Gamma"):
        make_run(client.user, title=title)
    make_run(client.user, RunStatus.failed, title="Delta")
    newest_first = client.get("/runs?status=succeeded")
    assert [r[1] for r in rows(by_id(newest_first, "run-table").table)] == [
        "Gamma",
        "alpha",
        "Beta",
    ]
    header = by_id(newest_first, "run-table").find("th", attrs={"aria-sort": "descending"})
    assert header.get_text(strip=True) == "▼#"
    what = next(th for th in by_id(newest_first, "run-table").find_all("th") if "What" in th.text)
    assert "status=succeeded" in what.a["href"] and "sort=title" in what.a["href"]
    by_title = client.get(what.a["href"])
    assert [r[1] for r in rows(by_id(by_title, "run-table").table)] == ["Beta", "Gamma", "alpha"]
    assert by_id(by_title, "run-table").find("th", attrs={"aria-sort": "ascending"})


def test_viewers_do_not_see_runs_of_a_workspace_kept_from_them(client_as):
    """A registry run's title and items name the review and its files: editors and up only."""
    editor = client_as("editor")
    secret = make_run(
        editor.user,
        kind="registry_review",
        title="Assess ‘Denman farm’",
        items=["doc:1:land-registry-copy.pdf"],
        total=1,
    )
    shown = make_run(editor.user, title="Gated test items")
    viewer = client_as("viewer")
    listing = viewer.get("/runs").get_data(as_text=True)
    assert "Denman" not in listing and "Gated test items" in listing
    assert "Assess a registry review" not in listing  # nor its kind among the filters
    exported = viewer.get("/runs/export.csv").get_data(as_text=True)
    assert "Denman" not in exported and len(exported.strip().splitlines()) == 2
    api = viewer.get("/api/v1/runs").get_json()
    assert [run["id"] for run in api["runs"]] == [shown.id] and api["total"] == 1
    for path in (f"/runs/{secret.id}", f"/api/v1/runs/{secret.id}"):
        response = viewer.get(path)
        assert response.status_code == 404 and b"Denman" not in response.data
    assert viewer.get(f"/api/v1/runs/{secret.id}/suggestions").status_code == 404
    assert editor.get(f"/api/v1/runs/{secret.id}").get_json()["title"] == "Assess ‘Denman farm’"
    assert {run["id"] for run in editor.get("/api/v1/runs").get_json()["runs"]} == {
        secret.id,
        shown.id,
    }
