"""Database set-up that SQLAlchemy does not do by itself: SQLite pragmas, UTC timestamps, and
bulk inserts that use each database's fast path."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from itertools import repeat
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    DateTime,
    Engine,
    Integer,
    String,
    Table,
    any_,
    bindparam,
    event,
    false,
    func,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Compiled, Connection
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session
from sqlalchemy.sql.expression import Executable
from sqlalchemy.types import TypeDecorator

from webapp.json_columns import json_text


def utcnow() -> datetime:
    return datetime.now(UTC)


def failure_line(exc: DBAPIError) -> str:
    """The driver's first line about a failure, for a log or a message (psycopg adds hints and
    SQLAlchemy a link on the lines after it)."""
    text = str(exc.orig if exc.orig is not None else exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class UTCDateTime(TypeDecorator[datetime]):
    """Timestamps stored as UTC and always read back timezone-aware (SQLite drops the zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime given; use webapp.database.utcnow()")
        return value.astimezone(UTC) if value is not None else None

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value


def configure_sqlite(engine: Engine) -> None:
    """WAL lets readers work while a worker writes; foreign keys are off in SQLite by default."""
    if engine.dialect.name != "sqlite":
        return

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record):
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def bulk_insert(session: Session, table: Table, rows: Sequence[Mapping[str, Any]]) -> None:
    """Many rows into one table, the fastest way each database has: COPY on PostgreSQL (an
    executemany there is a round trip per row), one executemany on SQLite. Every row names the
    same columns; JSON columns take Python values, as they do through SQLAlchemy. COPY applies
    no default set in Python: name every column that has one."""
    if not rows:
        return
    connection = session.connection()
    names = list(rows[0])
    if connection.dialect.name != "postgresql":
        _insert_many(connection, table, names, rows)
        return
    as_json = {name for name in names if isinstance(table.c[name].type, JSON)}
    columns = ", ".join(f'"{name}"' for name in names)
    cursor = connection.connection.driver_connection.cursor()
    with cursor, cursor.copy(f'COPY "{table.name}" ({columns}) FROM STDIN') as copy:
        for row in rows:
            copy.write_row([json_text(row[n]) if n in as_json else row[n] for n in names])


def execute_many(
    session: Session, statement: Executable, rows: Sequence[Mapping[str, Any]]
) -> None:
    """One statement with bound parameters (`UPDATE … WHERE id = :row_id`) for many rows of
    them: on SQLite straight to the driver's executemany (_executemany); on PostgreSQL
    through SQLAlchemy, whose psycopg executemany sends them in one pipeline."""
    if not rows:
        return
    connection = session.connection()
    if connection.dialect.name == "postgresql":
        connection.execute(statement, list(rows))
        return
    _executemany(connection, statement.compile(dialect=connection.dialect), rows)


def _insert_many(connection: Connection, table: Table, names: list[str], rows) -> None:
    """An INSERT of these columns, by _executemany. A column left out that has a default in
    Python goes through SQLAlchemy, which applies it."""
    if any(c.default is not None for c in table.columns if c.name not in names):
        connection.execute(table.insert(), list(rows))
        return
    _executemany(
        connection, table.insert().compile(dialect=connection.dialect, column_keys=names), rows
    )


def _executemany(connection: Connection, compiled: Compiled, rows) -> None:
    """The statement compiled once and each parameter's values put through its bind processor
    (JSON text, UTC timestamps) a column at a time, straight to the driver's executemany:
    SQLAlchemy's own executemany builds each row's parameters again, a quarter of a large
    save's time. A parameter the rows do not name keeps the value the statement gave it."""
    dialect, named, count = connection.dialect, rows[0], len(rows)
    columns: list[Iterable[Any]] = []
    for name in compiled.positiontup or ():
        bind = compiled.binds[name]
        process = bind.type.bind_processor(dialect)
        if name in named:
            values = [row[name] for row in rows]
            columns.append(values if process is None else list(map(process, values)))
        else:
            value = bind.effective_value
            columns.append(repeat(value if process is None else process(value), count))
    values = list(zip(*columns, strict=True)) if columns else [()] * count
    connection.exec_driver_sql(str(compiled), values)


def insert_unless_there(session: Session, table: Table, row: Mapping[str, Any]) -> None:
    """One row, unless a row with its key is there already (another process may have just
    written it): INSERT … ON CONFLICT DO NOTHING, in each database's own words."""
    dialect = session.connection().dialect.name
    insert = postgresql_insert if dialect == "postgresql" else sqlite_insert
    session.execute(insert(table).values(**row).on_conflict_do_nothing())


def among(session: Session, column: Any, ids: Collection[int]) -> ColumnElement[bool]:
    """The condition that picks the rows whose column is one of these ids: `= ANY(array)` on
    PostgreSQL, `IN (SELECT value FROM json_each(?))` on SQLite. Either is one short statement
    with one parameter whatever the count: a literal IN list of thousands of ids costs more to
    compile than to run. No ids is false(), so a statement over none picks nothing."""
    ordered = sorted(set(ids))
    if not ordered:
        return false()
    if session.get_bind().dialect.name == "postgresql":
        return column == any_(bindparam(None, ordered, type_=ARRAY(Integer)))
    listed = func.json_each(bindparam(None, json_text(ordered), type_=String)).table_valued("value")
    return column.in_(select(listed.c.value))
