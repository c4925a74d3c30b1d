"""Filling a column for many rows (seed 002's orchestrator): a run whose rows are worked on
concurrently by a strategy, each coerced to the column's type and logged with its trace; the
proposal that results; and applying reviewed rows (audited, undoable). Nothing is applied by
the run itself."""

from __future__ import annotations

import threading
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from flask import current_app, url_for
from sqlalchemy import bindparam, func, insert, select, update

from webapp.ai import Usage
from webapp.ai.client import StructuredClient
from webapp.auth.models import User
from webapp.database import among, utcnow
from webapp.extensions import db
from webapp.ids import record_id
from webapp.jobs.kinds import ItemOutcome, RunKind, register_kind
from webapp.jobs.models import Run
from webapp.jobs.queue import RunInProgress, enqueue_run, live_runs
from webapp.jobs.runner import add_usage, report_stage
from webapp.library.search import sync_reference_passages
from webapp.problems import Invalid
from webapp.review import service as review
from webapp.review.models import Suggestion, SuggestionStatus, jsonable
from webapp.review.service import store_suggestions, suggestion_row
from webapp.review.targets import Changed, ReviewTarget, WriteRefused, register_target
from webapp.review.vocabulary import Confidence, Evidence, Issue, Severity, SuggestedValue
from webapp.tables.cells import CellInvalid, parse_cell
from webapp.tables.coerce import coerce_value
from webapp.tables.models import ROW_TARGET, DataTable, ResearchLogEntry, TableColumn, TableRow
from webapp.tables.plausibility import above_crop_cap
from webapp.tables.sort_keys import write_keys
from webapp.tables.strategies import get_strategy
from webapp.tables.strategies.base import (
    EmptyReference,
    RowStep,
    StrategyError,
    template_fields,
)
from webapp.tables.tools import tools_for

CONFIDENCE_ORDER = ("none", "low", "medium", "high")
# The failed rows a run page lists; the review page pages through all of them.
FAILED_ROWS_SHOWN = 100
STEP_STAGES = {"search": "searching", "fetch": "fetching", "compute": "computing"}


@dataclass(frozen=True)
class Target:
    """The column being filled, as plain data (worker threads share no ORM objects)."""

    id: int
    key: str
    name: str
    type: str
    unit: str | None
    options: tuple[str, ...]

    @classmethod
    def of(cls, column: TableColumn) -> Target:
        return cls(
            column.id,
            column.key,
            column.name,
            column.type,
            column.unit,
            tuple(column.options or ()),
        )


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

    def label(self, row_id: int) -> str:
        return row_label(self.rows.get(row_id, {}), self.columns, self.target.key, row_id)


# A number column whose name says it is a year names its row, as a text column does.
YEAR_NAMES = ("year", "jahr", "année", "annee", "año", "年")
KEY_PARTS = 3


def _names_the_row(name: str, column_type: str) -> bool:
    return column_type in ("text", "select") or (
        column_type == "number" and any(word in name.casefold() for word in YEAR_NAMES)
    )


def row_label(
    cells: Mapping[str, Any], columns: Iterable[tuple[str, str, str]], target_key: str, row_id: int
) -> str:
    """What people call a row: its first few filled text, select and year columns (key, name,
    type) other than the one being filled — "Wheat · Kenya · 2014", not twenty rows of
    "Wheat"."""
    parts = []
    for key, name, column_type in columns:
        value = cells.get(key)
        if value in (None, "") or key == target_key or not _names_the_row(name, column_type):
            continue
        parts.append(f"{value:g}" if isinstance(value, int | float) else str(value))
        if len(parts) == KEY_PARTS:
            break
    return " · ".join(parts)[:120] if parts else f"Row {row_id}"


def _weaker(confidence: str, cap: str) -> str:
    return min(confidence, cap, key=CONFIDENCE_ORDER.index)


