"""changes.group_id: the group of changes made together (one save, apply, decision, import or
undo), which undo takes back as a whole; it was named for applies only

Revision ID: 5e1d0c7a9b42
Revises: 48367ebbafbc
Create Date: 2026-11-28 01:20:00.000000

"""
from alembic import op

# revision identifiers, used by Alembic.
revision = '5e1d0c7a9b42'
down_revision = '48367ebbafbc'
branch_labels = None
depends_on = None


def upgrade():
    op.drop_index('ix_changes_apply_group', table_name='changes')
    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.alter_column('apply_group', new_column_name='group_id')
    op.create_index('ix_changes_group_id', 'changes', ['group_id'], unique=False)


def downgrade():
    op.drop_index('ix_changes_group_id', table_name='changes')
    with op.batch_alter_table('changes', schema=None) as batch_op:
        batch_op.alter_column('group_id', new_column_name='apply_group')
    op.create_index('ix_changes_apply_group', 'changes', ['apply_group'], unique=False)
