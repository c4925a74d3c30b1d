"""Filtering and paging the list of runs, shared by the page, its CSV export and the API."""

from __future__ import annotations

from dataclasses import dataclass

from flask import abort
from flask_login import current_user
from sqlalchemy import Select, select
from sqlalchemy.orm import selectinload

from webapp.extensions import db
from webapp.jobs.kinds import hidden_kinds
from webapp.jobs.models import Run, RunStatus
from webapp.pagination import Page, paginate

PER_PAGE = 25
# ?sort= keys; with none given the newest run comes first.
SORTS = {
    "id": Run.id,
    "title": Run.title,
    "status": Run.status,
    "queued": Run.queued_at,
    "finished": Run.finished_at,
}


@dataclass(frozen=True)
class RunFilters:
    status: str | None = None
    kind: str | None = None
    mine_user_id: int | None = None
    sort: str = "id"
    descending: bool = True
    hidden: tuple[str, ...] = ()  # kinds the person may not see (RunKind.seen_by)

    @classmethod
    def from_args(cls, args, user) -> RunFilters:
        status = args.get("status") or None
        if status not in {s.value for s in RunStatus}:
            status = None
        sort = args.get("sort", "")
        return cls(
            status=status,
            kind=(args.get("kind") or None),
            mine_user_id=user.id if args.get("mine") in ("1", "true", "on") else None,
            sort=sort if sort in SORTS else "id",
            descending=args.get("dir") == "desc" if sort in SORTS else True,
            hidden=tuple(hidden_kinds(user.can)),
        )

    def as_args(self) -> dict[str, str]:
        args = {
            "status": self.status,
            "kind": self.kind,
            "mine": "1" if self.mine_user_id else None,
        }
        if (self.sort, self.descending) != ("id", True):
            args.update(sort=self.sort, dir="desc" if self.descending else None)
        return {name: value for name, value in args.items() if value}

    def query(self) -> Select[tuple[Run]]:
        column = SORTS[self.sort]
        query = select(Run).options(selectinload(Run.requested_by))
        # Empty last whichever way (a run not finished yet has no finish time), then newest.
        query = query.order_by(
            column.is_(None), column.desc() if self.descending else column, Run.id.desc()
        )
        if self.status:
            query = query.where(Run.status == self.status)
        if self.kind:
            query = query.where(Run.kind == self.kind)
        if self.mine_user_id:
            query = query.where(Run.requested_by_id == self.mine_user_id)
        if self.hidden:
            query = query.where(Run.kind.not_in(self.hidden))
        return query


def page_of_runs(filters: RunFilters, number: int, per_page: int = PER_PAGE) -> Page:
    return paginate(filters.query(), number, per_page)


def kinds_in_use(hidden: tuple[str, ...] = ()) -> list[str]:
    query = select(Run.kind).distinct().order_by(Run.kind)
    return [kind for kind in db.session.scalars(query) if kind not in hidden]


def run_or_404(run_id: int, *options) -> Run:
    """The run, if it exists and its kind is one this person may see (else, as for no run);
    options as to Session.get (a poll defers the run's results, read only when wanted)."""
    run = db.session.get(Run, run_id, options=options)
    if run is None or run.kind in hidden_kinds(current_user.can):
        abort(404, description=f"There is no run #{run_id}.")
    return run
