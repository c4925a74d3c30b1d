"""A research table: typed columns and rows whose cells are keyed by column id."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Integer, String
from sqlalchemy.orm import Mapped, mapped_column, relationship

from webapp.auth.models import User
from webapp.database import UTCDateTime, utcnow
from webapp.extensions import db

# Cell changes are audited as Changes with this target type; the field is the column id.
ROW_TARGET = "table_row"


class DataTable(db.Model):
    __tablename__ = "data_tables"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    created_by: Mapped[User | None] = relationship()
    columns: Mapped[list[TableColumn]] = relationship(
        order_by="TableColumn.position",
        cascade="all, delete-orphan",
        passive_deletes=True,
        back_populates="table",
    )

    def column_named(self, name: str) -> TableColumn | None:
        """Column names match case-insensitively, as {Column} templates do."""
        wanted = name.strip().casefold()
        return next((c for c in self.columns if c.name.casefold() == wanted), None)


class TableColumn(db.Model):
    __tablename__ = "table_columns"
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(
        ForeignKey("data_tables.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(120))
    # text | number | boolean | select | url
    type: Mapped[str] = mapped_column(String(16), default="text")
    unit: Mapped[str | None] = mapped_column(String(32))
    options: Mapped[list[str]] = mapped_column(JSON, default=list)
    position: Mapped[int] = mapped_column(Integer, default=0)

    table: Mapped[DataTable] = relationship(back_populates="columns")

    @property
    def key(self) -> str:
        """The key of this column's value in a row's cells."""
        return str(self.id)

    @property
    def names_unit(self) -> bool:
        """Whether the name says the unit already ("Yield (hg/ha)"), so no label adds it."""
        return bool(self.unit) and self.unit.casefold() in self.name.casefold()

    @property
    def unit_shown(self) -> str | None:
        """The unit a label adds to the name: none when the name says it."""
        return None if self.names_unit else self.unit

    @property
    def label(self) -> str:
        """The name with its unit, once: "Yield (t/ha)", and "Yield (hg/ha)" as it is."""
        return f"{self.name} ({self.unit_shown})" if self.unit_shown else self.name

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "type": self.type,
            "unit": self.unit,
            "options": list(self.options or []),
            "position": self.position,
        }


class TableRow(db.Model):
    __tablename__ = "table_rows"
    __table_args__ = (
        db.Index("ix_table_rows_table_position", "table_id", "position"),
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    table_id: Mapped[int] = mapped_column(ForeignKey("data_tables.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer, default=0)
    # {column id (str): value}; a missing key is an empty cell.
    cells: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    def value(self, column: TableColumn) -> Any:
        return (self.cells or {}).get(column.key)

    def by_name(self, columns: list[TableColumn]) -> dict[str, Any]:
        """The row as {column name: value}, what strategies and exports see."""
        return {c.name: self.value(c) for c in columns}


class TableCellKey(db.Model):
    """A filled cell as an index can sort and filter it (webapp.tables.sort_keys writes them):
    a number or a boolean as number, text lower-cased and cut to sort_keys.TEXT_KEY_CHARS. An
    empty cell has none."""

    __tablename__ = "table_cell_keys"
    __table_args__ = (
        # A column's cells in sort order, ties in the table's order: a page or a count of a
        # sorted or filtered table reads this index alone.
        db.Index("ix_table_cell_keys_order", "column_id", "number", "text", "position", "row_id"),
        # SQLite: the table is its primary key's b-tree, so a row's keys are one seek away.
        {"sqlite_with_rowid": False},
    )

    row_id: Mapped[int] = mapped_column(
        ForeignKey("table_rows.id", ondelete="CASCADE"), primary_key=True
    )
    # No foreign key: checking one per key would double an import's time; deleting a column
    # deletes its keys (catalog.delete_column), and a column's id is never used again.
    column_id: Mapped[int] = mapped_column(Integer, primary_key=True)
    position: Mapped[int] = mapped_column(Integer)  # the row's, which never changes
    number: Mapped[float | None] = mapped_column(Float)
    text: Mapped[str | None] = mapped_column(String(250))


class ResearchLogEntry(db.Model):
    """One row's outcome in an enrichment run: status, value, confidence and its trace."""

    __tablename__ = "research_log"
    __table_args__ = (
        db.Index("ix_research_log_run_position", "run_id", "position"),
        # A review filtered by level finds the rows of the run's suggestions at that level.
        db.Index("ix_research_log_run_row", "run_id", "row_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("runs.id", ondelete="CASCADE"))
    row_id: Mapped[int] = mapped_column(Integer)
    position: Mapped[int] = mapped_column(Integer)
    # found | not_found | skipped | error
    status: Mapped[str] = mapped_column(String(16))
    entry: Mapped[dict[str, Any]] = mapped_column(JSON)