def _sources(steps: Sequence[RowStep]) -> list[dict[str, Any]]:
    """The links a trace cites, for the review's evidence."""
    links: dict[str, dict[str, Any]] = {}
    for step in steps:
        for source in step.data.get("sources", []):
            if source.get("url"):
                links.setdefault(source["url"], source)
        if step.type == "fetch" and step.data.get("url"):
            links.setdefault(step.data["url"], {"title": step.detail, "url": step.data["url"]})
    return list(links.values())


def work_on_row(
    row: Mapping[str, Any], params: Mapping[str, Any], target: Target, tools, key: str = ""
) -> dict[str, Any]:
    """One row through the strategy and the coercion layer: its research-log entry."""
    strategy = get_strategy(params["strategy"])
    strategy_params = params["params"]
    entry: dict[str, Any] = {
        "strategy": strategy.name,
        "thoroughness": strategy.thoroughness(strategy_params),
        "value": None,
        "confidence": "none",
        "raw_value": None,
        "valid": True,
        "error": None,
    }
    steps: list[RowStep] = []
    try:
        for step in strategy.execute_one(row, strategy_params, tools, target):
            steps.append(step)
            if key and step.type in STEP_STAGES:
                report_stage(key, STEP_STAGES[step.type])
    except EmptyReference as exc:
        entry.update(status="skipped", error=f"Skipped: {exc}.")
        return entry | {"steps": [s.to_dict() for s in steps]}
    except StrategyError as exc:
        steps.append(RowStep("error", str(exc)))
    answers = [s for s in steps if s.type == "answer"]
    errors = [s for s in steps if s.type == "error"]
    if not answers:
        message = errors[-1].detail if errors else "The strategy gave no answer."
        entry.update(status="error", error=message)
        return entry | {"steps": [s.to_dict() for s in steps]}
    raw = answers[-1].detail
    coerced = coerce_value(raw, target.type, target.options, target.unit)
    if coerced.note:
        steps.append(RowStep("thinking", coerced.note))
    # A value the safe evaluator computed exactly is as sure as its inputs, whoever answers.
    exact = any(s.type == "compute" and "result" in s.data for s in steps)
    confidence = coerced.confidence if exact else _weaker(coerced.confidence, tools.best_confidence)
    coverage = next((s.detail for s in reversed(steps) if s.type == "coverage"), None)
    if coverage in CONFIDENCE_ORDER:
        confidence = _weaker(confidence, coverage)
    if coerced.valid and coerced.value is not None and target.type == "number":
        entry["warning"] = above_crop_cap(coerced.value, target.unit, row)
    entry.update(
        status="found" if coerced.value is not None else "not_found",
        value=coerced.value,
        confidence=confidence if coerced.value is not None else "none",
        raw_value=raw,
        valid=coerced.valid,
        error=coerced.error,
        error_code=coerced.code,
        coverage=coverage,
        sources=_sources(steps),
    )
    return entry | {"steps": [s.to_dict() for s in steps]}


@register_kind
class TableEnrichment(RunKind):
    name = "table_enrichment"
    title = "Table enrichment"
    target_kind = ROW_TARGET
    suggestion_noun = "row(s)"
    reconfirm_where = "on its row"

    def __init__(self) -> None:
        self._snapshot: RowsSnapshot | None = None
        self._client = None
        self._lock = threading.Lock()

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [str(row_id) for row_id in params["row_ids"]]

    def concurrency(self, params: dict[str, Any]) -> int:
        return get_strategy(params["strategy"]).concurrency(params["params"])

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

    def review_url(self, run: Run) -> str:
        return url_for("tables.enrichment_run", table_id=run.params["table_id"], run_id=run.id)

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
        if log_rows:
            db.session.execute(insert(ResearchLogEntry), log_rows)
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
    ids = [int(i) for i in row_ids]
    for chunk in range(0, len(ids), 5000):
        query = select(TableRow.id, TableRow.cells, TableRow.position).where(
            TableRow.table_id == table.id, TableRow.id.in_(ids[chunk : chunk + 5000])
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
        "basis": "A typical row's usage at the model's price; the run records what it really used."
        if known
        else f"No price is known for {structured.model}: set FURROW_OPENAI_PRICES.",
    }


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
    labels: dict[int, str] = {}
    label = ResearchLogEntry.entry["label"].as_string()
    for picked in among(db.session, ResearchLogEntry.row_id, row_ids):
        query = select(ResearchLogEntry.row_id, label).where(
            ResearchLogEntry.run_id == run.id, picked
        )
        labels.update(db.session.execute(query).all())
    missing = [i for i in row_ids if i not in labels]
    table = db.session.get(DataTable, run.params["table_id"]) if missing else None
    if table is not None:
        columns = [(c.key, c.name, c.type) for c in table.columns]
        target = str(run.params["column_id"])
        for picked in among(db.session, TableRow.id, missing):
            query = select(TableRow.id, TableRow.cells).where(TableRow.table_id == table.id, picked)
            for row_id, cells in db.session.execute(query):
                labels[row_id] = row_label(cells or {}, columns, target, row_id)
    return labels


