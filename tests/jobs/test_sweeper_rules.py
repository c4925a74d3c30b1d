from datetime import UTC, datetime, timedelta

from rq.job import JobStatus

from webapp.config import load_settings
from webapp.jobs.models import Run, RunStatus
from webapp.jobs.sweeper import lost_reason

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)


def run_with(status, **times):
    return Run(status=status, queued_at=NOW - timedelta(minutes=5), **times)


def settings(tmp_path):
    return load_settings({"FURROW_INSTANCE_PATH": str(tmp_path), "FURROW_LOST_AFTER_SECONDS": "30"})


def test_a_queued_run_whose_job_vanished_is_lost(tmp_path):
    reason = lost_reason(run_with(RunStatus.queued), None, NOW, settings(tmp_path))
    assert reason == "Its job is no longer on the queue (was Redis restarted?)."


def test_a_freshly_queued_run_gets_time_for_its_job_to_appear(tmp_path):
    run = Run(status=RunStatus.queued, queued_at=NOW - timedelta(seconds=5))
    assert lost_reason(run, None, NOW, settings(tmp_path)) is None


def test_a_queued_run_with_its_job_waiting_is_fine(tmp_path):
    run = run_with(RunStatus.queued)
    assert lost_reason(run, JobStatus.QUEUED, NOW, settings(tmp_path)) is None


def test_a_running_run_with_a_recent_heartbeat_is_fine(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW - timedelta(seconds=10))
    assert lost_reason(run, JobStatus.STARTED, NOW, settings(tmp_path)) is None


def test_a_running_run_whose_heartbeat_stopped_is_lost(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW - timedelta(seconds=45))
    reason = lost_reason(run, JobStatus.STARTED, NOW, settings(tmp_path))
    assert reason == "Its worker stopped answering 45 s ago (killed or crashed)."


def test_a_running_run_whose_job_failed_in_rq_is_lost_at_once(tmp_path):
    run = run_with(RunStatus.running, heartbeat_at=NOW)
    reason = lost_reason(run, JobStatus.FAILED, NOW, settings(tmp_path))
    assert reason == "Its job ended as failed without finishing the run."
