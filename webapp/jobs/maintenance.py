"""The integrity check: a maintenance run that re-checks the database and counts every table."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Table, and_, func, select, text

from webapp.extensions import db
from webapp.jobs.kinds import ItemError, RunKind, register_kind

DATABASE_ITEM = "database"


def _tables() -> dict[str, Table]:
    return {table.name: table for table in db.metadata.sorted_tables}


def check_database() -> dict[str, Any]:
    dialect = db.engine.dialect.name
    if dialect == "sqlite":
        problems = [row[0] for row in db.session.execute(text("PRAGMA integrity_check"))]
        if problems != ["ok"]:
            raise ItemError("SQLite integrity_check found: " + "; ".join(problems[:10]))
        page_count = db.session.execute(text("PRAGMA page_count")).scalar_one()
        page_size = db.session.execute(text("PRAGMA page_size")).scalar_one()
        journal = db.session.execute(text("PRAGMA journal_mode")).scalar_one()
        return {"engine": "sqlite", "size_bytes": page_count * page_size, "journal_mode": journal}
    version = db.session.execute(text("SHOW server_version")).scalar_one()
    size = db.session.execute(text("SELECT pg_database_size(current_database())")).scalar_one()
    return {"engine": "postgresql", "server_version": version, "size_bytes": int(size)}


def check_table(table: Table) -> dict[str, Any]:
    """Row count, and rows whose foreign key points at nothing (per key)."""
    rows = db.session.scalar(select(func.count()).select_from(table))
    orphans: dict[str, int] = {}
    for fk in table.foreign_key_constraints:
        parent = fk.referred_table
        column, parent_column = fk.columns[0], fk.elements[0].column
        missing = db.session.scalar(
            select(func.count())
            .select_from(table.outerjoin(parent, column == parent_column))
            .where(and_(column.is_not(None), parent_column.is_(None)))
        )
        if missing:
            orphans[f"{column.name} → {parent.name}"] = missing
    if orphans:
        detail = ", ".join(f"{n} row(s) with {key} missing" for key, n in orphans.items())
        raise ItemError(f"{table.name}: {rows} row(s); {detail}")
    return {"rows": rows}


@register_kind
class IntegrityCheck(RunKind):
    name = "integrity_check"
    title = "Database integrity check"
    result_labels = {
        "engine": "Engine",
        "server_version": "Version",
        "size_bytes": "Size (bytes)",
        "journal_mode": "Journal mode",
        "rows": "Rows",
    }

    def plan_items(self, params: dict[str, Any]) -> list[str]:
        return [DATABASE_ITEM, *sorted(_tables())]

    def stage_for(self, key: str) -> str:
        return "checking database" if key == DATABASE_ITEM else "counting rows"

    def verdict(self, run: Any) -> tuple[str, str] | None:
        if run.is_live or run.status == "cancelled":
            return None
        problems = len(run.item_errors)
        if run.error_code:
            return "error", f"The check could not finish: {run.error_message}"
        if problems:
            return "error", f"{problems} problem(s) found: see the items below."
        tables = len(run.items) - 1
        return "info", f"OK: no problems found (the database and {tables} tables checked)."

    def process_item(self, key: str, params: dict[str, Any], run_id: int) -> Any:
        if key == DATABASE_ITEM:
            return check_database()
        table = _tables().get(key)
        if table is None:
            raise ItemError(f"table {key} no longer exists")
        return check_table(table)