def row_suggestions(run: Run, row_ids: Collection[int] | None = None) -> dict[int, Suggestion]:
    """The run's suggestion for each row it proposed something for (of these rows only)."""
    query = select(Suggestion).where(
        Suggestion.run_id == run.id, Suggestion.target_type == ROW_TARGET
    )
    if row_ids is None:
        return {s.target_id: s for s in db.session.scalars(query)}
    found: dict[int, Suggestion] = {}
    for picked in among(db.session, Suggestion.target_id, row_ids):
        found.update((s.target_id, s) for s in db.session.scalars(query.where(picked)))
    return found


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


def with_values(cells: Mapping[str, Any], values: Mapping[str, Any]) -> dict[str, Any]:
    """New cells with values set; an empty cell is a missing key, never a stored null."""
    merged = {**cells, **values}
    return {key: value for key, value in merged.items() if value is not None}


class TableRowTarget(ReviewTarget):
    """Table rows as the review core sees them: a field is a column key, a value is read as the
    column's type, and many rows are written in one UPDATE per chunk."""

    kind = ROW_TARGET
    label = "Row"
    undo_sources = ("apply",)

    def _column(self, ids: Collection[int], column) -> dict[int, Any]:
        found: dict[int, Any] = {}
        for picked in among(db.session, TableRow.id, ids):
            query = select(TableRow.id, column).where(picked)
            found.update(db.session.execute(query).all())
        return found

    def current(self, ids: Collection[int]) -> dict[int, dict[str, Any]]:
        return {i: cells or {} for i, cells in self._column(ids, TableRow.cells).items()}

    def write_many(
        self,
        values: Mapping[int, Mapping[str, Any]],
        user: User | None,
        current: Mapping[int, Mapping[str, Any]] | None = None,
    ) -> tuple[dict[int, Changed], list[WriteRefused]]:
        cells_of = current if current is not None else self.current(values)
        table_of = self._column(values, TableRow.table_id)
        tables = set(table_of.values())
        columns = {
            (c.table_id, c.key): c
            for c in db.session.scalars(select(TableColumn).where(TableColumn.table_id.in_(tables)))
        }
        changed: dict[int, Changed] = {}
        refused: list[WriteRefused] = []
        updates = []
        for row_id, mine in values.items():
            table_id, cells = table_of.get(row_id), cells_of.get(row_id, {})
            accepted: dict[str, Any] = {}
            for key, raw in mine.items():
                column = columns.get((table_id, key))
                if column is None:
                    refused.append(WriteRefused(row_id, key, "The row or its column was deleted."))
                    continue
                try:
                    accepted[key] = (
                        None if raw is None else parse_cell(column.type, raw, column.options)
                    )
                except CellInvalid as exc:
                    refused.append(WriteRefused(row_id, key, str(exc)))
            diff = {
                k: (cells.get(k), v)
                for k, v in accepted.items()
                if jsonable(cells.get(k)) != jsonable(v)
            }
            if diff:
                changed[row_id] = diff
                updates.append({"row_id": row_id, "new_cells": with_values(cells, accepted)})
        # One executemany straight to the table (no ORM bookkeeping per row).
        rows_table = TableRow.__table__
        statement = (
            rows_table.update()
            .where(rows_table.c.id == bindparam("row_id"))
            .values(cells=bindparam("new_cells"), updated_at=utcnow())
        )
        if updates:
            db.session.execute(statement, updates)
        write_keys({update["row_id"]: update["new_cells"] for update in updates})
        review.forget(TableRow, values)
        _touch_tables(tables)
        return changed, refused

    def names(self, ids: Collection[int]) -> dict[int, str]:
        """Each row by its first filled text column, as its table's pages name it."""
        rows: dict[int, tuple[int, dict[str, Any]]] = {}
        for picked in among(db.session, TableRow.id, ids):
            query = select(TableRow.id, TableRow.table_id, TableRow.cells).where(picked)
            rows.update(
                {i: (table_id, cells or {}) for i, table_id, cells in db.session.execute(query)}
            )
        columns: dict[int, list[tuple[str, str, str]]] = {}
        for table_id in {table_id for table_id, _cells in rows.values()}:
            table = db.session.get(DataTable, table_id)
            columns[table_id] = [(c.key, c.name, c.type) for c in table.columns]
        return {
            i: row_label(cells, columns[table_id], "", i) for i, (table_id, cells) in rows.items()
        }

    def field_label(self, field: str) -> str:
        """A column by its name: a field is the column's id."""
        column = db.session.get(TableColumn, record_id(field)) if record_id(field) else None
        return column.name if column is not None else field

    def url(self, target_id: int) -> str | None:
        table_id = db.session.scalar(select(TableRow.table_id).where(TableRow.id == target_id))
        return (
            url_for("tables.row_history", table_id=table_id, row_id=target_id) if table_id else None
        )

    def _tables(self, ids: Collection[int]) -> set[int]:
        return set(self._column(ids, TableRow.table_id).values())

    def owns(self, ids: Collection[int], sources: Collection[str]) -> bool:
        """An apply is undone whole when its rows are all of one table (a run's)."""
        return super().owns(ids, sources) and len(self._tables(ids)) == 1

    def back_url(self, ids: Collection[int]) -> str | None:
        tables = self._tables(ids)
        return url_for("tables.show", table_id=tables.pop()) if len(tables) == 1 else None


