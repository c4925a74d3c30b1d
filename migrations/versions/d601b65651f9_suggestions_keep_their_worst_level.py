"""suggestions keep their worst level: the worst severity of their issues, so a review counts
and filters a run's suggestions by level without reading every issue list; the research log is
indexed by row, for the rows of the suggestions at one level

Revision ID: d601b65651f9
Revises: 289c4ee5394e
Create Date: 2026-11-26 12:24:49.371338

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'd601b65651f9'
down_revision = '289c4ee5394e'
branch_labels = None
depends_on = None

suggestions = sa.table(
    'suggestions',
    sa.column('id', sa.Integer),
    sa.column('issues', sa.JSON),
    sa.column('level', sa.String(8)),
)


def worst(issues):
    """As review.vocabulary.worst_level: an unknown severity counts as a note."""
    found = {i.get('severity') if i.get('severity') in ('error', 'warning') else 'info'
             for i in issues or ()}
    return next((level for level in ('error', 'warning', 'info') if level in found), None)


def upgrade():
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('level', sa.String(length=8), nullable=True))
        batch_op.create_index('ix_suggestions_run_level', ['run_id', 'level'], unique=False)

    with op.batch_alter_table('research_log', schema=None) as batch_op:
        batch_op.create_index('ix_research_log_run_row', ['run_id', 'row_id'], unique=False)

    connection = op.get_bind()
    levels = [
        {'row_id': row_id, 'new_level': level}
        for row_id, issues in connection.execute(sa.select(suggestions.c.id, suggestions.c.issues))
        if (level := worst(issues))
    ]
    if levels:
        connection.execute(
            suggestions.update()
            .where(suggestions.c.id == sa.bindparam('row_id'))
            .values(level=sa.bindparam('new_level')),
            levels,
        )


def downgrade():
    with op.batch_alter_table('research_log', schema=None) as batch_op:
        batch_op.drop_index('ix_research_log_run_row')

    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.drop_index('ix_suggestions_run_level')
        batch_op.drop_column('level')
