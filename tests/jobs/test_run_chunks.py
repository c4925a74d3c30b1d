"""A large run split into chunks that real worker processes share: progress, results, cancel,
resume and a lost worker across chunks."""

import os
import signal

import pytest
from rq import Worker
from sqlalchemy import select

from tests.jobs.chunked_kinds import ChunkedItems, OrderedItems
from tests.jobs.test_worker_runs import reload
from tests.support.app import start_worker, stop_process, wait_for
from tests.support.kinds import open_gates
from webapp.extensions import db
from webapp.jobs.models import ChunkStatus, RunChunk, RunStatus
from webapp.jobs.queue import enqueue_run, request_cancel, resume_run
from webapp.jobs.sweeper import sweep

pytestmark = pytest.mark.worker


def chunks(run_id: int) -> list[RunChunk]:
    db.session.expire_all()
    found = list(
        db.session.scalars(
            select(RunChunk).where(RunChunk.run_id == run_id).order_by(RunChunk.position)
        )
    )
    db.session.commit()
    return found


def running_chunks(run_id: int) -> list[RunChunk]:
    return [c for c in chunks(run_id) if c.status == ChunkStatus.running]


def chunked(make_user, tmp_path, count, size, **params):
    params = {"count": count, "chunk_size": size, "gate_dir": str(tmp_path), **params}
    return enqueue_run(ChunkedItems, make_user("editor"), params)


def items(*numbers: int) -> list[str]:
    return [f"item-{n}" for n in numbers]


@pytest.fixture
def second_worker(app, services, worker):
    """Another worker process; ready once both listen on the queue (they start slowly on a
    busy machine)."""
    process = start_worker(services)
    queue = app.extensions["furrow.jobs"].queue
    wait_for(lambda: len(Worker.all(queue=queue)) >= 2, timeout=90, every=0.2)
    yield process
    stop_process(process)


def pid_of(worker_name: str) -> int:
    return int(worker_name.rsplit("-", 1)[1])


def test_a_large_run_is_split_and_a_small_or_ordered_one_stays_one_job(
    app, make_user, idle_queue, tmp_path
):
    # No worker listens on this queue: two chunks, as for one worker.
    large = chunked(make_user, tmp_path, count=7, size=3)
    assert large.rq_job_id is None
    assert [c.items for c in chunks(large.id)] == [items(0, 1, 2, 3), items(4, 5, 6)]
    assert all(c.status == ChunkStatus.queued and c.rq_job_id for c in chunks(large.id))
    assert idle_queue.queue.count == 2

    small = chunked(make_user, tmp_path, count=3, size=3)
    ordered = enqueue_run(
        OrderedItems, make_user("editor"), {"count": 20, "gate_dir": str(tmp_path)}
    )
    for run in (small, ordered):
        assert run.rq_job_id and chunks(run.id) == []
    assert idle_queue.queue.count == 4

    shown = large.to_dict()["chunks"]
    assert shown["by_status"] == {"queued": 2}
    assert [(c["items"], c["done"], c["status"]) for c in shown["not_done"]] == [
        (4, 0, "queued"),
        (3, 0, "queued"),
    ]
    assert small.to_dict()["chunks"] is None

    request_cancel(large)  # still queued: every chunk is taken off the queue with it
    assert reload(large.id).status == RunStatus.cancelled
    assert {c.status for c in chunks(large.id)} == {ChunkStatus.cancelled}
    assert idle_queue.queue.count == 2


def test_two_workers_share_a_run_and_its_progress_and_results_add_up(
    app, make_user, second_worker, tmp_path
):
    run = chunked(make_user, tmp_path, count=12, size=3)
    # No gate is open yet: each worker holds the first item of the chunk it took.
    both = wait_for(lambda: len(running_chunks(run.id)) == 2 and running_chunks(run.id), 60)
    assert len({c.worker_name for c in both}) == 2
    assert reload(run.id).status == RunStatus.running
    open_gates(tmp_path, *items(*range(12)))

    done = wait_for(lambda: reload(run.id).status == RunStatus.succeeded and reload(run.id), 60)
    assert done.done == done.total == 12
    assert sorted(done.done_items) == sorted(done.items)
    assert done.results == {key: {"item": key} for key in done.items}
    assert done.message == "12 of 12 item(s) done."
    ended = chunks(run.id)
    assert [c.status for c in ended] == [ChunkStatus.done] * 4
    assert len({c.worker_name for c in ended}) == 2


