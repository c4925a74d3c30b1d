"""Executing a run inside an RQ worker: progress, heartbeat, cancel checks, per-item errors."""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Collection
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from decimal import Decimal
from itertools import islice
from typing import Any

from flask import current_app
from rq import get_current_job
from sqlalchemy import ColumnElement, func, select, true, update
from sqlalchemy.orm import load_only

from webapp.config import Settings
from webapp.database import utcnow
from webapp.extensions import db
from webapp.jobs.ending import complete, end_chunk, finish, lock_run, summary
from webapp.jobs.kinds import ItemError, RunKind, load_kind
from webapp.jobs.models import LIVE_STATUSES, ChunkStatus, Run, RunChunk, RunStatus
from webapp.jobs.processes import die_with_parent

log = logging.getLogger(__name__)


class Heartbeat:
    """Writes heartbeat_at every few seconds on its own connection while the run works.

    The sweeper marks a running run (or chunk) whose heartbeat stopped as lost (worker_lost).
    """

    def __init__(self, run_id: int, every: float, chunk_id: int | None = None) -> None:
        self.run_id = run_id
        self.chunk_id = chunk_id
        self.every = every
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{run_id}", daemon=True)
        self._app = current_app._get_current_object()  # type: ignore[attr-defined]

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=self.every + 5)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            try:
                with self._app.app_context(), db.engine.begin() as connection:
                    connection.execute(
                        update(Run).where(Run.id == self.run_id).values(heartbeat_at=utcnow())
                    )
                    if self.chunk_id is not None:
                        connection.execute(
                            update(RunChunk)
                            .where(RunChunk.id == self.chunk_id)
                            .values(heartbeat_at=utcnow())
                        )
            except Exception:
                log.exception("heartbeat of run %s failed", self.run_id)


def add_usage(run_id: int, usage, commit: bool = True) -> None:
    """Add a provider call's tokens and cost to the run (atomic, whatever else writes it);
    commit=False leaves it to the caller's transaction."""
    counts = (usage.input_tokens, usage.output_tokens, usage.web_searches, usage.rate_limited)
    if not (any(counts) or usage.cost_usd):
        return
    db.session.execute(
        update(Run)
        .where(Run.id == run_id)
        .values(
            input_tokens=Run.input_tokens + usage.input_tokens,
            output_tokens=Run.output_tokens + usage.output_tokens,
            web_searches=Run.web_searches + usage.web_searches,
            rate_limited=Run.rate_limited + usage.rate_limited,
            cost_usd=Run.cost_usd + Decimal(str(usage.cost_usd)),
        )
        .execution_options(synchronize_session=False)
    )
    if commit:
        db.session.commit()


def _claim(run_id: int, worker_name: str | None, job_id: str | None) -> bool:
    """queued → running, unless the run was cancelled (or taken) meanwhile, or is not this
    job's: SQLite may give a deleted run's id to a new run while the old job waits."""
    now = utcnow()
    claimed = db.session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status == RunStatus.queued, _is_job(Run, job_id))
        .values(
            status=RunStatus.running,
            stage="starting",
            started_at=now,
            heartbeat_at=now,
            worker_name=worker_name,
        )
    ).rowcount
    db.session.commit()
    return bool(claimed)


def _is_job(model: type[Run] | type[RunChunk], job_id: str | None) -> ColumnElement[bool]:
    return true() if job_id is None else model.rq_job_id == job_id


def _claim_chunk(
    chunk_id: int, run_id: int, worker_name: str | None, job_id: str | None
) -> bool | None:
    """The chunk queued → running (False if it was not queued any more, or is not this job's),
    and its run running with it (None when the run was cancelled or ended meanwhile)."""
    now = utcnow()
    took = db.session.execute(
        update(RunChunk)
        .where(
            RunChunk.id == chunk_id,
            RunChunk.run_id == run_id,
            RunChunk.status == ChunkStatus.queued,
            _is_job(RunChunk, job_id),
        )
        .values(
            status=ChunkStatus.running, started_at=now, heartbeat_at=now, worker_name=worker_name
        )
    ).rowcount
    if not took:
        db.session.commit()
        return False
    live = db.session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status.in_(LIVE_STATUSES), Run.cancel_requested_at.is_(None))
        .values(
            status=RunStatus.running,
            started_at=func.coalesce(Run.started_at, now),
            heartbeat_at=now,
            worker_name=worker_name,
        )
    ).rowcount
    db.session.commit()
    return True if live else None


