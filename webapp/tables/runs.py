"""The table enrichment run: a column filled for many rows, worked on concurrently by a strategy
(enrichment.py does one row), each row's research-log entry and suggestion stored, what it
costs, and the proposal that results. Nothing is applied by the run itself."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from flask import current_app, url_for
from sqlalchemy import func, select

from webapp.ai import Usage
from webapp.ai.client import LOCAL_PRICE, StructuredClient
from webapp.auth.models import User
from webapp.database import among, bulk_insert
from webapp.extensions import db
from webapp.jobs.kinds import ItemOutcome, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage, report_stage
from webapp.library.search import sync_reference_passages
from webapp.pagination import Page
from webapp.problems import Invalid
from webapp.review.looks import RowLook
from webapp.review.models import Suggestion, SuggestionStatus
from webapp.review.service import store_suggestions, suggestion_row
from webapp.review.vocabulary import Confidence, Evidence, Issue, Severity, SuggestedValue
from webapp.tables.enrichment import Target, work_on_row
from webapp.tables.models import ROW_TARGET, DataTable, ResearchLogEntry, TableColumn, TableRow
from webapp.tables.proposals import (
    latest_log,
    row_looks,
    status_counts,
    unproposed_counts,
    unproposed_page,
)
from webapp.tables.strategies import get_strategy
from webapp.tables.strategies.base import (
    StrategyError,
    template_fields,
)
from webapp.tables.target import naming_columns, row_label
from webapp.tables.tools import tools_for

# The failed rows a run page lists; the review page pages through all of them.
FAILED_ROWS_SHOWN = 100


@dataclass
class RowsSnapshot:
    """The run's rows as they were when it started, loaded once for all threads."""

    target: Target
    columns: list[tuple[str, str, str]]  # key, name, type
    rows: dict[int, dict[str, Any]] = field(default_factory=dict)  # id -> cells
    positions: dict[int, int] = field(default_factory=dict)

    def by_name(self, row_id: int) -> dict[str, Any]:
        cells = self.rows.get(row_id, {})
        return {name: cells.get(key) for key, name, _type in self.columns}

    @cached_property
    def naming(self) -> list[str]:
        return naming_columns(self.columns, self.target.key)

    def label(self, row_id: int) -> str:
        return row_label(self.rows.get(row_id, {}), self.naming, row_id)


