"""users.session_generation: raising it ends every session and remember cookie of a user

Revision ID: ef7bec7ab0cf
Revises: 063ab83cf389
Create Date: 2026-11-26 10:14:43.691248

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'ef7bec7ab0cf'
down_revision = '063ab83cf389'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.add_column(sa.Column('session_generation', sa.Integer(), server_default='0', nullable=False))


def downgrade():
    with op.batch_alter_table('users', schema=None) as batch_op:
        batch_op.drop_column('session_generation')
