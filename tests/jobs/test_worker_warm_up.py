"""A worker makes the SDK client once, at its start: every job's work horse inherits it."""

import pytest

from tests.jobs.chunked_kinds import ClientCensus
from tests.support.app import start_worker, stop_process, wait_for
from webapp.extensions import db
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.queue import enqueue_run

pytestmark = pytest.mark.worker


def finished(run_id: int) -> Run | None:
    db.session.expire_all()
    run = db.session.get(Run, run_id)
    db.session.commit()
    return run if run.status == RunStatus.succeeded else None


def test_the_client_is_made_once_per_worker_before_its_first_job(
    app, make_user, services, idle_queue
):
    # Its own queue and an OpenAI server set for it; the census never calls the server.
    process = start_worker(
        services, FURROW_QUEUE=idle_queue.queue.name, OPENAI_BASE_URL="http://127.0.0.1:9/v1"
    )
    try:
        runs = [enqueue_run(ClientCensus, make_user("editor")).id for _ in range(2)]
        census = [wait_for(lambda r=r: finished(r), timeout=90).results["census"] for r in runs]
    finally:
        stop_process(process)
    for job in census:
        assert job["made_before_the_job"] == 1  # made by the worker, not by this job
        assert job["made_in_all"] == 1  # and never again in the work horse
    assert census[0]["horse"] != census[1]["horse"]  # two jobs, two forks, one client
    assert census[0]["client"] == census[1]["client"]
