"""Putting runs on the RQ queue, and cancelling or resuming them."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Any

import redis
from flask import current_app, url_for
from markupsafe import Markup
from rq import Queue, Worker
from rq.exceptions import InvalidJobOperation, NoSuchJobError
from rq.job import Job
from sqlalchemy import delete, select, update

from webapp.auth.models import User
from webapp.config import Settings
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.ending import end_if_last, lock_run
from webapp.jobs.kinds import RUN_KINDS, RunKind
from webapp.jobs.models import (
    LIVE_STATUSES,
    RESUMABLE_STATUSES,
    ChunkStatus,
    Run,
    RunChunk,
    RunStatus,
)
from webapp.problems import Unavailable

EXECUTE_RUN = "webapp.jobs.runner.execute_run"


class QueueUnavailable(Unavailable):
    """Redis did not answer; the message says what to check."""

    code = "queue_unavailable"


class RunStateError(RuntimeError):
    """The run is not in a state that allows this action."""


class RunInProgress(Exception):
    """A run is already queued or running for the same record: people are sent to it rather
    than starting a second one (the API answers 409 with its id)."""

    code = "run_in_progress"

    def __init__(self, run: Run, what: str) -> None:
        self.run = run
        super().__init__(f"{what} is already being worked on in run #{run.id} ({run.status}).")

    def link(self) -> Markup:
        """The message with a link to the run, for a flash."""
        return Markup('{} <a href="{}">Open run #{}</a>').format(
            str(self), url_for("runs.show_run", run_id=self.run.id), self.run.id
        )


def live_runs(kind: type[RunKind]) -> list[Run]:
    """The runs of a kind that are queued or running, oldest first."""
    query = select(Run).where(Run.kind == kind.name, Run.status.in_(LIVE_STATUSES))
    return list(db.session.scalars(query.order_by(Run.id)))


@dataclass
class JobQueue:
    """The Redis connection and RQ queue of one app, kept in app.extensions."""

    redis: redis.Redis
    queue: Queue

    @classmethod
    def for_settings(cls, settings: Settings) -> JobQueue:
        connection = redis.Redis.from_url(
            settings.effective_redis_url, socket_connect_timeout=2, socket_timeout=5
        )
        return cls(connection, Queue(settings.queue_name, connection=connection))

    def ping(self) -> bool:
        try:
            return bool(self.redis.ping())
        except redis.RedisError:
            return False


def job_queue() -> JobQueue:
    return current_app.extensions["furrow.jobs"]


def _unavailable_message(exc: Exception) -> str:
    settings: Settings = current_app.config["FURROW"]
    where = settings.redis_url or "the embedded Redis (started by `furrow serve`)"
    return f"The job queue is not reachable ({where}): {exc}. Nothing was started."


def _chunks(run: Run, kind: RunKind) -> list[RunChunk]:
    """The run's unfinished items in chunks, when there are more than one chunk's worth: two
    chunks per worker listening now (one at least), each of chunk_size items or more. A chunk
    pays its job's start and the kind's set-up (a table run reads its rows again), so a run
    gets no more chunks than its workers can share well; two each keeps a worker that finishes
    early busy, and leaves some for a worker that joins. Quick items (a formula computed) take
    the same moment each: one chunk a worker, whose start is paid once."""
    size = kind.chunk_size(run.params)
    pending = run.pending_items
    if not size or len(pending) <= size:
        return []
    each = 1 if kind.quick_items(run.params) else 2
    shares = each * max(Worker.count(queue=job_queue().queue), 1)
    size = max(size, -(-len(pending) // shares))
    chunks = [
        RunChunk(run_id=run.id, position=n, items=pending[start : start + size])
        for n, start in enumerate(range(0, len(pending), size))
    ]
    db.session.add_all(chunks)
    return chunks


def _job_id(run: Run, part: str = "") -> str:
    # Unique even if a row id is reused (SQLite may reuse the highest id after a delete).
    return f"run-{run.id}-{run.attempt}{part}-{secrets.token_hex(4)}"


def _put_on_queue(run: Run) -> None:
    """Enqueue run's job, or one job per chunk of a large run; on a Redis failure mark the run
    failed and raise QueueUnavailable."""
    kind = RUN_KINDS[run.kind]
    chunks = _chunks(run, kind())
    for chunk in chunks:
        chunk.rq_job_id = _job_id(run, f"-c{chunk.position}")
    run.rq_job_id = None if chunks else _job_id(run)
    db.session.commit()
    queue = job_queue().queue
    try:
        if not chunks:
            queue.enqueue(
                EXECUTE_RUN,
                run.id,
                kind.path(),
                job_id=run.rq_job_id,
                job_timeout=kind.timeout_seconds,
                result_ttl=3600,
                failure_ttl=7 * 24 * 3600,
                description=f"{run.kind} #{run.id}",
            )
        else:
            queue.enqueue_many(
                [
                    Queue.prepare_data(
                        EXECUTE_RUN,
                        (run.id, kind.path(), chunk.id),
                        job_id=chunk.rq_job_id,
                        description=f"{run.kind} #{run.id} ({n + 1} of {len(chunks)})",
                        timeout=kind.timeout_seconds,
                        result_ttl=3600,
                        failure_ttl=7 * 24 * 3600,
                    )
                    for n, chunk in enumerate(chunks)
                ]
            )
    except redis.RedisError as exc:
        message = _unavailable_message(exc)
        run.status = RunStatus.failed
        run.stage = "failed"
        run.error_code = "queue_unavailable"
        run.error_message = message
        run.finished_at = utcnow()
        db.session.commit()
        raise QueueUnavailable(message) from exc


def enqueue_run(
    kind: type[RunKind],
    requested_by: User | None,
    params: dict[str, Any] | None = None,
    *,
    target: tuple[str, int] | None = None,
    mode: str | None = None,
    provider: str | None = None,
    model: str | None = None,
    title: str | None = None,
) -> Run:
    """Create the Run row and its RQ job together; title names what it works on (the kind's
    title by default).

    If Redis cannot take the job, the run is kept as failed with the reason and
    QueueUnavailable is raised, so callers show the error and nothing is left half-made.
    """
    if RUN_KINDS.get(kind.name) is not kind:
        raise ValueError(f"run kind {kind.name!r} is not registered")
    params = params or {}
    items = kind().plan_items(params)
    run = Run(
        kind=kind.name,
        title=(title or kind.title)[:200],
        params=params,
        requested_by=requested_by,
        target_type=target[0] if target else None,
        target_id=target[1] if target else None,
        mode=mode,
        provider=provider,
        model=model,
        items=items,
        total=len(items),
    )
    db.session.add(run)
    db.session.flush()
    _put_on_queue(run)
    return run


def request_cancel(run: Run) -> None:
    """A queued run is cancelled at once; a running one stops after its current item."""
    if not run.is_live:
        raise RunStateError(f"Run #{run.id} is {run.status}; only a live run can be cancelled.")
    now = utcnow()
    cancelled_while_queued = db.session.execute(
        update(Run)
        .where(Run.id == run.id, Run.status == RunStatus.queued)
        .values(
            status=RunStatus.cancelled,
            stage="cancelled",
            cancel_requested_at=now,
            finished_at=now,
            message="Cancelled before it started.",
        )
    ).rowcount
    if cancelled_while_queued:
        db.session.commit()
        # The row already says cancelled, so a worker that takes the job skips it anyway.
        _take_off_queue(run, [run.rq_job_id, *_cancel_queued_chunks(run)])
    else:
        db.session.execute(
            update(Run)
            .where(Run.id == run.id, Run.cancel_requested_at.is_(None))
            .values(cancel_requested_at=now, message="Cancelling after the current item…")
        )
        db.session.commit()
        # Chunks no worker took yet end now; the last running one ends the run.
        lock_run(run.id)
        jobs = _cancel_queued_chunks(run)
        if jobs:
            end_if_last(run, RUN_KINDS[run.kind]())
        db.session.commit()
        _take_off_queue(run, jobs)
    db.session.refresh(run)


def _cancel_queued_chunks(run: Run) -> list[str]:
    """Mark the run's chunks still queued cancelled; their job ids."""
    queued = db.session.scalars(
        select(RunChunk).where(RunChunk.run_id == run.id, RunChunk.status == ChunkStatus.queued)
    ).all()
    for chunk in queued:
        chunk.status, chunk.finished_at = ChunkStatus.cancelled, utcnow()
    db.session.flush()
    return [chunk.rq_job_id for chunk in queued if chunk.rq_job_id]


