"""Keeps run rows honest: lost jobs become failed runs, overdue cancels become hard stops."""

from __future__ import annotations

import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

import redis
from flask import current_app
from rq.command import send_stop_job_command
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job, JobStatus
from sqlalchemy import delete, select, update

from webapp.auth.models import LoginAttempt
from webapp.config import Settings
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.models import LIVE_STATUSES, Run, RunStatus
from webapp.jobs.queue import job_queue

log = logging.getLogger(__name__)

# A queued run's job is created right after its row; give that moment time before judging it.
ENQUEUE_GRACE = timedelta(seconds=30)
LOGIN_ATTEMPTS_KEPT = timedelta(days=1)
DEAD_JOB_STATUSES = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


@dataclass
class SweepReport:
    lost: list[int] = field(default_factory=list)
    hard_cancelled: list[int] = field(default_factory=list)


def lost_reason(
    run: Run, job_status: JobStatus | None, now: datetime, settings: Settings
) -> str | None:
    """Why a live run can no longer finish, or None while it still can."""
    if run.status == RunStatus.queued:
        if job_status is None and now - run.queued_at > ENQUEUE_GRACE:
            return "Its job is no longer on the queue (was Redis restarted?)."
        return None
    if job_status in DEAD_JOB_STATUSES:
        return f"Its job ended as {job_status.value} without finishing the run."
    last_sign = run.heartbeat_at or run.started_at or run.queued_at
    stale_for = (now - last_sign).total_seconds()
    if stale_for > settings.lost_after_seconds:
        return f"Its worker stopped answering {stale_for:.0f} s ago (killed or crashed)."
    return None


def _job_status(connection: redis.Redis, job_id: str | None) -> JobStatus | None:
    if not job_id:
        return None
    try:
        return Job.fetch(job_id, connection=connection).get_status()
    except NoSuchJobError:
        return None


def _mark(run_id: int, status: RunStatus, values: dict) -> bool:
    changed = db.session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status.in_(LIVE_STATUSES))
        .values(status=status, stage=status.value, finished_at=utcnow(), **values)
    ).rowcount
    db.session.commit()
    return bool(changed)


def _hard_stop(connection: redis.Redis, run: Run) -> None:
    # A job no longer executing needs no stop: marking the row is all that is left.
    with contextlib.suppress(NoSuchJobError, InvalidJobOperation):
        send_stop_job_command(connection, run.rq_job_id)


def sweep(now: datetime | None = None) -> SweepReport:
    """One pass over live runs. Raises redis.RedisError when the queue cannot be asked."""
    settings: Settings = current_app.config["FURROW"]
    now = now or utcnow()
    connection = job_queue().redis
    report = SweepReport()
    live = db.session.scalars(select(Run).where(Run.status.in_(LIVE_STATUSES))).all()
    db.session.commit()
    for run in live:
        overdue_cancel = (
            run.status == RunStatus.running
            and run.cancel_requested_at is not None
            and (now - run.cancel_requested_at).total_seconds() > settings.cancel_grace_seconds
        )
        if overdue_cancel:
            _hard_stop(connection, run)
            if _mark(run.id, RunStatus.cancelled, {"message": "Cancelled (stopped mid-item)."}):
                report.hard_cancelled.append(run.id)
            continue
        reason = lost_reason(run, _job_status(connection, run.rq_job_id), now, settings)
        if reason and _mark(
            run.id,
            RunStatus.failed,
            {"error_code": "worker_lost", "error_message": reason, "message": reason},
        ):
            log.warning("run %s marked lost: %s", run.id, reason)
            report.lost.append(run.id)
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - LOGIN_ATTEMPTS_KEPT))
    db.session.commit()
    return report