def _show_working(run_id: int, stage: str, key: str) -> bool:
    """Show the item being worked on, unless the run should stop before it (then False)."""
    shown = db.session.execute(
        update(Run)
        .where(Run.id == run_id, Run.status == RunStatus.running, Run.cancel_requested_at.is_(None))
        .values(stage=stage, message=f"Working on {key}")
        .execution_options(synchronize_session=False)
    ).rowcount
    db.session.commit()
    return bool(shown)


def _stop_reason(run_id: int) -> str | None:
    """Why the run should stop before its next item, if it should."""
    status, cancel_requested_at = db.session.execute(
        select(Run.status, Run.cancel_requested_at).where(Run.id == run_id)
    ).one()
    db.session.commit()  # end the read so SQLite readers never hold a snapshot across items
    if cancel_requested_at is not None:
        return "cancelled"
    if status != RunStatus.running:
        return status
    return None


# Stage changes reported by items working in threads ((key, stage) pairs).
stage_events: queue.SimpleQueue[tuple[str, str]] = queue.SimpleQueue()
# How often a concurrent run saves its finished items: often enough to watch, rarely enough
# that ten thousand quick items are not ten thousand commits.
SAVE_EVERY_SECONDS = 0.25
# A pool thread takes quick items (a formula computed) a share at a time, a share lasting about
# this long: handing each item over to a thread would cost more than the item. Items that take
# longer (a provider's answer) go one at a time.
SHARE_SECONDS = 0.02
MOST_PER_SHARE = 500
# How often a run looks for a cancel between items it starts.
CHECK_EVERY_SECONDS = 0.05


def report_stage(key: str, stage: str) -> None:
    """Called from an item's work to show what it is doing (searching, fetching …)."""
    stage_events.put((key, stage))


def _items(run: Run, chunk: RunChunk | None) -> list[str]:
    """The unfinished items of the run, or of its chunk."""
    if chunk is None:
        return run.pending_items
    done = set(chunk.done_items)
    return [key for key in chunk.items if key not in done]


def _end(run: Run, kind: RunKind, chunk: RunChunk | None, stopping: str | None) -> None:
    """The run's end once its items are worked through (or a cancel stopped them); a chunk
    ends itself, and the run only if it is the last."""
    if chunk is not None:
        if stopping is None or stopping == "cancelled":
            done = ChunkStatus.done if stopping is None else ChunkStatus.cancelled
            end_chunk(run, kind, chunk.id, done)
    elif stopping == "cancelled":
        finish(run, RunStatus.cancelled, f"Cancelled; {summary(run, kind)}")
    elif stopping is None:
        complete(run, kind)


def work_through(run: Run, kind: RunKind, chunk: RunChunk | None = None) -> None:
    """Process the unfinished items of the run (or of its chunk) in order. Items that may
    depend on earlier ones (a kind that works one at a time and is never split into chunks)
    are each saved before the next starts; other items are saved in batches."""
    keys = _items(run, chunk)
    kind.prepare(run.params, keys)
    if kind.quick_items(run.params):
        work_through_in_turn(run, kind, keys, chunk)
        return
    if kind.concurrency(run.params) > 1 or kind.chunk_size(run.params) is not None:
        work_through_concurrently(run, kind, keys, chunk)
        return
    # Plain values: a commit expires the run, and reading it again would load its item lists.
    run_id, params = run.id, run.params
    chunk_id = chunk.id if chunk is not None else None
    for key in keys:
        if not _show_working(run_id, kind.stage_for(key), key):
            db.session.refresh(run)
            _end(run, kind, chunk, _stop_reason(run_id))
            return
        result, error = _attempt(kind, key, params, run_id)
        if error is not None:
            save_batch(run_id, kind, {}, {key: error}, chunk_id)
        elif result is None:
            save_batch(run_id, kind, {}, {}, chunk_id, [key])
        else:
            save_batch(run_id, kind, {key: result}, {}, chunk_id)
    db.session.refresh(run)
    _end(run, kind, chunk, None)