@register_kind
class TableEnrichment(RunKind):
    name = "table_enrichment"
    title = "Table enrichment"
    target_kind = ROW_TARGET
    suggestion_noun = "row(s)"
    reconfirm_where = "on its row"
    item_params = ("row_ids",)

    def __init__(self) -> None:
        self._snapshot: RowsSnapshot | None = None
        self._client = None
        self._lock = threading.Lock()

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(row_id) for row_id in params["row_ids"]]

    def concurrency(self, params: dict[str, Any]) -> int:
        return get_strategy(params["strategy"]).concurrency(params["params"])

    def quick_items(self, params: dict[str, Any]) -> bool:
        return get_strategy(params["strategy"]).quick(params["params"])

    def prepare(self, params: dict[str, Any], keys: list[str]) -> None:
        """The rows of these items only (a chunk's share, not the run's 100,000)."""
        with self._lock:
            self._snapshot = load_snapshot(params, [int(key) for key in keys])

    def snapshot(self, params: dict[str, Any]) -> RowsSnapshot:
        with self._lock:
            if self._snapshot is None:
                self._snapshot = load_snapshot(params, params["row_ids"])
            return self._snapshot

    def tools(self, provider: str):
        """Tools for one row; the rows of a run share one SDK client (and its connections)."""
        settings = current_app.config["FURROW"]
        if provider != "openai":
            return tools_for(provider, settings)
        with self._lock:
            if self._client is None:
                self._client = StructuredClient(settings).client
        return tools_for(provider, settings, self._client)

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        snapshot = self.snapshot(params)
        row_id = int(key)
        if row_id not in snapshot.rows:
            entry = {"status": "skipped", "error": "Skipped: the row was deleted.", "steps": []}
        else:
            tools = self.tools(params["provider"])
            entry = work_on_row(snapshot.by_name(row_id), params, snapshot.target, tools, key)
            entry["usage"] = vars(tools.usage)
        report_stage(key, "row_skipped" if entry["status"] == "skipped" else "row_done")
        current = snapshot.rows.get(row_id, {}).get(snapshot.target.key)
        return entry | {
            "row_id": row_id,
            "label": snapshot.label(row_id),
            "current": current,
            "position": snapshot.positions.get(row_id, 0),
        }

    review_detail = ("Trace", "tables/_trace.html")
    live_template = "tables/_live.html"
    editable = True

    def back_link(self, run: Run) -> tuple[str, str] | None:
        table = db.session.get(DataTable, run.params["table_id"])
        if table is None:
            return None
        return f"Back to {table.name}", url_for("tables.show", table_id=table.id)

    def review_summary(self, run: Run) -> str:
        return reasoning(run, status_counts(run).get("found", 0))

    def review_looks(self, run: Run, suggestions: list[Suggestion]) -> dict[int, RowLook]:
        return row_looks(run, suggestions)

    def unproposed(self, run: Run, number: int, per_page: int, status: str | None = None) -> Page:
        return unproposed_page(run, number, per_page, status)

    def unproposed_counts(self, run: Run) -> dict[str, int]:
        return unproposed_counts(run)

    def live_context(self, run: Run) -> dict[str, Any]:
        return {
            "log": latest_log(run),
            "finished": sum(status_counts(run).values()),
            "reasoning": run.params["reasoning"],
        }

    def item_names(self, run: Run) -> dict[str, str]:
        """Rows by label. A table run keeps its rows' results in the research log, so the run
        page lists only the rows with an item error among its items: those are named."""
        labels = row_labels(run, [int(key) for key in run.item_errors])
        return {str(row_id): label for row_id, label in labels.items()}

    def outcomes(self, run: Run) -> list[ItemOutcome]:
        """The rows with an item error, then those whose strategy failed (the first
        FAILED_ROWS_SHOWN, in table order), by label; every row is on the review page."""
        failed = (
            select(ResearchLogEntry.row_id, ResearchLogEntry.entry["error"].as_string())
            .where(ResearchLogEntry.run_id == run.id, ResearchLogEntry.status == "error")
            .order_by(ResearchLogEntry.position, ResearchLogEntry.row_id)
        )
        rows = db.session.execute(failed.limit(FAILED_ROWS_SHOWN)).all()
        labels = row_labels(run, [row_id for row_id, _error in rows])
        shown = super().outcomes(run) + [
            ItemOutcome(labels.get(row_id, f"Row {row_id}"), (), error) for row_id, error in rows
        ]
        if len(rows) == FAILED_ROWS_SHOWN:
            total = db.session.scalar(select(func.count()).select_from(failed.subquery())) or 0
            if total > len(rows):
                more = total - len(rows)
                shown.append(ItemOutcome(f"{more:,} more rows", (), "Failed too: see the review."))
        return shown

    def proposal(self, run: Run) -> dict[str, Any]:
        return proposal(run)

    def failed_items(self, run: Run) -> int:
        """Rows whose strategy failed are kept with their trace, and count as failed."""
        return len(run.item_errors) + int((run.results or {}).get("error", 0))

    def result_counts(self, run: Run) -> dict[str, int]:
        """The rows done by status (found, not_found, skipped, error): what the run keeps."""
        counts = (run.results or {}).items()
        return {status: n for status, n in counts if isinstance(n, int) and n}

    def item_results(self, run: Run, keys: list[str]) -> dict[str, Any]:
        """These rows' research-log entries (a row run again, its latest), without their
        trace of steps: the review page shows it."""
        found: dict[str, Any] = {}
        ids = [int(key) for key in keys if key.isdigit()]
        query = (
            select(ResearchLogEntry.row_id, ResearchLogEntry.entry)
            .where(
                ResearchLogEntry.run_id == run.id, among(db.session, ResearchLogEntry.row_id, ids)
            )
            .order_by(ResearchLogEntry.id)
        )
        for row_id, entry in db.session.execute(query):
            found[str(row_id)] = {k: v for k, v in entry.items() if k != "steps"}
        return found

    def store_results(self, run: Run, results: dict[str, Any]) -> None:
        """The research log and the suggestions of a batch of rows, in two inserts."""
        # Loaded before the first row: a save never reads the run's params (every row id).
        target = (self._snapshot or self.snapshot(run.params)).target
        log_rows, suggestions = [], []
        for entry in results.values():
            log_rows.append(
                {
                    "run_id": run.id,
                    "row_id": entry["row_id"],
                    "position": entry["position"],
                    "status": entry["status"],
                    "entry": entry,
                }
            )
            if entry["status"] == "found":
                suggestions.append(proposed_row(run.id, target, entry))
        bulk_insert(db.session, ResearchLogEntry.__table__, log_rows)  # COPY on PostgreSQL
        store_suggestions(suggestions)

    def keep_results(self, run: Run, results: dict[str, Any]) -> None:
        """The batch's rows counted by status on the run, and what their calls used."""
        usage = Usage()
        counts = dict(run.results or {})
        for entry in results.values():
            counts[entry["status"]] = counts.get(entry["status"], 0) + 1
            for name, value in (entry.get("usage") or {}).items():
                setattr(usage, name, getattr(usage, name) + value)
        run.results = counts
        add_usage(run.id, usage, commit=False)


