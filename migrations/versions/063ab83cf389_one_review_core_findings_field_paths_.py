"""one review core: findings, field paths, integer run targets

Revision ID: 063ab83cf389
Revises: fcff217c4835
Create Date: 2026-11-26 09:01:46.322209

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '063ab83cf389'
down_revision = 'fcff217c4835'
branch_labels = None
depends_on = None


def upgrade():
    op.create_table('findings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=False),
    sa.Column('target_type', sa.String(length=32), nullable=False),
    sa.Column('target_ids', sa.JSON(), nullable=False),
    sa.Column('code', sa.String(length=64), nullable=False),
    sa.Column('severity', sa.String(length=8), nullable=False),
    sa.Column('field', sa.String(length=255), nullable=True),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('details', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_findings_run_id_runs'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_findings'))
    )
    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_findings_run_id'), ['run_id'], unique=False)

    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.add_column(sa.Column('suggestion_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('comment', sa.Text(), nullable=True))
        batch_op.alter_column('field',
               existing_type=sa.VARCHAR(length=64),
               type_=sa.String(length=255),
               existing_nullable=False)
        batch_op.create_index(batch_op.f('ix_changes_suggestion_id'), ['suggestion_id'], unique=False)
        batch_op.create_foreign_key(batch_op.f('fk_changes_suggestion_id_suggestions'), 'suggestions', ['suggestion_id'], ['id'], ondelete='SET NULL')

    # Run targets are record ids, like every other target id (they were stored as text).
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.alter_column('target_id',
               existing_type=sa.VARCHAR(length=64),
               type_=sa.Integer(),
               existing_nullable=True,
               postgresql_using='target_id::integer')

    # Applies made before: tie each change to the suggestion it applied, so undo reopens it.
    op.execute(
        "UPDATE changes SET suggestion_id = (SELECT MIN(s.id) FROM suggestions s"
        " WHERE s.run_id = changes.run_id AND s.target_type = changes.target_type"
        " AND s.target_id = changes.target_id AND s.field = changes.field)"
        " WHERE source = 'apply' AND run_id IS NOT NULL"
    )
    _findings_from_run_results()

    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.alter_column('field',
               existing_type=sa.VARCHAR(length=64),
               type_=sa.String(length=255),
               existing_nullable=False)



def _findings_from_run_results():
    """Culture runs kept their record-level issues in results[culture]["other_issues"]."""
    connection = op.get_bind()
    runs = sa.table('runs', sa.column('id', sa.Integer), sa.column('kind', sa.String),
                    sa.column('results', sa.JSON), sa.column('created_at', sa.DateTime))
    findings = sa.table('findings', sa.column('run_id', sa.Integer),
                        sa.column('target_type', sa.String), sa.column('target_ids', sa.JSON),
                        sa.column('code', sa.String), sa.column('severity', sa.String),
                        sa.column('field', sa.String), sa.column('message', sa.Text),
                        sa.column('details', sa.JSON), sa.column('status', sa.String),
                        sa.column('created_at', sa.DateTime))
    query = sa.select(runs.c.id, runs.c.results, runs.c.created_at).where(
        runs.c.kind == 'culture_enrichment')
    rows = []
    for run_id, results, created_at in connection.execute(query):
        for key, summary in (results or {}).items():
            if not (key.isdigit() and isinstance(summary, dict)):
                continue
            for issue in summary.get('other_issues') or []:
                rows.append({
                    'run_id': run_id, 'target_type': 'culture', 'target_ids': [int(key)],
                    'code': issue.get('code', ''), 'severity': issue.get('severity', 'info'),
                    'field': issue.get('field'), 'message': issue.get('message', ''),
                    'details': issue.get('details') or {}, 'status': 'open',
                    'created_at': created_at,
                })
    if rows:
        op.bulk_insert(findings, rows)


def downgrade():
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.alter_column('field',
               existing_type=sa.String(length=255),
               type_=sa.VARCHAR(length=64),
               existing_nullable=False)

    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.alter_column('target_id',
               existing_type=sa.Integer(),
               type_=sa.VARCHAR(length=64),
               existing_nullable=True)

    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('fk_changes_suggestion_id_suggestions'), type_='foreignkey')
        batch_op.drop_index(batch_op.f('ix_changes_suggestion_id'))
        batch_op.alter_column('field',
               existing_type=sa.String(length=255),
               type_=sa.VARCHAR(length=64),
               existing_nullable=False)
        batch_op.drop_column('comment')
        batch_op.drop_column('suggestion_id')

    with op.batch_alter_table('findings', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_findings_run_id'))

    op.drop_table('findings')
