"""How a run ends: its outcome and summary, and for a run split into chunks, the one end of
the run when its last chunk ends.

Chunks of one run save into the same run row from different workers. Each save takes the row's
write lock (an UPDATE: a row lock on PostgreSQL, the database's write lock on SQLite), then
reads the row and writes it back, so one chunk's results and errors never overwrite another's;
the count done goes up atomically, and each chunk keeps the items it finished on its own row
(the run's list of them is made whole when the run ends, and by a resume). Keeping results on
the run row (rather than a table of results per item) leaves every RunKind's keep_results,
outcomes and verdict working on run.results as they are."""

from __future__ import annotations

from sqlalchemy import func, select, update

from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.kinds import RunKind
from webapp.jobs.models import OPEN_CHUNK_STATUSES, ChunkStatus, Run, RunChunk, RunStatus


def lock_run(run_id: int) -> None:
    """Hold the run row's write lock until the transaction ends; read the row after this."""
    db.session.execute(update(Run).where(Run.id == run_id).values(id=Run.id))


def finish(
    run: Run,
    status: RunStatus,
    message: str,
    from_statuses: tuple[RunStatus, ...] = (RunStatus.running,),
    **error: str,
) -> None:
    # Only a run still ours: the sweeper may have marked it lost or hard-cancelled it meanwhile.
    db.session.execute(
        update(Run)
        .where(Run.id == run.id, Run.status.in_(from_statuses))
        .values(status=status, stage=status.value, message=message, finished_at=utcnow(), **error)
    )
    db.session.commit()


def summary(run: Run, kind: RunKind) -> str:
    errors = kind.failed_items(run)
    ok = run.done - errors
    text = f"{ok} of {run.total} item(s) done"
    return text + (f", {errors} with errors." if errors else ".")


def outcome(done: int, failed: int) -> RunStatus:
    """How a run that worked through its items ended: a run that did nothing is not green."""
    if failed == 0:
        return RunStatus.succeeded
    return RunStatus.failed if failed >= done else RunStatus.completed_with_errors


def complete(run: Run, kind: RunKind, from_statuses=(RunStatus.running,)) -> None:
    text = summary(run, kind)
    status = outcome(run.done, kind.failed_items(run))
    # Every item done without a failure, yet none found anything: grey, saying why.
    if status == RunStatus.succeeded and run.done and (why := kind.nothing_found(run)):
        where = "" if run.done == 1 else f" in any of {run.done} items"
        finish(run, RunStatus.nothing_found, f"Nothing found{where}: {why}.", from_statuses)
    elif status == RunStatus.failed:
        finish(run, status, text, from_statuses, error_code="no_item_done", error_message=text)
    else:
        finish(run, status, text, from_statuses)


def open_chunks(run_id: int) -> int:
    query = select(func.count()).where(
        RunChunk.run_id == run_id, RunChunk.status.in_(OPEN_CHUNK_STATUSES)
    )
    return db.session.scalar(query) or 0


def end_chunk(
    run: Run,
    kind: RunKind,
    chunk_id: int,
    status: ChunkStatus,
    code: str | None = None,
    reason: str | None = None,
) -> None:
    """Mark an open chunk ended; the chunk that ends last ends the run (once: under the lock)."""
    db.session.commit()
    lock_run(run.id)
    db.session.execute(
        update(RunChunk)
        .where(RunChunk.id == chunk_id, RunChunk.status.in_(OPEN_CHUNK_STATUSES))
        .values(status=status, finished_at=utcnow(), error_code=code, error_message=reason)
    )
    end_if_last(run, kind)
    db.session.commit()


def end_if_last(run: Run, kind: RunKind) -> None:
    """Under the run's lock: once no chunk is open, the run ends cancelled (if asked), failed
    (a chunk was lost: resumable for its items), or by its items' outcome."""
    if open_chunks(run.id):
        return
    db.session.refresh(run)
    if not run.is_live:
        return
    fold_chunks(run)
    live = (RunStatus.queued, RunStatus.running)
    lost = db.session.scalars(
        select(RunChunk)
        .where(RunChunk.run_id == run.id, RunChunk.status == ChunkStatus.lost)
        .order_by(RunChunk.position)
    ).first()
    if run.cancel_requested_at is not None:
        finish(run, RunStatus.cancelled, f"Cancelled; {summary(run, kind)}", live)
    elif lost is not None:
        reason = f"{lost.error_message} {summary(run, kind)} Resume it for the rest."
        code = lost.error_code or "worker_lost"
        finish(run, RunStatus.failed, reason, live, error_code=code, error_message=reason)
    else:
        complete(run, kind, live)


def fold_chunks(run: Run) -> None:
    """The items the run's chunks finished, on the run's own list (in the run's order)."""
    done = run.done_keys()
    if len(done) != len(run.done_items):
        run.done_items = [key for key in run.items if key in done]