def proposed_row(run_id: int, target: Target, entry: Mapping[str, Any]) -> dict[str, Any]:
    """A found row's value as the core's suggestion row; a value the column cannot hold is
    stored with its error (blocked) so the reviewer sees it and can edit it."""
    issues = []
    if not entry.get("valid", True):
        message = entry.get("error") or "Not a valid value for the column."
        code = entry.get("error_code") or "value_malformed"
        issues.append(Issue(code, Severity.error, target.key, message))
    if entry.get("warning"):
        issues.append(Issue("above_crop_cap", Severity.warning, target.key, entry["warning"]))
    level = entry["confidence"]
    suggested = SuggestedValue(
        entry["value"], target.unit, None if level == "none" else Confidence(level)
    )
    evidence = [
        Evidence(s.get("url", ""), s.get("title") or s.get("url", ""), s.get("snippet", ""))
        for s in entry.get("sources") or []
    ]
    return suggestion_row(
        run_id,
        ROW_TARGET,
        entry["row_id"],
        target.key,
        entry["current"],
        suggested,
        evidence,
        issues,
    )


def load_snapshot(params: Mapping[str, Any], row_ids: Sequence[int]) -> RowsSnapshot:
    """The table's columns and these rows' cells, as they are now."""
    table = db.session.get(DataTable, params["table_id"])
    if table is None:
        raise StrategyError("The table no longer exists.")
    column = db.session.get(TableColumn, params["column_id"])
    if column is None or column.table_id != table.id:
        raise StrategyError("The column to fill no longer exists.")
    snapshot = RowsSnapshot(Target.of(column), [(c.key, c.name, c.type) for c in table.columns])
    picked = among(db.session, TableRow.id, [int(i) for i in row_ids])
    query = select(TableRow.id, TableRow.cells, TableRow.position).where(
        TableRow.table_id == table.id, picked
    )
    for row_id, cells, position in db.session.execute(query):
        snapshot.rows[row_id] = cells or {}
        snapshot.positions[row_id] = position
    settings = current_app.config["FURROW"]
    if params["provider"] == "offline" or settings.openai_api == "chat":
        # The rows search the library: bring its reference passages up to date once here, so
        # rows searching at once never race to rewrite them.
        sync_reference_passages()
    db.session.commit()
    return snapshot


class EnrichInvalid(Invalid):
    """An enrich request that cannot start; the message says why."""

    code = "invalid_enrichment"


def start_enrichment(
    table: DataTable,
    column_name: str,
    strategy_name: str,
    params: Mapping[str, Any],
    row_ids: Iterable[int] | None,
    user: User,
) -> Run:
    """Check the request and queue one run of at most FURROW_MAX_ROWS_PER_RUN rows.
    EnrichInvalid, RunInProgress (the column is being filled already), ProviderUnavailable and
    QueueUnavailable say why not."""
    column = table.column_named(column_name or "")
    if column is None:
        raise EnrichInvalid(f"There is no column called {column_name!r}.")
    try:
        strategy = get_strategy(strategy_name)
        strategy.validate_params(params)
    except StrategyError as exc:
        raise EnrichInvalid(str(exc)) from exc
    for name in template_fields(str(params.get(strategy.template_param, ""))):
        if table.column_named(name) is None:
            raise EnrichInvalid(f"The template names {name!r}, which is not a column.")
    existing = select(TableRow.id).where(TableRow.table_id == table.id)
    if row_ids is not None:
        wanted = {int(i) for i in row_ids}
        existing = existing.where(TableRow.id.in_(wanted))
    ids = list(db.session.scalars(existing.order_by(TableRow.position, TableRow.id)))
    if not ids:
        raise EnrichInvalid("Choose at least one row of this table.")
    cap = current_app.config["FURROW"].max_rows_per_run
    if len(ids) > cap:
        raise EnrichInvalid(
            f"At most {cap:,} rows per run (FURROW_MAX_ROWS_PER_RUN); these are {len(ids):,}: "
            "split them over several runs.",
            code="too_many_rows",
        )
    # Checked last: a request that cannot run is refused for what is wrong with it.
    for live in live_runs(TableEnrichment):
        if live.params.get("column_id") == column.id:
            raise RunInProgress(live, f"The column ‘{column.name}’ of {table.name}")
    provider = current_app.config["FURROW"].provider
    run_params = {
        "table_id": table.id,
        "column_id": column.id,
        "strategy": strategy.name,
        "params": dict(params),
        "row_ids": ids,
        "provider": provider,
        "reasoning": strategy.describe(params),
    }
    rows = f"{len(ids):,} row" + ("" if len(ids) == 1 else "s")
    return enqueue_run(
        TableEnrichment,
        user,
        run_params,
        target=("table", table.id),
        mode=strategy.name,
        provider=provider,
        model=current_app.config["FURROW"].openai_model if provider == "openai" else None,
        title=f"Fill ‘{column.name}’ in {table.name} ({rows}) · {strategy.display_name}",
    )


