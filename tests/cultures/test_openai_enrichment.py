"""An enrichment run through a real worker whose provider is openai, on the loopback server."""

import pytest
from rq import Queue

from tests.enrichment.test_openai_provider import ANSWER
from tests.support.app import start_worker, stop_process, wait_for
from tests.support.openai_server import responses_body
from webapp.cultures.enrichment import CultureEnrichment, apply_to_culture, suggestions_of
from webapp.cultures.models import Culture
from webapp.enrichment.models import Suggestion
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import JobQueue, enqueue_run

pytestmark = pytest.mark.worker


@pytest.fixture
def openai_worker(app, services, openai_server):
    """A worker configured for openai on a queue of its own, and the app sending runs there."""
    queue_name = f"{services.queue_name}-openai"
    process = start_worker(
        services,
        FURROW_PROVIDER="openai",
        OPENAI_API_KEY="sk-test",
        OPENAI_BASE_URL=openai_server.base_url,
        FURROW_QUEUE=queue_name,
    )
    saved = app.extensions["furrow.jobs"]
    app.extensions["furrow.jobs"] = JobQueue(saved.redis, Queue(queue_name, connection=saved.redis))
    yield process
    app.extensions["furrow.jobs"] = saved
    stop_process(process)


def finished(run_id):
    def check():
        db.session.expire_all()
        run = db.session.get(Run, run_id)
        db.session.commit()
        return run if run.status not in ("queued", "running") else None

    return wait_for(check, timeout=60)


def test_usage_and_cost_are_recorded_and_a_failing_culture_does_not_fail_the_batch(
    app, make_user, client_as, openai_server, openai_worker
):
    good, bad = Culture(name="Tomato"), Culture(name="Mystery")
    db.session.add_all([good, bad])
    db.session.commit()
    openai_server.reply(responses_body(ANSWER, citations=[("https://fao.org/t", "FAO")]))
    openai_server.reply(responses_body({"broken": 1}))
    openai_server.reply(responses_body({"broken": 2}))
    run = enqueue_run(
        CultureEnrichment,
        make_user("editor"),
        {"culture_ids": [good.id, bad.id], "mode": "complete", "fields": []},
        provider="openai",
        model="gpt-5-mini",
    )
    done = finished(run.id)
    assert done.status == RunStatus.succeeded
    assert list(done.item_errors) == [str(bad.id)]
    assert "broke the schema twice" in done.item_errors[str(bad.id)]
    assert (done.input_tokens, done.output_tokens, done.web_searches) == (3000, 600, 3)
    assert float(done.cost_usd) > 0
    fields = {s.field for s in db.session.query(Suggestion).filter_by(target_id=good.id)}
    assert fields == {"expected_yield", "harvest_method"}
    assert done.results[str(good.id)]["note_blocks"] == ["Stake the plants."]
    payload = client_as("viewer").get(f"/api/v1/runs/{run.id}/suggestions").get_json()
    [entry] = payload["cultures"]
    assert entry["note_blocks"] == ["Stake the plants."]
    assert {s["url"] for s in entry["structured_sources"]} == {
        "https://extension.example.edu/tomato",
        "https://fao.org/t",
    }


def test_seed_packages_are_researched_checked_and_applied(
    app, make_user, openai_server, openai_worker
):
    carrot = Culture(name="Carrot")
    db.session.add(carrot)
    db.session.commit()
    packages = [
        {"size_value": 5, "size_unit": "g", "evidence_text": "5 g packet"},
        {"size_value": 5000, "size_unit": "g", "evidence_text": "sack"},
    ]
    answer = {
        **ANSWER,
        "suggested_fields": {"seed_packages": {"value": packages, "unit": None, "confidence": 0.8}},
        "evidence": {"seed_packages": []},
    }
    openai_server.reply(responses_body(answer))
    run = enqueue_run(
        CultureEnrichment,
        make_user("editor"),
        {"culture_ids": [carrot.id], "mode": "complete", "fields": []},
    )
    assert finished(run.id).status == RunStatus.succeeded
    schema = openai_server.requests[0][1]["text"]["format"]["schema"]
    assert "seed_packages" in schema["properties"]["suggested_fields"]["required"]
    [suggestion] = suggestions_of(carrot, run)
    assert suggestion.suggested_value == [{**packages[0], "size_value": 5.0}]
    assert [i["code"] for i in suggestion.issues] == ["seed_package_size_rejected"]
    result = apply_to_culture(carrot, [suggestion], make_user("reviewer"))
    db.session.commit()
    assert result.applied == ["seed_packages"]
    assert db.session.get(Culture, carrot.id).seed_packages[0]["size_value"] == 5.0
