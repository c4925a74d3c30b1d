from datetime import UTC, datetime, timedelta

from rq.job import JobStatus

from webapp.config import load_settings
from webapp.jobs.models import ChunkStatus, Run, RunChunk, RunStatus
from webapp.jobs.sweeper import QUEUE_LOST, Lost, lost_reason

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def run_with(status, **times):
    return Run(status=status, queued_at=NOW - timedelta(minutes=5), **times)


def settings(tmp_path):
    return load_settings({"FURROW_INSTANCE_PATH": str(tmp_path), "FURROW_LOST_AFTER_SECONDS": "30"})


def test_a_queued_run_whose_job_vanished_is_queue_lost(tmp_path):
    lost = lost_reason(run_with(RunStatus.queued), None, NOW, settings(tmp_path))
    assert lost is QUEUE_LOST and lost.code == "queue_lost"
    assert lost.reason.startswith("Its job was lost from the job queue (Redis restarted)")


def test_a_freshly_queued_run_gets_time_for_its_job_to_appear(tmp_path):
    run = Run(status=RunStatus.queued, queued_at=NOW - timedelta(seconds=5))
    assert lost_reason(run, None, NOW, settings(tmp_path)) is None


def test_a_run_queued_before_redis_restarted_is_queue_lost_at_once(tmp_path):
    run = Run(status=RunStatus.queued, queued_at=NOW - timedelta(seconds=5))
    restarted = NOW - timedelta(seconds=2)
    assert lost_reason(run, None, NOW, settings(tmp_path), restarted) is QUEUE_LOST
    # One queued after the restart is still within its grace: its job may be on its way.
    later = Run(status=RunStatus.queued, queued_at=NOW - timedelta(seconds=1))
    assert lost_reason(later, None, NOW, settings(tmp_path), restarted) is None


def test_a_queued_run_with_its_job_waiting_is_fine(tmp_path):
    run = run_with(RunStatus.queued)
    assert lost_reason(run, JobStatus.QUEUED, NOW, settings(tmp_path)) is None


def test_a_running_run_with_a_recent_heartbeat_is_fine(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW - timedelta(seconds=10))
    assert lost_reason(run, JobStatus.STARTED, NOW, settings(tmp_path)) is None


def test_a_running_run_whose_heartbeat_stopped_is_lost(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW - timedelta(seconds=45))
    lost = lost_reason(run, JobStatus.STARTED, NOW, settings(tmp_path))
    assert lost == Lost("worker_lost", "Its worker stopped answering 45 s ago (killed or crashed).")


def test_a_running_run_whose_job_failed_in_rq_is_lost_at_once(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW)
    lost = lost_reason(run, JobStatus.FAILED, NOW, settings(tmp_path))
    assert lost == Lost("worker_lost", "Its job ended as failed without finishing the run.")


def test_a_queued_chunk_whose_job_failed_before_it_started_is_lost(tmp_path):
    chunk = RunChunk(status=ChunkStatus.queued, queued_at=NOW - timedelta(seconds=5))
    lost = lost_reason(chunk, JobStatus.FAILED, NOW, settings(tmp_path))
    assert lost == Lost("worker_lost", "Its job ended as failed before it started.")
    assert lost_reason(chunk, JobStatus.QUEUED, NOW, settings(tmp_path)) is None


def test_a_running_chunk_whose_heartbeat_stopped_is_lost(tmp_path):
    chunk = RunChunk(
        status=ChunkStatus.running,
        queued_at=NOW - timedelta(minutes=5),
        heartbeat_at=NOW - timedelta(seconds=40),
    )
    lost = lost_reason(chunk, JobStatus.STARTED, NOW, settings(tmp_path))
    assert lost == Lost("worker_lost", "Its worker stopped answering 40 s ago (killed or crashed).")
