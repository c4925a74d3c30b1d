"""Run chunks keep the items they finished and how many, so a save of one chunk rewrites only
its own share

Revision ID: b7e2c4d91a05
Revises: f31ebf3f1924
Create Date: 2026-11-26 21:55:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'b7e2c4d91a05'
down_revision = 'f31ebf3f1924'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('run_chunks', schema=None) as batch_op:
        batch_op.add_column(sa.Column('done', sa.Integer(), server_default='0', nullable=False))
        batch_op.add_column(sa.Column('done_items', sa.JSON(), server_default='[]', nullable=False))


def downgrade():
    with op.batch_alter_table('run_chunks', schema=None) as batch_op:
        batch_op.drop_column('done_items')
        batch_op.drop_column('done')