def _attempt(
    kind: RunKind, key: str, params: dict[str, Any], run_id: int
) -> tuple[Any, str | None]:
    """One item's result with what it wrote committed, or its error with that rolled back."""
    try:
        result = kind.process_item(key, params, run_id)
        if db.session().in_transaction():  # an item that read or wrote nothing: nothing to end
            db.session.commit()
        return result, None
    except ItemError as exc:
        db.session.rollback()
        return None, str(exc)
    except Exception as exc:
        log.exception("run %s item %s failed", run_id, key)
        db.session.rollback()
        return None, f"{type(exc).__name__}: {exc}"


def _in_own_context(
    app, kind: RunKind, keys: list[str], params: dict[str, Any], run_id: int, stop: threading.Event
) -> tuple[list[tuple[str, Any, str | None]], float]:
    """A share of items worked in turn on a pool thread: each one's result or error, and the
    seconds the share took. Once stop is set (the runner saw a cancel) it leaves the rest of
    its items unstarted; after a slow item it asks the database itself, as a cancel may have
    come while the item worked (quick items leave that to the runner's thread)."""
    began = time.monotonic()
    outcomes: list[tuple[str, Any, str | None]] = []
    with app.app_context():
        try:
            for key in keys:
                if stop.is_set():
                    break
                started = time.monotonic()
                outcomes.append((key, *_attempt(kind, key, params, run_id)))
                slow = time.monotonic() - started > CHECK_EVERY_SECONDS
                if slow and len(outcomes) < len(keys) and _stop_reason(run_id) is not None:
                    stop.set()
        finally:
            db.session.remove()
    return outcomes, time.monotonic() - began


def _saved_columns(run_id: int, *columns) -> Run:
    """The run with only the columns a save reads: never its item lists (100,000 keys in a
    large run), which a chunk's save does not touch."""
    query = (
        select(Run)
        .options(load_only(Run.id, Run.kind, Run.results, Run.item_errors, *columns))
        .where(Run.id == run_id)
        .execution_options(populate_existing=True)
    )
    return db.session.scalars(query).one()


