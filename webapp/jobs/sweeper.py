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
from sqlalchemy.exc import OperationalError

from webapp.auth.models import LoginAttempt
from webapp.config import Settings
from webapp.database import failure_line, utcnow
from webapp.extensions import db
from webapp.jobs.ending import end_if_last, lock_run
from webapp.jobs.kinds import RUN_KINDS, RunKind
from webapp.jobs.models import (
    LIVE_STATUSES,
    OPEN_CHUNK_STATUSES,
    ChunkStatus,
    Run,
    RunChunk,
    RunStatus,
)
from webapp.jobs.queue import job_queue
from webapp.workspaces import load_workspaces

log = logging.getLogger(__name__)

# A queued run's job is created right after its row; give that moment time before judging it.
ENQUEUE_GRACE = timedelta(seconds=30)
LOGIN_ATTEMPTS_KEPT = timedelta(days=1)
DEAD_JOB_STATUSES = {JobStatus.FAILED, JobStatus.STOPPED, JobStatus.CANCELED}


class SweepSkipped(RuntimeError):
    """The job queue or the database could not be asked; the message says which."""


@dataclass
class SweepReport:
    lost: list[int] = field(default_factory=list)
    queue_lost: list[int] = field(default_factory=list)
    hard_cancelled: list[int] = field(default_factory=list)


@dataclass(frozen=True)
class Lost:
    """Why a live run can no longer finish: its error code and the words the run page shows."""

    code: str
    reason: str


QUEUE_LOST = Lost(
    "queue_lost",
    "Its job was lost from the job queue (Redis restarted) before a worker took it. "
    "Resume it to queue it again.",
)


def lost_reason(
    run: Run | RunChunk,
    job_status: JobStatus | None,
    now: datetime,
    settings: Settings,
    queue_started_at: datetime | None = None,
) -> Lost | None:
    """Why a live run (or an open chunk of one) can no longer finish, or None while it still can.

    A queued run without its job is lost once the enqueue grace has passed, or at once when it
    was queued before the Redis server started: a restarted Redis holds no job older than itself.
    """
    if run.status == RunStatus.queued:
        if job_status in DEAD_JOB_STATUSES:  # its job failed before it could start the work
            return Lost("worker_lost", f"Its job ended as {job_status.value} before it started.")
        before_restart = queue_started_at is not None and run.queued_at < queue_started_at
        if job_status is None and (before_restart or now - run.queued_at > ENQUEUE_GRACE):
            return QUEUE_LOST
        return None
    if job_status in DEAD_JOB_STATUSES:
        reason = f"Its job ended as {job_status.value} without finishing the run."
        return Lost("worker_lost", reason)
    last_sign = run.heartbeat_at or run.started_at or run.queued_at
    stale_for = (now - last_sign).total_seconds()
    if stale_for > settings.lost_after_seconds:
        reason = f"Its worker stopped answering {stale_for:.0f} s ago (killed or crashed)."
        return Lost("worker_lost", reason)
    return None


def queue_started_at(connection: redis.Redis) -> datetime:
    """When the Redis server started (to the second), by its own uptime."""
    uptime = connection.info("server")["uptime_in_seconds"]
    return utcnow() - timedelta(seconds=uptime)


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


def _hard_stop(connection: redis.Redis, run: Run, chunks: list[RunChunk]) -> None:
    # A job no longer executing needs no stop: marking the row is all that is left.
    for job_id in [run.rq_job_id, *(c.rq_job_id for c in chunks)]:
        if job_id:
            with contextlib.suppress(NoSuchJobError, InvalidJobOperation):
                send_stop_job_command(connection, job_id)
    for chunk in chunks:
        chunk.status, chunk.finished_at = ChunkStatus.cancelled, utcnow()
    db.session.commit()


def _kind(name: str) -> RunKind | None:
    """The run's kind; a sweep in a process without the pages (the supervisor's) loads the
    workspaces that register the kinds only when a lost chunk needs one."""
    if name not in RUN_KINDS:
        load_workspaces()
    kind = RUN_KINDS.get(name)
    return kind() if kind is not None else None


def _open_chunks(run: Run) -> list[RunChunk]:
    query = select(RunChunk).where(
        RunChunk.run_id == run.id, RunChunk.status.in_(OPEN_CHUNK_STATUSES)
    )
    return list(db.session.scalars(query.order_by(RunChunk.position)))


def _sweep_chunks(
    connection: redis.Redis,
    run: Run,
    chunks: list[RunChunk],
    now: datetime,
    settings: Settings,
    restarted_at: datetime | None,
    report: SweepReport,
) -> None:
    """A chunk whose job or worker is gone is lost (its items resume later); the run goes on
    with its other chunks, and ends failed when the last of them ends."""
    for chunk in chunks:
        lost = lost_reason(
            chunk, _job_status(connection, chunk.rq_job_id), now, settings, restarted_at
        )
        if lost is None:
            continue
        lock_run(run.id)
        changed = db.session.execute(
            update(RunChunk)
            .where(RunChunk.id == chunk.id, RunChunk.status.in_(OPEN_CHUNK_STATUSES))
            .values(
                status=ChunkStatus.lost,
                finished_at=utcnow(),
                error_code=lost.code,
                error_message=lost.reason,
            )
        ).rowcount
        if changed:
            log.warning("run %s chunk %s marked %s: %s", run.id, chunk.id, lost.code, lost.reason)
            if (kind := _kind(run.kind)) is not None:
                end_if_last(run, kind)
            (report.queue_lost if lost is QUEUE_LOST else report.lost).append(run.id)
        db.session.commit()


def sweep(now: datetime | None = None) -> SweepReport:
    """One pass over live runs. Raises SweepSkipped when Redis or the database is unreachable."""
    try:
        return _sweep(now)
    except redis.RedisError as exc:
        raise SweepSkipped(f"the job queue is not reachable: {exc}") from exc
    except OperationalError as exc:
        db.session.rollback()
        raise SweepSkipped(f"the database is not reachable: {failure_line(exc)}") from exc


def _sweep(now: datetime | None) -> SweepReport:
    settings: Settings = current_app.config["FURROW"]
    now = now or utcnow()
    connection = job_queue().redis
    report = SweepReport()
    live = db.session.scalars(select(Run).where(Run.status.in_(LIVE_STATUSES))).all()
    db.session.commit()
    restarted_at = queue_started_at(connection) if live else None
    for run in live:
        chunks = _open_chunks(run)
        overdue_cancel = (
            run.status == RunStatus.running
            and run.cancel_requested_at is not None
            and (now - run.cancel_requested_at).total_seconds() > settings.cancel_grace_seconds
        )
        if overdue_cancel:
            _hard_stop(connection, run, chunks)
            if _mark(run.id, RunStatus.cancelled, {"message": "Cancelled (stopped mid-item)."}):
                report.hard_cancelled.append(run.id)
            continue
        if chunks:
            _sweep_chunks(connection, run, chunks, now, settings, restarted_at, report)
            continue
        lost = lost_reason(run, _job_status(connection, run.rq_job_id), now, settings, restarted_at)
        if lost and _mark(
            run.id,
            RunStatus.failed,
            {"error_code": lost.code, "error_message": lost.reason, "message": lost.reason},
        ):
            log.warning("run %s marked %s: %s", run.id, lost.code, lost.reason)
            (report.queue_lost if lost is QUEUE_LOST else report.lost).append(run.id)
    db.session.execute(delete(LoginAttempt).where(LoginAttempt.at < now - LOGIN_ATTEMPTS_KEPT))
    db.session.commit()
    return report