def _take_off_queue(run: Run, job_ids: list[str | None]) -> None:
    for job_id in filter(None, job_ids):
        try:
            Job.fetch(job_id, connection=job_queue().redis).cancel()
        except (NoSuchJobError, InvalidJobOperation, redis.RedisError) as exc:
            current_app.logger.info("job of run %s not taken off the queue: %s", run.id, exc)


def resume_run(run: Run) -> Run:
    """Queue a run that failed, partly failed or was cancelled again for the items it has not
    finished (those that failed included)."""
    if run.status not in RESUMABLE_STATUSES:
        raise RunStateError(
            f"Run #{run.id} is {run.status}; only runs that failed, completed with errors "
            "or were cancelled resume."
        )
    if run.kind not in RUN_KINDS:
        raise RunStateError(f"Run #{run.id} is of a kind this version no longer runs ({run.kind}).")
    pending = run.pending_items
    if not pending:
        raise RunStateError(f"Run #{run.id} has no unfinished items.")
    retried = set(pending)
    done = run.done_keys()  # before the chunks that kept them go
    run.done_items = [key for key in run.items if key in done and key not in retried]
    run.item_errors = {k: v for k, v in run.item_errors.items() if k not in retried}
    run.done = len(run.done_items)
    run.status = RunStatus.queued
    run.stage = "queued"
    run.message = f"Resumed for {len(pending)} unfinished item(s)."
    run.error_code = run.error_message = None
    run.cancel_requested_at = run.finished_at = run.heartbeat_at = run.started_at = None
    # The earlier attempt's chunks are over; the unfinished items get chunks of their own.
    db.session.execute(delete(RunChunk).where(RunChunk.run_id == run.id))
    run.attempt += 1
    run.queued_at = utcnow()
    _put_on_queue(run)
    return run
