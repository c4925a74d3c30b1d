"""A Run: one background job, its progress, per-item errors and results, and what it cost."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, ForeignKey, Integer, Numeric, String, Text, func, select
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db
from webapp.pagination import Page, paginate_list

# A list in a run's params longer than this is left out of the run's JSON (and counted) even
# when its kind does not name it among its item params: a poll stays small whatever the run.
LONG_PARAM = 100


def brief_params(
    params: dict[str, Any], item_params: tuple[str, ...] = ()
) -> tuple[dict[str, Any], dict[str, int]]:
    """A run's params as its JSON shows them, and the lengths of those left out: the lists
    (or mappings) of every item the run works through, named by its kind, and any other long
    list. The items themselves are paged through GET /api/v1/runs/<id>/items."""
    kept, counted = {}, {}
    for name, value in (params or {}).items():
        long_list = isinstance(value, list) and len(value) > LONG_PARAM
        if (name in item_params and isinstance(value, (list, dict))) or long_list:
            counted[name] = len(value)
        else:
            kept[name] = value
    return kept, counted


def error_of(code: str | None, message: str | None) -> dict[str, str | None] | None:
    """A run's or a chunk's error as the API shows it, when it has one."""
    return {"code": code, "message": message} if code else None


class RunStatus(StrEnum):
    queued = "queued"
    running = "running"
    succeeded = "succeeded"  # every item done
    completed_with_errors = "completed_with_errors"  # some items failed, the rest done
    # Every item done, none failed, and none found anything (RunKind.nothing_found says why):
    # not green, for a run that proposed nothing did not do what it was asked.
    nothing_found = "nothing_found"
    failed = "failed"  # no item done, or the run itself failed
    cancelled = "cancelled"


LIVE_STATUSES = (RunStatus.queued, RunStatus.running)
# A resumed run retries its failed items and works through the ones never started.
RESUMABLE_STATUSES = (RunStatus.completed_with_errors, RunStatus.failed, RunStatus.cancelled)


class Run(db.Model):
    __tablename__ = "runs"
    # A run id is never handed out twice, even after deletions: links and jobs stay unambiguous.
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(64), index=True)
    title: Mapped[str] = mapped_column(String(200))
    target_type: Mapped[str | None] = mapped_column(String(64))
    target_id: Mapped[int | None] = mapped_column(Integer)
    mode: Mapped[str | None] = mapped_column(String(32))
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    requested_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("users.id", ondelete="SET NULL"), index=True
    )
    provider: Mapped[str | None] = mapped_column(String(32))
    model: Mapped[str | None] = mapped_column(String(100))

    status: Mapped[str] = mapped_column(String(32), default=RunStatus.queued, index=True)
    total: Mapped[int] = mapped_column(default=0)
    done: Mapped[int] = mapped_column(default=0)
    stage: Mapped[str] = mapped_column(String(64), default="queued")
    message: Mapped[str] = mapped_column(Text, default="")
    # Item keys in order, the ones finished, and errors/results by key: what resume needs.
    items: Mapped[list[str]] = mapped_column(JSON, default=list)
    done_items: Mapped[list[str]] = mapped_column(JSON, default=list)
    item_errors: Mapped[dict[str, str]] = mapped_column(JSON, default=dict)
    results: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)

    input_tokens: Mapped[int] = mapped_column(default=0)
    output_tokens: Mapped[int] = mapped_column(default=0)
    web_searches: Mapped[int] = mapped_column(default=0, server_default="0")
    # The provider's 429 answers, each waited out as its Retry-After said.
    rate_limited: Mapped[int] = mapped_column(default=0, server_default="0")
    cost_usd: Mapped[Decimal] = mapped_column(Numeric(12, 6), default=Decimal(0))

    rq_job_id: Mapped[str | None] = mapped_column(String(64))
    attempt: Mapped[int] = mapped_column(default=1)
    worker_name: Mapped[str | None] = mapped_column(String(128))
    cancel_requested_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    requested_by: Mapped[User | None] = relationship()
    chunks: Mapped[list[RunChunk]] = relationship(
        back_populates="run", cascade="all, delete-orphan", passive_deletes=True
    )

    @property
    def is_live(self) -> bool:
        return self.status in LIVE_STATUSES

    @property
    def can_resume(self) -> bool:
        return self.status in RESUMABLE_STATUSES and len(self.pending_items) > 0

    def done_keys(self) -> set[str]:
        """The items finished (failed ones included): the run's, and its chunks' not yet folded
        into the run (a chunk keeps its own while the run works)."""
        done = set(self.done_items)
        query = select(RunChunk.done_items).where(RunChunk.run_id == self.id)
        for keys in db.session.scalars(query):
            done.update(keys)
        return done

    @property
    def pending_items(self) -> list[str]:
        finished = self.done_keys() - set(self.item_errors)
        return [key for key in self.items if key not in finished]

    def chunk_summary(self) -> dict[str, Any] | None:
        """A run split into chunks, compactly (it may have 200): how many chunks are in each
        status, and each chunk not done with its items, done count, worker and why it ended
        (a lost chunk's worker died or its job vanished). None for a run of one job."""
        by_status = dict(
            db.session.execute(
                select(RunChunk.status, func.count())
                .where(RunChunk.run_id == self.id)
                .group_by(RunChunk.status)
            ).all()
        )
        if not by_status:
            return None
        not_done = db.session.scalars(
            select(RunChunk)
            .where(RunChunk.run_id == self.id, RunChunk.status != ChunkStatus.done)
            .order_by(RunChunk.position)
        )
        return {
            "total": sum(by_status.values()),
            "by_status": {
                status: by_status[status] for status in ChunkStatus if status in by_status
            },
            "not_done": [chunk.to_dict() for chunk in not_done],
        }

    @property
    def duration(self) -> str | None:
        """How long the run took, or has taken so far: "2 min 5 s"."""
        if self.started_at is None:
            return None
        seconds = round(((self.finished_at or utcnow()) - self.started_at).total_seconds())
        hours, rest = divmod(max(seconds, 0), 3600)
        minutes, seconds = divmod(rest, 60)
        parts = [(hours, "h"), (minutes, "min"), (seconds, "s")]
        shown = [f"{n} {unit}" for n, unit in parts if n] or ["0 s"]
        return " ".join(shown[:2])

    @property
    def percent(self) -> int:
        if self.total <= 0:
            return 100 if self.status == RunStatus.succeeded else 0
        return min(100, round(100 * self.done / self.total))

    def item_counts(self) -> dict[str, Any]:
        """How many items the run has, has done and failed, without listing them; a kind
        whose results are counts (a table run's rows by status) adds them as by_status."""
        from webapp.jobs.kinds import RUN_KINDS

        kind = RUN_KINDS[self.kind]() if self.kind in RUN_KINDS else None
        counts: dict[str, Any] = {
            "total": self.total,
            "done": self.done,
            "with_errors": kind.failed_items(self) if kind else len(self.item_errors),
        }
        by_status = kind.result_counts(self) if kind else None
        if by_status is not None:
            counts["by_status"] = by_status
        return counts

    def to_dict(self) -> dict[str, Any]:
        """The run as the API shows it: what it is, its progress, counts of its items (not
        the items: GET /api/v1/runs/<id>/items pages through them) and what it cost. Small
        whatever the run's size, for it is polled while the run works."""
        from webapp.jobs.kinds import RUN_KINDS

        def iso(value: datetime | None) -> str | None:
            return value.isoformat().replace("+00:00", "Z") if value else None

        kind = RUN_KINDS.get(self.kind)
        params, counted = brief_params(self.params, kind.item_params if kind else ())
        return {
            "id": self.id,
            "kind": self.kind,
            "title": self.title,
            "target": {"type": self.target_type, "id": self.target_id}
            if self.target_type
            else None,
            "mode": self.mode,
            "params": params,
            "params_counts": counted,
            "requested_by": self.requested_by.email if self.requested_by else None,
            "provider": self.provider,
            "model": self.model,
            "status": self.status,
            "progress": {
                "done": self.done,
                "total": self.total,
                "percent": self.percent,
                "stage": self.stage,
                "message": self.message,
            },
            "items": self.item_counts() | {"url": self.items_url},
            "error": error_of(self.error_code, self.error_message),
            "usage": {
                "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens,
                "web_searches": self.web_searches,
                "rate_limited": self.rate_limited,
                "cost_usd": str(self.cost_usd),
            },
            "chunks": self.chunk_summary(),
            "attempt": self.attempt,
            "can_resume": self.can_resume,
            "created_at": iso(self.created_at),
            "started_at": iso(self.started_at),
            "finished_at": iso(self.finished_at),
            "cancel_requested_at": iso(self.cancel_requested_at),
        }

    def kept_results(self, keys: list[str]) -> dict[str, Any]:
        """These items' results as the run keeps them, by key."""
        return {key: self.results[key] for key in keys if key in self.results}

    @property
    def items_url(self) -> str:
        """Where the run's items are paged (the API's prefix is fixed: no request needed)."""
        return f"/api/v1/runs/{self.id}/items"

    def item_page(self, number: int, per_page: int) -> tuple[Page, list[dict[str, Any]]]:
        """One page of the run's items in order, each with its key, where it stands (pending,
        done, failed), its result and its error."""
        from webapp.jobs.kinds import RUN_KINDS

        page = paginate_list(self.items, number, per_page)
        kind = RUN_KINDS.get(self.kind)
        # A kind no longer registered: its results as the run kept them.
        results = kind().item_results(self, page.items) if kind else self.kept_results(page.items)
        done = self.done_keys() if page.items else set()
        listed = []
        for key in page.items:
            error = self.item_errors.get(key)
            status = "failed" if error is not None else "done" if key in done else "pending"
            result = results.get(key)
            listed.append({"key": key, "status": status, "result": result, "error": error})
        return page, listed


class ChunkStatus(StrEnum):
    queued = "queued"
    running = "running"
    done = "done"
    cancelled = "cancelled"
    lost = "lost"  # its worker died or its job vanished: its unfinished items resume


OPEN_CHUNK_STATUSES = (ChunkStatus.queued, ChunkStatus.running)


class RunChunk(db.Model):
    """A share of a large run's items with its own RQ job, worker and heartbeat, so every
    worker takes part in one run. The run row keeps results, errors and the count done for all
    chunks; the chunk keeps the items it finished (folded into the run's when the run ends), so
    a save never rewrites the list of every item the run finished."""

    __tablename__ = "run_chunks"

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"), index=True)
    position: Mapped[int] = mapped_column(default=0)
    items: Mapped[list[str]] = mapped_column(JSON, default=list)
    done: Mapped[int] = mapped_column(default=0, server_default="0")
    done_items: Mapped[list[str]] = mapped_column(JSON, default=list, server_default="[]")
    status: Mapped[str] = mapped_column(String(32), default=ChunkStatus.queued)
    rq_job_id: Mapped[str | None] = mapped_column(String(64))
    worker_name: Mapped[str | None] = mapped_column(String(128))
    error_code: Mapped[str | None] = mapped_column(String(64))
    error_message: Mapped[str | None] = mapped_column(Text)
    queued_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    heartbeat_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)

    run: Mapped[Run] = relationship(back_populates="chunks")

    def to_dict(self) -> dict[str, Any]:
        return {
            "position": self.position + 1,
            "items": len(self.items),
            "done": self.done,
            "status": self.status,
            "worker": self.worker_name,
            "error": error_of(self.error_code, self.error_message),
        }
