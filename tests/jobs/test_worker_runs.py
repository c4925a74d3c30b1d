"""Runs executed by a real RQ worker process against this session's database and Redis."""

import os
import signal

import pytest
from rq import Queue
from sqlalchemy import select

from tests.jobs.chunked_kinds import ChunkedItems
from tests.support.app import wait_for
from tests.support.kinds import GatedItems, open_gates
from webapp.extensions import db
from webapp.jobs.maintenance import IntegrityCheck
from webapp.jobs.models import ChunkStatus, Run, RunChunk, RunStatus
from webapp.jobs.queue import EXECUTE_RUN, enqueue_run, request_cancel, resume_run
from webapp.jobs.sweeper import sweep

pytestmark = pytest.mark.worker


def reload(run_id: int) -> Run:
    db.session.expire_all()
    run = db.session.get(Run, run_id)
    db.session.commit()
    return run


def wait_status(run_id, *statuses, timeout=30):
    return wait_for(lambda: reload(run_id).status in statuses and reload(run_id), timeout)


def gated(make_user, tmp_path, count=4, **params):
    return enqueue_run(
        GatedItems, make_user("editor"), {"count": count, "gate_dir": str(tmp_path), **params}
    )


def test_integrity_check_counts_every_table_and_checks_the_database(app, make_user, worker):
    admin = make_user("admin")
    run = enqueue_run(IntegrityCheck, admin)
    assert run.status == RunStatus.queued
    assert run.items[0] == "database" and "users" in run.items and "runs" in run.items

    done = wait_status(run.id, RunStatus.succeeded)
    assert done.done == done.total == len(run.items)
    assert done.item_errors == {}
    assert done.results["users"] == {"rows": 1}
    assert done.results["database"]["engine"] in ("sqlite", "postgresql")
    if done.results["database"]["engine"] == "sqlite":
        assert done.results["database"]["journal_mode"] == "wal"
    assert done.started_at <= done.finished_at
    assert done.message == f"{done.total} of {done.total} item(s) done."
    tables = done.total - 1
    assert IntegrityCheck().verdict(done) == (
        "info",
        f"OK: no problems found (the database and {tables} tables checked).",
    )
    done.item_errors = {"plans": "plans: 3 row(s); 1 row(s) with culture_id → cultures missing"}
    assert IntegrityCheck().verdict(done) == ("error", "1 problem(s) found: see the items below.")


def test_progress_is_written_to_the_run_row_item_by_item(app, make_user, worker, tmp_path):
    run = gated(make_user, tmp_path, count=3)
    open_gates(tmp_path, "item-0")
    wait_for(lambda: reload(run.id).message == "Working on item-1")
    running = reload(run.id)
    assert running.status == RunStatus.running
    assert running.done == 1 and running.percent == 33
    open_gates(tmp_path, "item-1", "item-2")
    assert wait_status(run.id, RunStatus.succeeded).done == 3


def test_a_failing_item_is_recorded_and_the_rest_go_on(app, make_user, worker, tmp_path):
    run = gated(make_user, tmp_path, count=3, fail=["item-1"])
    open_gates(tmp_path, "item-0", "item-1", "item-2")
    done = wait_status(run.id, RunStatus.completed_with_errors, RunStatus.succeeded)
    assert done.status == RunStatus.completed_with_errors  # not green: one item failed
    assert done.item_errors == {"item-1": "item-1 failed as the test asked"}
    assert sorted(done.results) == ["item-0", "item-2"]
    assert done.message == "2 of 3 item(s) done, 1 with errors."
    assert done.error_code is None
    assert done.can_resume is True  # the failed item can be tried again
    assert done.pending_items == ["item-1"]


def test_a_run_whose_every_item_failed_has_failed(app, make_user, worker, tmp_path):
    run = gated(make_user, tmp_path, count=2, fail=["item-0", "item-1"])
    open_gates(tmp_path, "item-0", "item-1")
    done = wait_status(run.id, RunStatus.failed, RunStatus.succeeded)
    assert (done.status, done.error_code) == (RunStatus.failed, "no_item_done")
    assert done.message == "0 of 2 item(s) done, 2 with errors."


