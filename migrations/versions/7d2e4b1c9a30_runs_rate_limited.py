"""runs.rate_limited: the provider's 429 answers during a run, each waited out as its
Retry-After said

Revision ID: 7d2e4b1c9a30
Revises: 5e1d0c7a9b42
Create Date: 2026-11-29 05:30:00.000000

"""
import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision = '7d2e4b1c9a30'
down_revision = '5e1d0c7a9b42'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('rate_limited', sa.Integer(), server_default='0', nullable=False)
        )


def downgrade():
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.drop_column('rate_limited')