def _touch_tables(ids: Collection[int]) -> None:
    if ids:
        db.session.execute(
            update(DataTable).where(DataTable.id.in_(list(ids))).values(updated_at=utcnow())
        )


ROWS = register_target(TableRowTarget())


@dataclass
class TableApply:
    applied: list[int] = field(default_factory=list)
    refused: list[dict[str, Any]] = field(default_factory=list)
    group: str | None = None


def apply_rows(
    run: Run,
    row_ids: Iterable[int],
    user: User,
    edits: Mapping[int, str] | None = None,
    reconfirm: Iterable[int] = (),
    skip_invalid: bool = False,
) -> TableApply:
    """The rows' suggestions through the review core, answered by row (the table pages'
    shape). An invalid row is refused until its value is edited (left out
    without a refusal with skip_invalid); a stale one (its cell changed since the run) until it
    is re-confirmed (reconfirm: suggestion ids)."""
    row_ids = [int(i) for i in row_ids]
    suggestions = {
        row_id: suggestion_id
        for row_id, suggestion_id in db.session.execute(
            select(Suggestion.target_id, Suggestion.id).where(
                Suggestion.run_id == run.id, Suggestion.target_type == ROW_TARGET
            )
        )
    }
    result = TableApply()
    for row_id in row_ids:
        if row_id not in suggestions:
            result.refused.append(
                {"row_id": row_id, "code": "no_suggestion",
                 "message": "The run proposed nothing for this row."}
            )  # fmt: skip
    chosen = [suggestions[i] for i in row_ids if i in suggestions]
    edited = {suggestions[i]: v for i, v in (edits or {}).items() if i in suggestions}
    applied = review.apply(chosen, user, reconfirm, edits=edited, skip_invalid=skip_invalid)
    result.applied = [a.target_id for a in applied.applied]
    result.refused += [{"row_id": r.target_id, **r.to_dict()} for r in applied.refused]
    result.group = applied.group
    return result