def test_cancel_stops_between_items_keeps_partial_results_and_resume_finishes(
    app, make_user, worker, tmp_path
):
    run = gated(make_user, tmp_path, count=4)
    open_gates(tmp_path, "item-0")
    wait_for(lambda: reload(run.id).message == "Working on item-1")
    request_cancel(reload(run.id))
    open_gates(tmp_path, "item-1")  # the item under way finishes, then the run stops
    cancelled = wait_status(run.id, RunStatus.cancelled)
    assert cancelled.done_items == ["item-0", "item-1"]
    assert sorted(cancelled.results) == ["item-0", "item-1"]
    assert cancelled.pending_items == ["item-2", "item-3"]

    resumed = resume_run(cancelled)
    assert resumed.attempt == 2 and resumed.status == RunStatus.queued
    open_gates(tmp_path, "item-2", "item-3")
    finished = wait_status(run.id, RunStatus.succeeded)
    assert finished.done == 4
    assert sorted(finished.results) == ["item-0", "item-1", "item-2", "item-3"]


def test_a_queued_run_is_cancelled_at_once_and_never_starts(app, make_user, idle_queue, tmp_path):
    run = enqueue_run(GatedItems, make_user("editor"), {"count": 1, "gate_dir": str(tmp_path)})
    assert idle_queue.queue.count == 1
    request_cancel(run)
    assert reload(run.id).status == RunStatus.cancelled
    assert reload(run.id).message == "Cancelled before it started."
    assert idle_queue.queue.count == 0


def test_a_job_left_by_a_deleted_run_does_not_take_a_new_run_that_got_its_id(
    app, make_user, idle_queue, worker, tmp_path
):
    # SQLite may give a deleted run's id to the next run while the deleted run's job still
    # waits on the queue: that job, of another kind, must not start the new run or its chunk.
    run = gated(make_user, tmp_path, count=1)
    large = enqueue_run(
        ChunkedItems,
        make_user("editor"),
        {"count": 4, "chunk_size": 2, "gate_dir": str(tmp_path)},
    )
    chunk = db.session.scalars(select(RunChunk).where(RunChunk.run_id == large.id)).first()
    workers_queue = Queue(app.config["FURROW"].queue_name, connection=idle_queue.redis)
    stale = [
        workers_queue.enqueue(EXECUTE_RUN, run.id, IntegrityCheck.path(), job_id="stale-run"),
        workers_queue.enqueue(
            EXECUTE_RUN, large.id, GatedItems.path(), chunk.id, job_id="stale-chunk"
        ),
    ]
    for job in stale:
        wait_for(lambda job=job: job.get_status(refresh=True) == "finished")
    assert [job.return_value() for job in stale] == [
        "skipped: the run was not queued any more",
        "skipped: the chunk was not queued any more",
    ]
    assert reload(run.id).status == RunStatus.queued and reload(run.id).started_at is None
    db.session.refresh(chunk)
    assert chunk.status == ChunkStatus.queued and reload(large.id).status == RunStatus.queued


def test_a_killed_worker_leaves_a_failed_resumable_run(
    app, make_user, worker, worker_holder, tmp_path
):
    run = gated(make_user, tmp_path, count=3)
    open_gates(tmp_path, "item-0")
    wait_for(lambda: reload(run.id).done == 1)
    # Worker names end in their process id; kill that worker the hard way.
    worker_pid = int(reload(run.id).worker_name.rsplit("-", 1)[1])
    os.kill(worker_pid, signal.SIGKILL)
    # Its work horse dies with it, so the heartbeat stops and the sweeper notices.
    wait_for(lambda: sweep().lost, timeout=20)
    lost = reload(run.id)
    assert lost.status == RunStatus.failed
    assert lost.error_code == "worker_lost"
    assert lost.done_items == ["item-0"]

    worker_holder.ensure()
    resume_run(lost)
    open_gates(tmp_path, "item-1", "item-2")
    finished = wait_status(run.id, RunStatus.succeeded)
    assert finished.done == 3 and finished.attempt == 2


def test_a_cancel_that_is_not_honoured_in_time_becomes_a_hard_stop(
    app, make_user, worker, tmp_path
):
    run = gated(make_user, tmp_path, count=2, wait_seconds=120)
    # Once item-0 is under way, the cancel can only be noticed after it: too late.
    wait_for(lambda: reload(run.id).message == "Working on item-0")
    request_cancel(reload(run.id))  # item-0 never ends on its own: its gate stays shut
    report = wait_for(lambda: sweep().hard_cancelled, timeout=15)
    assert report == [run.id]
    stopped = reload(run.id)
    assert stopped.status == RunStatus.cancelled
    assert stopped.message == "Cancelled (stopped mid-item)."
    assert stopped.pending_items == ["item-0", "item-1"]