def cost_estimate(run: Run) -> dict[str, Any] | None:
    """What a run whose rows call the LLM provider will likely cost, from a typical row's
    usage at the model's price; None for a run that calls no model."""
    if run.provider != "openai":
        return None
    usage = get_strategy(run.params["strategy"]).typical_usage(run.params["params"])
    if usage is None:
        return None
    structured = StructuredClient(current_app.config["FURROW"])
    rows = len(run.items)
    known = bool(structured.price())
    per_row = structured.cost(usage)
    return {
        "rows": rows,
        "model": structured.model,
        "usd": round(rows * per_row, 2) if known else None,
        "per_row_usd": per_row if known else None,
        "typical_row": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "web_searches": usage.web_searches,
        },
        "basis": cost_basis(structured, known),
    }


def cost_basis(structured: StructuredClient, known: bool) -> str:
    if structured.is_local and structured.price() == LOCAL_PRICE:
        return "A local server: no cost."
    if known:
        return "A typical row's usage at the model's price; the run records what it really used."
    return f"No price is known for {structured.model}: set FURROW_OPENAI_PRICES."


def research_log(run: Run) -> list[dict[str, Any]]:
    query = (
        select(ResearchLogEntry.entry)
        .where(ResearchLogEntry.run_id == run.id)
        .order_by(ResearchLogEntry.position, ResearchLogEntry.row_id)
    )
    return list(db.session.scalars(query))


def row_labels(run: Run, row_ids: Collection[int]) -> dict[int, str]:
    """What people call these rows: the label the research log shows, or for a row the run did
    not log, the label its cells give now."""
    label = ResearchLogEntry.entry["label"].as_string()
    query = select(ResearchLogEntry.row_id, label).where(
        ResearchLogEntry.run_id == run.id, among(db.session, ResearchLogEntry.row_id, row_ids)
    )
    labels: dict[int, str] = dict(db.session.execute(query).all())
    missing = [i for i in row_ids if i not in labels]
    table = db.session.get(DataTable, run.params["table_id"]) if missing else None
    if table is not None:
        columns = [(c.key, c.name, c.type) for c in table.columns]
        naming = naming_columns(columns, str(run.params["column_id"]))
        query = select(TableRow.id, TableRow.cells).where(
            TableRow.table_id == table.id, among(db.session, TableRow.id, missing)
        )
        for row_id, cells in db.session.execute(query):
            labels[row_id] = row_label(cells or {}, naming, row_id)
    return labels


def row_suggestions(run: Run) -> dict[int, Suggestion]:
    """The run's suggestion for each row it proposed something for."""
    query = select(Suggestion).where(
        Suggestion.run_id == run.id, Suggestion.target_type == ROW_TARGET
    )
    return {s.target_id: s for s in db.session.scalars(query)}


def reasoning(run: Run, found: int) -> str:
    """ "Quick Lookup: What year was {Company} founded? — found 8 of 10 rows"."""
    return f"{run.params['reasoning']} — found {found:,} of {len(run.items):,} rows"


def proposal(run: Run) -> dict[str, Any]:
    """The seed's data proposal: reasoning, operations (found, valid rows still open) and the
    research log."""
    log = research_log(run)
    column = db.session.get(TableColumn, run.params["column_id"])
    name = column.name if column else "?"
    operations = [
        {"action": "update", "row_id": s.target_id, "changes": {name: s.suggested_value}}
        for s in sorted(row_suggestions(run).values(), key=lambda s: s.target_id)
        if s.status in (SuggestionStatus.pending, SuggestionStatus.stale)
    ]
    return {
        "reasoning": reasoning(run, sum(1 for e in log if e["status"] == "found")),
        "operations": operations,
        "research_log": log,
    }