def save_batch(
    run_id: int,
    kind: RunKind,
    finished: dict[str, Any],
    errors: dict[str, str],
    chunk_id: int | None = None,
    empty: Collection[str] = (),
) -> None:
    """Add finished items (their results through kind.keep_results), their errors and items
    finished with nothing to keep (empty) to the run, in one transaction of this thread's
    session. What the kind stores elsewhere is written first; the run row's lock is taken
    last, so chunks saving at once wait on each other only for the run row's update.

    A chunk's finished items go on its own row; an unchunked run's on the run's."""
    own_columns = () if chunk_id is not None else (Run.done_items,)
    if finished:
        kind.store_results(_saved_columns(run_id), finished)
    lock_run(run_id)
    run = _saved_columns(run_id, *own_columns)
    if finished:
        kind.keep_results(run, finished)
    if errors:
        run.item_errors = {**run.item_errors, **errors}
    keys = [*finished, *errors, *empty]
    if keys and chunk_id is None:
        run.done_items = [*run.done_items, *keys]
    elif keys:
        chunk = db.session.get(RunChunk, chunk_id, populate_existing=True)
        assert chunk is not None
        chunk.done_items = [*chunk.done_items, *keys]
        chunk.done = len(chunk.done_items)
    values: dict[str, Any] = {"done": Run.done + len(keys), "heartbeat_at": utcnow()}
    latest = None  # the newest stage shows; a quick run reports one a row
    while not stage_events.empty():
        latest = stage_events.get_nowait()
    if latest is not None:
        values |= {"stage": latest[1], "message": f"Working on {latest[0]}"}
    db.session.execute(
        update(Run)
        .where(Run.id == run_id)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    db.session.commit()


class Saver:
    """Saves batches of finished items on a thread and database session of its own, so the
    calls of the next items start while the last ones are saved (a save never holds them up).
    Batches that queue up while one is saved are saved together."""

    def __init__(self, app, run_id: int, kind: RunKind, chunk_id: int | None) -> None:
        self.app, self.run_id, self.kind, self.chunk_id = app, run_id, kind, chunk_id
        self.batches: queue.SimpleQueue[tuple[dict, dict] | None] = queue.SimpleQueue()
        self.error: Exception | None = None
        self._thread = threading.Thread(target=self._save, name=f"save-{run_id}", daemon=True)
        self._thread.start()

    def put(self, finished: dict[str, Any], errors: dict[str, str]) -> None:
        self.batches.put((dict(finished), dict(errors)))

    def close(self) -> None:
        """Wait for every batch to be saved; raise what a save raised."""
        self.batches.put(None)
        self._thread.join()
        if self.error is not None:
            raise self.error

    def _save(self) -> None:
        with self.app.app_context():
            try:
                closing = False
                while not closing:
                    batch = self.batches.get()
                    if batch is None:
                        return
                    finished, errors = batch
                    while not self.batches.empty():
                        more = self.batches.get_nowait()
                        if more is None:
                            closing = True
                            break
                        finished |= more[0]
                        errors |= more[1]
                    if self.error is None:
                        save_batch(self.run_id, self.kind, finished, errors, self.chunk_id)
            except Exception as exc:
                log.exception("saving run %s failed", self.run_id)
                db.session.rollback()
                self.error = exc
                while self.batches.get() is not None:  # let close() return
                    pass
            finally:
                db.session.remove()


def work_through_in_turn(
    run: Run, kind: RunKind, keys: list[str], chunk: RunChunk | None = None
) -> None:
    """Quick items (kind.quick_items) one after another on this thread, saved in batches on
    the Saver's thread while the next ones are worked; a cancel is looked for between items
    every CHECK_EVERY_SECONDS."""
    run_id, params = run.id, run.params  # plain values, as in work_through_concurrently
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    finished: dict[str, Any] = {}
    errors: dict[str, str] = {}
    stopping = _stop_reason(run_id)
    last_save = last_check = time.monotonic()
    saver = Saver(app, run_id, kind, chunk.id if chunk is not None else None)
    try:
        for key in keys:
            now = time.monotonic()
            if now - last_check > CHECK_EVERY_SECONDS:
                stopping, last_check = _stop_reason(run_id), now
            if stopping is not None or saver.error is not None:
                break
            if now - last_save >= SAVE_EVERY_SECONDS and (finished or errors):
                saver.put(finished, errors)
                finished.clear()
                errors.clear()
                last_save = now
            result, error = _attempt(kind, key, params, run_id)
            if error is not None:
                errors[key] = error
            else:
                finished[key] = result
        saver.put(finished, errors)
    finally:
        saver.close()
    db.session.refresh(run)
    _end(run, kind, chunk, stopping)


def work_through_concurrently(
    run: Run, kind: RunKind, keys: list[str], chunk: RunChunk | None = None
) -> None:
    """Up to kind.concurrency() items at once, on pool threads; finished ones are saved in
    batches (on the Saver's thread). A cancel lets the items in flight finish (their results
    are kept) and starts no new one."""
    # Plain values: a commit expires the run, and reading it again would load its item lists.
    run_id, params = run.id, run.params
    limit = kind.concurrency(params)
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    pending = iter(keys)
    share = 1  # items per pool task, from how long the last share's items took
    running: set[Future] = set()
    finished: dict[str, Any] = {}
    errors: dict[str, str] = {}
    stopping = _stop_reason(run_id)
    # Set once a cancel is seen: the pool threads read it, not the database.
    stop = threading.Event()
    last_save = last_check = time.monotonic()
    saver = Saver(app, run_id, kind, chunk.id if chunk is not None else None)
    try:
        with ThreadPoolExecutor(max_workers=limit, thread_name_prefix=f"run-{run_id}") as pool:
            while saver.error is None:
                # Look for a cancel often enough to stop between rows, seldom enough that quick
                # items do not wait on the database (only this thread asks); before a slow item
                # (one a share) starts, always, as a cancel may have just come.
                due = time.monotonic() - last_check > CHECK_EVERY_SECONDS
                if stopping is None and (due or (share == 1 and len(running) < limit)):
                    stopping = _stop_reason(run_id)
                    last_check = time.monotonic()
                if stopping is not None:
                    stop.set()
                while stopping is None and len(running) < limit:
                    taken = list(islice(pending, share))
                    if not taken:
                        break
                    report_stage(taken[0], kind.stage_for(taken[0]))
                    future = pool.submit(_in_own_context, app, kind, taken, params, run_id, stop)
                    running.add(future)
                # Saved every so often: what finished, or else the stage of a slow item.
                news = finished or errors or not stage_events.empty()
                if time.monotonic() - last_save >= SAVE_EVERY_SECONDS and news:
                    saver.put(finished, errors)
                    finished.clear()
                    errors.clear()
                    last_save = time.monotonic()
                if not running:
                    break
                # Awake as often as a cancel is looked for: a share sees it between its items.
                done, _ = wait(running, timeout=CHECK_EVERY_SECONDS, return_when=FIRST_COMPLETED)
                for future in done:
                    running.discard(future)
                    outcomes, seconds = future.result()
                    for key, result, error in outcomes:
                        if error is not None:
                            errors[key] = error
                        else:
                            finished[key] = result
                    fit = int(SHARE_SECONDS * max(len(outcomes), 1) / max(seconds, 1e-6))
                    share = max(1, min(MOST_PER_SHARE, fit))
        saver.put(finished, errors)
    finally:
        saver.close()
    db.session.refresh(run)
    _end(run, kind, chunk, stopping)


def execute_run(run_id: int, kind_path: str, chunk_id: int | None = None) -> str:
    """The RQ job of a run, or of one chunk of it: run in the forked work horse, inside the
    worker's app context."""
    # The horse must not outlive its worker, so a killed worker means a lost run, not a ghost.
    die_with_parent()
    # Connections inherited through fork belong to the parent; open fresh ones.
    db.engine.dispose(close=False)
    settings: Settings = current_app.config["FURROW"]
    job = get_current_job()
    worker_name, job_id = (job.worker_name, job.id) if job else (None, None)
    kind = load_kind(kind_path)()
    if chunk_id is not None:
        return _execute_chunk(run_id, kind, chunk_id, worker_name, job_id, settings)
    if not _claim(run_id, worker_name, job_id):
        return "skipped: the run was not queued any more"
    run = db.session.get(Run, run_id)
    assert run is not None
    with Heartbeat(run_id, settings.heartbeat_seconds):
        try:
            work_through(run, kind)
        except Exception as exc:
            log.exception("run %s failed", run_id)
            db.session.rollback()
            db.session.execute(
                update(Run)
                .where(Run.id == run_id, Run.status == RunStatus.running)
                .values(
                    status=RunStatus.failed,
                    stage="failed",
                    error_code="job_error",
                    error_message=f"{type(exc).__name__}: {exc}",
                    finished_at=utcnow(),
                )
            )
            db.session.commit()
            raise
    return f"run {run_id} finished"


def _execute_chunk(
    run_id: int,
    kind: RunKind,
    chunk_id: int,
    worker_name: str | None,
    job_id: str | None,
    settings: Settings,
) -> str:
    claimed = _claim_chunk(chunk_id, run_id, worker_name, job_id)
    if claimed is False:
        return "skipped: the chunk was not queued any more"
    run = db.session.get(Run, run_id)
    assert run is not None
    if claimed is None:
        end_chunk(run, kind, chunk_id, ChunkStatus.cancelled)
        return "skipped: the run was cancelled or ended"
    chunk = db.session.get(RunChunk, chunk_id)
    assert chunk is not None
    with Heartbeat(run_id, settings.heartbeat_seconds, chunk_id):
        try:
            work_through(run, kind, chunk)
        except Exception as exc:
            log.exception("run %s chunk %s failed", run_id, chunk_id)
            db.session.rollback()
            reason = f"A share of its items failed: {type(exc).__name__}: {exc}."
            end_chunk(run, kind, chunk_id, ChunkStatus.lost, "job_error", reason)
            raise
    return f"run {run_id} chunk {chunk_id} finished"
