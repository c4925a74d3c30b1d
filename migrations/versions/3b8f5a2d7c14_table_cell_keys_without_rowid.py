"""table_cell_keys WITHOUT ROWID on SQLite: a row's keys are found by their primary key in one
seek (the table itself), not an index seek then a rowid seek, as a filtered facet finds the keys
of every row it counts; PostgreSQL keeps its table as it is

Revision ID: 3b8f5a2d7c14
Revises: 7d2e4b1c9a30
Create Date: 2026-11-29 08:40:00.000000

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '3b8f5a2d7c14'
down_revision = '7d2e4b1c9a30'
branch_labels = None
depends_on = None


def rebuild(with_rowid):
    """The table copied into one made with or without a rowid (SQLite cannot alter that)."""
    if op.get_bind().dialect.name != "sqlite":
        return
    with op.batch_alter_table(
        'table_cell_keys', recreate='always', table_kwargs={'sqlite_with_rowid': with_rowid}
    ):
        pass


def upgrade():
    rebuild(with_rowid=False)


def downgrade():
    rebuild(with_rowid=True)
