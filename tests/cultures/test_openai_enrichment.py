"""An enrichment run through a real worker whose provider is openai, on the loopback server."""

import pytest
from rq import Queue

from tests.cultures.test_openai_provider import ANSWER
from tests.support.app import start_worker, stop_process, wait_for
from tests.support.openai_server import responses_body, schema_at
from webapp.cultures.models import Culture
from webapp.cultures.runs import CultureEnrichment, suggestions_of
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import JobQueue, enqueue_run
from webapp.review import service
from webapp.review.models import Suggestion

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
    assert done.status == RunStatus.completed_with_errors
    assert done.message == "1 of 2 item(s) done, 1 with errors."
    assert list(done.item_errors) == [str(bad.id)]
    assert "broke the schema twice" in done.item_errors[str(bad.id)]
    assert (done.input_tokens, done.output_tokens, done.web_searches) == (3000, 600, 3)
    assert float(done.cost_usd) > 0
    fields = {s.field for s in db.session.query(Suggestion).filter_by(target_id=good.id)}
    assert fields == {"expected_yield", "harvest_method"}
    assert done.results[str(good.id)]["note_blocks"] == ["Stake the plants."]
    payload = client_as("viewer").get(f"/api/v1/runs/{run.id}/suggestions").get_json()
    entry, failed = payload["targets"]
    assert entry["note_blocks"] == ["Stake the plants."]
    assert (failed["name"], failed["state"], failed["suggestions"]) == ("Mystery", "failed", [])
    assert failed["validation"]["errors"][0]["code"] == "item_failed"
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
    assert "seed_packages" in schema_at(schema, "properties", "suggested_fields")["required"]
    [suggestion] = suggestions_of(carrot, run)
    assert suggestion.suggested_value == [{**packages[0], "size_value": 5.0}]
    assert [i["code"] for i in suggestion.issues] == ["seed_package_size_rejected"]
    result = service.apply([suggestion.id], make_user("reviewer"))
    db.session.commit()
    assert result.applied_fields == ["seed_packages"]
    assert db.session.get(Culture, carrot.id).seed_packages[0]["size_value"] == 5.0


MALFORMED = {
    **ANSWER,
    "suggested_fields": {
        # Each of these once crashed a run or would have been stored as if it were right.
        "expected_yield": {"value": float("nan"), "unit": "kg/m²", "confidence": "high"},
        "harvest_method": {"value": "by the bushel", "unit": None, "confidence": "medium"},
        "growth_duration_days": {"value": [60, 70, 80], "unit": "days", "confidence": 0.4},
        "row_spacing_cm": {"value": 30, "unit": "kg", "confidence": "very sure"},
        "sowing_depth_cm": {"value": "about 2", "unit": "cm", "confidence": "LOW"},
    },
    "evidence": {},
}


def test_a_malformed_middle_answer_fails_only_its_culture(
    app, make_user, client_as, openai_server, openai_worker
):
    """Three cultures; the middle answer breaks the contract twice: the others keep their
    suggestions, the middle one says why, the run completed with errors."""
    cultures = [Culture(name=n) for n in ("Tomato", "Mystery", "Lettuce")]
    db.session.add_all(cultures)
    db.session.commit()
    openai_server.reply(responses_body(ANSWER))
    openai_server.reply(responses_body({"suggested_fields": [1, 2], "evidence": "none"}))
    openai_server.reply(responses_body("not json at all"))
    openai_server.reply(responses_body(ANSWER))
    run = enqueue_run(
        CultureEnrichment,
        make_user("editor"),
        {"culture_ids": [c.id for c in cultures], "mode": "complete", "fields": []},
        provider="openai",
        model="gpt-5-mini",
    )
    done = finished(run.id)
    assert done.status == RunStatus.completed_with_errors
    assert list(done.item_errors) == [str(cultures[1].id)]
    for culture in (cultures[0], cultures[2]):
        fields = {s.field for s in db.session.query(Suggestion).filter_by(target_id=culture.id)}
        assert fields == {"expected_yield", "harvest_method"}
    queue = client_as("viewer").get(f"/cultures/runs/{run.id}/review").get_data(as_text=True)
    assert "Mystery" in queue and "the answer is not valid JSON" in queue
    assert "completed with errors" in queue


def test_malformed_values_are_that_fields_error_never_a_database_error(
    app, make_user, client_as, openai_server, openai_worker
):
    tomato = Culture(name="Tomato", reference_crop="tomato")
    db.session.add(tomato)
    db.session.commit()
    openai_server.reply(responses_body(MALFORMED))
    fields = [*MALFORMED["suggested_fields"]]
    run = enqueue_run(
        CultureEnrichment,
        make_user("editor"),
        {"culture_ids": [tomato.id], "mode": "reresearch", "fields": fields},
        provider="openai",
        model="gpt-5-mini",
    )
    done = finished(run.id)
    assert done.status == RunStatus.succeeded, done.item_errors
    by_field = {s.field: s for s in suggestions_of(tomato, run)}
    assert set(by_field) == set(fields)
    expected = {
        "expected_yield": ("value_malformed", "nan"),
        "harvest_method": ("value_malformed", "by the bushel"),
        "growth_duration_days": ("value_malformed", "[60, 70, 80]"),
        "row_spacing_cm": ("unit_mismatch", "30"),
    }
    for field, (code, shown) in expected.items():
        suggestion = by_field[field]
        assert suggestion.status == "blocked", field
        assert suggestion.errors[0]["code"] == code, field
        assert suggestion.suggested_value == shown, field
    # "high" and "LOW" are confidence levels; "very sure" is not, and says so.
    assert by_field["sowing_depth_cm"].confidence == "low"
    assert (by_field["sowing_depth_cm"].suggested_value, by_field["sowing_depth_cm"].status) == (
        2,
        "pending",
    )
    assert by_field["row_spacing_cm"].confidence is None
    assert "confidence_malformed" in [i["code"] for i in by_field["row_spacing_cm"].issues]
    page = client_as("reviewer").get(f"/cultures/{tomato.id}").get_data(as_text=True)
    assert "“nan” is not a number or a range of numbers." in page
    assert "kg (mass) cannot be converted to cm (length)." in page
