"""The research tables' JSON API (/api/v1/tables): tables, their columns and rows, imports, and
filling a column (a run) with its review by row."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from flask import jsonify, request
from flask_login import current_user
from pydantic import ConfigDict, Field

from webapp.api import json_body
from webapp.auth.access import require_role
from webapp.auth.roles import Role
from webapp.contract import Id, Ids, Name, Names, Paging, RequestModel, accepts
from webapp.extensions import db
from webapp.pagination import page_number, per_page
from webapp.tables import api, catalog
from webapp.tables.browsing import DIRECTIONS, FILTER_LIMIT, OPERATORS
from webapp.tables.runs import cost_estimate, start_enrichment
from webapp.tables.views import (
    TABLES_PER_PAGE,
    rows_json,
    table_or_404,
    tables_page,
    view_or_refuse,
)

API_MOST_ROWS = 500


class ColumnBody(RequestModel):
    name: Name
    type: Name = "text"
    options: Names = []
    unit: Name | None = None


class NewTable(RequestModel):
    name: Name
    columns: Annotated[list[ColumnBody], Field(max_length=200)] = []


class NewRows(RequestModel):
    # Each row's shape and values are the table's to judge: it names row and column.
    rows: Annotated[list[Any], Field(max_length=10_000)] = []


@api.get("")
@accepts(query=Paging, summary="Research tables, paged.")
def api_index():
    page, counts = tables_page(page_number(request.args), per_page(request.args, TABLES_PER_PAGE))
    return jsonify(page.as_json("tables", [catalog.to_dict(t, counts[t.id]) for t in page.items]))


@api.post("")
@require_role(Role.editor)
@accepts(NewTable, answers={201: "Created."}, summary="A new table with its columns.")
def api_create():
    body = json_body()
    table = catalog.create_table(body.get("name"), body.get("columns"), current_user)
    db.session.commit()
    return jsonify(catalog.to_dict(table, 0)), 201


@api.get("/<int:table_id>")
@accepts(summary="One table with its columns and row count.")
def api_show(table_id: int):
    table = table_or_404(table_id)
    return jsonify(catalog.to_dict(table, catalog.row_counts([table.id])[table.id]))


class RowsQuery(Paging):
    """The table page's sort and filter (webapp.tables.browsing); any other key is refused, so
    a misspelt filter is not answered with every row."""

    model_config = ConfigDict(extra="forbid")

    sort: Id | None = None
    dir: Literal[DIRECTIONS] | None = None
    col: Id | None = None
    op: Literal[tuple(OPERATORS)] | None = None
    q: Annotated[str, Field(max_length=FILTER_LIMIT)] | None = None
    # Each of several filters, all applied: the first is checked here, every one by RowView.
    f: Annotated[str, Field(max_length=FILTER_LIMIT + 40)] | None = None


@api.get("/<int:table_id>/rows")
@accepts(
    query=RowsQuery,
    summary="A table's rows, paged, sorted and filtered as its page: "
    "?sort=<column id>&dir=desc&col=<column id>&op=gt&q=9; "
    "a number range as op=between&q=10..20 (10 included, 20 not); "
    "several filters, all applied, as f=<column id>:<op>:<value>, each.",
)
def api_rows(table_id: int):
    table = table_or_404(table_id)
    view = view_or_refuse(table, request.args)
    page = catalog.rows_page(
        table,
        page_number(request.args),
        per_page(request.args, catalog.PER_PAGE, API_MOST_ROWS),
        view,
    )
    return jsonify(page.as_json("rows", rows_json(table, page.items)))


@api.post("/<int:table_id>/rows")
@require_role(Role.editor)
@accepts(NewRows, answers={201: "Added."}, summary="Add rows: {column name: value}.")
def api_add_rows(table_id: int):
    table = table_or_404(table_id)
    row_ids = catalog.add_rows(table, json_body().get("rows"), current_user)
    db.session.commit()
    return jsonify(row_ids=row_ids), 201


class EnrichRows(RequestModel):
    target_column: Name
    strategy: Name
    # Each strategy reads its own parameters and says what it needs.
    params: Annotated[dict[Name, Any], Field(max_length=20)] = {}
    row_ids: Ids | None = None


@api.post("/<int:table_id>/enrich")
@require_role(Role.editor)
@accepts(
    EnrichRows,
    answers={
        202: "Queued: run_id, rows, and estimated_cost for a strategy that calls the model.",
        409: "Already being enriched: details.run_id is that run.",
        422: "Not as given, or more rows than FURROW_MAX_ROWS_PER_RUN.",
    },
    summary="Fill a column for any number of rows, up to FURROW_MAX_ROWS_PER_RUN, in a run.",
)
def api_enrich(table_id: int):
    table = table_or_404(table_id)
    body = json_body()  # its shape checked by EnrichRows before this runs
    run = start_enrichment(
        table,
        body["target_column"],
        body["strategy"],
        body.get("params") or {},
        body.get("row_ids"),
        current_user,
    )
    return jsonify(run_id=run.id, rows=len(run.items), estimated_cost=cost_estimate(run)), 202
