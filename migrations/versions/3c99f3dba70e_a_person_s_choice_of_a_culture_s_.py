"""a person's choice of a culture's reference crop

Revision ID: 3c99f3dba70e
Revises: c3a9e51f7d20
Create Date: 2026-11-27 20:50:33.970713

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '3c99f3dba70e'
down_revision = 'c3a9e51f7d20'
branch_labels = None
depends_on = None


def upgrade():
    # Every stored crop so far was found from the name: none was a person's choice.
    with op.batch_alter_table('cultures', schema=None) as batch_op:
        batch_op.add_column(sa.Column('reference_crop_chosen', sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade():
    with op.batch_alter_table('cultures', schema=None) as batch_op:
        batch_op.drop_column('reference_crop_chosen')
