"""document library: documents, their passages, and the passages' full-text index

Revision ID: ac36f9431c3f
Revises: 5b0ac2a63386
Create Date: 2026-11-26

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'ac36f9431c3f'
down_revision = '5b0ac2a63386'
branch_labels = None
depends_on = None

# SQLite: an external-content FTS5 table over library_passages (title, text), kept in step by
# triggers, so every insert, update and delete of a passage (cascades included) reaches the
# index. A later batch_alter_table on library_passages recreates the table on SQLite and drops
# these triggers: create them again after it.
SQLITE_FTS = (
    "CREATE VIRTUAL TABLE library_passages_fts USING fts5(title, text, "
    "content='library_passages', content_rowid='id', tokenize='unicode61 remove_diacritics 2')",
    "CREATE TRIGGER library_passages_fts_insert AFTER INSERT ON library_passages BEGIN "
    "INSERT INTO library_passages_fts(rowid, title, text) VALUES (new.id, new.title, new.text); "
    "END",
    "CREATE TRIGGER library_passages_fts_delete AFTER DELETE ON library_passages BEGIN "
    "INSERT INTO library_passages_fts(library_passages_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); "
    "END",
    "CREATE TRIGGER library_passages_fts_update AFTER UPDATE ON library_passages BEGIN "
    "INSERT INTO library_passages_fts(library_passages_fts, rowid, title, text) "
    "VALUES ('delete', old.id, old.title, old.text); "
    "INSERT INTO library_passages_fts(rowid, title, text) VALUES (new.id, new.title, new.text); "
    "END",
)
# PostgreSQL: a GIN index on the very expression webapp/library/search.py matches against.
POSTGRES_FTS = (
    "CREATE INDEX ix_library_passages_fts ON library_passages "
    "USING gin (to_tsvector('simple', title || ' ' || text))"
)


def upgrade():
    op.create_table('library_documents',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.String(length=200), nullable=False),
    sa.Column('filename', sa.String(length=255), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('size_bytes', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('created_by_id', sa.Integer(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['created_by_id'], ['users.id'], name=op.f('fk_library_documents_created_by_id_users'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_library_documents')),
    sqlite_autoincrement=True
    )
    op.create_table('library_passages',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=True),
    sa.Column('source_kind', sa.String(length=16), nullable=False),
    sa.Column('title', sa.String(length=300), nullable=False),
    sa.Column('url', sa.String(length=2000), nullable=True),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.ForeignKeyConstraint(['document_id'], ['library_documents.id'], name=op.f('fk_library_passages_document_id_library_documents'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_library_passages')),
    sqlite_autoincrement=True
    )
    with op.batch_alter_table('library_passages', schema=None) as batch_op:
        batch_op.create_index('ix_library_passages_document_position', ['document_id', 'position'], unique=False)
        batch_op.create_index(batch_op.f('ix_library_passages_source_kind'), ['source_kind'], unique=False)

    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for statement in SQLITE_FTS:
            op.execute(statement)
    elif dialect == 'postgresql':
        op.execute(POSTGRES_FTS)


def downgrade():
    dialect = op.get_bind().dialect.name
    if dialect == 'sqlite':
        for trigger in ('insert', 'delete', 'update'):
            op.execute(f'DROP TRIGGER library_passages_fts_{trigger}')
        op.execute('DROP TABLE library_passages_fts')
    elif dialect == 'postgresql':
        op.execute('DROP INDEX ix_library_passages_fts')

    with op.batch_alter_table('library_passages', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_library_passages_source_kind'))
        batch_op.drop_index('ix_library_passages_document_position')

    op.drop_table('library_passages')
    op.drop_table('library_documents')
