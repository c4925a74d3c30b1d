"""Run pages in words: kinds by title, items by name with counts and problems, how long a run
took; one enrichment at a time per culture and per column."""

from datetime import timedelta

from tests.support.html import by_id, rows, soup
from tests.support.tables import make_table
from webapp.cultures.models import Culture
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus


def test_a_run_page_names_its_items_and_never_shows_a_repr(client_as):
    client = client_as("editor")
    bean = Culture(name="Dry bean", variety="Borlotto")
    db.session.add(bean)
    db.session.commit()
    started = utcnow() - timedelta(minutes=2, seconds=5)
    run = Run(
        kind="culture_enrichment",
        title=f"Enrich {bean.label}",
        requested_by=client.user,
        status=RunStatus.completed_with_errors,
        items=[str(bean.id), "999"],
        done_items=[str(bean.id), "999"],
        total=2,
        done=2,
        started_at=started,
        finished_at=started + timedelta(minutes=2, seconds=5),
        results={
            str(bean.id): {
                "culture": bean.label,
                "suggested": 4,
                "errors": 1,
                "warnings": 2,
                "note_blocks": [{"code": "x"}],
                "citations": [{"title": "A"}, {"title": "B"}],
            }
        },
        item_errors={"999": "Culture #999 no longer exists."},
    )
    db.session.add(run)
    db.session.commit()

    page = client.get(f"/runs/{run.id}")
    text = soup(page).get_text(" ", strip=True)
    assert "{'" not in text and "[{" not in text
    assert by_id(page, "run-duration").get_text(strip=True) == "2 min 5 s"
    assert "Culture enrichment" in text and "culture_enrichment" not in text
    assert rows(by_id(page, "results")) == [
        ["Dry bean ‘Borlotto’", "Suggested 4 · Errors 1 · Warnings 2 · Sources 2", "—"],
        ["999", "—", "Culture #999 no longer exists."],
    ]
    assert by_id(page, "review-link")["href"] == f"/cultures/runs/{run.id}/review"
    runs = soup(client.get("/runs"))
    assert [o.get_text() for o in runs.select("#kind option") if o["value"]] == [
        "Culture enrichment"
    ]


def test_enriching_a_culture_twice_points_to_the_running_run(client_as, idle_queue):
    editor = client_as("editor")
    tomato = Culture(name="Tomato", variety="Moneymaker")
    db.session.add(tomato)
    db.session.commit()
    token = {"X-CSRFToken": editor.csrf_token("/")}

    first = editor.post(f"/api/v1/cultures/{tomato.id}/enrich", json={}, headers=token)
    assert first.status_code == 202
    run = db.session.get(Run, first.get_json()["run_id"])
    assert run.title == "Enrich Tomato ‘Moneymaker’"

    again = editor.post(f"/api/v1/cultures/{tomato.id}/enrich", json={}, headers=token)
    assert again.status_code == 409
    error = again.get_json()["error"]
    assert error["code"] == "run_in_progress" and error["details"]["run_id"] == run.id
    batch = editor.post("/api/v1/cultures/enrich-batch", json={"ids": [tomato.id]}, headers=token)
    assert batch.status_code == 409

    page = editor.submit(f"/cultures/{tomato.id}/enrich", {"mode": "complete"})
    flashed = soup(editor.get(page.headers["Location"])).select_one(".flash-warning")
    assert f"run #{run.id}" in flashed.get_text()
    assert flashed.a["href"] == f"/runs/{run.id}"
    assert db.session.query(Run).count() == 1


def test_filling_a_column_twice_points_to_the_running_run(client_as, idle_queue):
    editor = client_as("editor")
    roots = make_table("Roots", [("Crop", "text"), ("yield", "number")], [{"Crop": "beet"}])
    body = {"target_column": "yield", "strategy": "computation", "params": {"formula": "1"}}
    token = {"X-CSRFToken": editor.csrf_token("/")}

    first = editor.post(f"/api/v1/tables/{roots.id}/enrich", json=body, headers=token)
    assert first.status_code == 202
    run = db.session.get(Run, first.get_json()["run_id"])
    assert run.title.startswith("Fill ‘yield’ in Roots (1 row)")

    again = editor.post(f"/api/v1/tables/{roots.id}/enrich", json=body, headers=token)
    assert again.status_code == 409 and again.get_json()["error"]["details"]["run_id"] == run.id
    other = editor.post(
        f"/api/v1/tables/{roots.id}/enrich", json={**body, "target_column": "Crop"}, headers=token
    )
    assert other.status_code == 202