def test_cancel_stops_every_chunk_and_resume_queues_only_unfinished_items(
    app, make_user, second_worker, tmp_path
):
    run = chunked(make_user, tmp_path, count=12, size=3)
    wait_for(lambda: len(running_chunks(run.id)) == 2, 60)
    open_gates(tmp_path, "item-0", "item-3")
    wait_for(lambda: reload(run.id).done == 2)  # each chunk is on its second item now
    request_cancel(reload(run.id))
    assert [c.status for c in chunks(run.id)][2:] == [ChunkStatus.cancelled] * 2
    open_gates(tmp_path, "item-1", "item-4")  # the items under way finish, then both stop

    cancelled = wait_for(
        lambda: reload(run.id).status == RunStatus.cancelled and reload(run.id), 60
    )
    assert sorted(cancelled.done_items) == items(0, 1, 3, 4)
    assert sorted(cancelled.results) == items(0, 1, 3, 4)
    assert {c.status for c in chunks(run.id)} == {ChunkStatus.cancelled}

    resumed = resume_run(cancelled)
    assert resumed.status == RunStatus.queued and resumed.attempt == 2
    assert [c.items for c in chunks(run.id)] == [items(2, 5, 6), items(7, 8, 9), items(10, 11)]
    open_gates(tmp_path, *items(*range(12)))
    finished = wait_for(lambda: reload(run.id).status == RunStatus.succeeded and reload(run.id), 60)
    assert finished.done == 12 and sorted(finished.results) == sorted(finished.items)


def test_a_lost_worker_fails_its_chunk_the_others_go_on_and_the_run_resumes(
    app, make_user, worker, second_worker, tmp_path, client_as
):
    run = chunked(make_user, tmp_path, count=6, size=3)
    both = wait_for(lambda: len(running_chunks(run.id)) == 2 and running_chunks(run.id), 60)
    doomed = next(c for c in both if pid_of(c.worker_name) == second_worker.pid)
    survivor = next(c for c in both if c.id != doomed.id)
    os.kill(second_worker.pid, signal.SIGKILL)  # its work horse dies with it

    assert wait_for(lambda: sweep().lost, timeout=20) == [run.id]
    assert reload(run.id).status == RunStatus.running  # the other chunk goes on
    lost = {c.id: c for c in chunks(run.id)}[doomed.id]
    assert lost.status == ChunkStatus.lost and lost.error_code == "worker_lost"

    open_gates(tmp_path, *survivor.items)
    failed = wait_for(lambda: reload(run.id).status == RunStatus.failed and reload(run.id), 60)
    assert failed.error_code == "worker_lost"
    assert sorted(failed.done_items) == sorted(survivor.items)
    assert failed.can_resume and sorted(failed.pending_items) == sorted(doomed.items)

    # The run page and the API show the chunks: counts by status, and the lost one with why.
    client = client_as("viewer")
    shown = client.get(f"/api/v1/runs/{run.id}").get_json()["chunks"]
    assert shown["total"] == 2 and shown["by_status"] == {"done": 1, "lost": 1}
    [lost_shown] = shown["not_done"]
    assert lost_shown["position"] == lost.position + 1 and lost_shown["items"] == 3
    assert lost_shown["status"] == "lost" and lost_shown["worker"] == doomed.worker_name
    assert lost_shown["error"]["code"] == "worker_lost"
    assert "stopped answering" in lost_shown["error"]["message"]
    page = client.get(f"/runs/{run.id}").get_data(as_text=True)
    assert 'id="chunks"' in page and doomed.worker_name in page
    assert "stopped answering" in page and f"{lost.position + 1} of 2" in page

    resume_run(failed)  # three items left: one job, taken by the remaining worker
    assert chunks(run.id) == []
    open_gates(tmp_path, *doomed.items)
    finished = wait_for(lambda: reload(run.id).status == RunStatus.succeeded and reload(run.id), 60)
    assert finished.done == 6 and finished.attempt == 2
