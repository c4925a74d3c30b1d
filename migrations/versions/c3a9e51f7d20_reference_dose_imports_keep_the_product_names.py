"""Reference-dose imports keep the product list that names the table's AMM numbers

Revision ID: c3a9e51f7d20
Revises: b7e2c4d91a05
Create Date: 2026-11-27 21:00:00.000000

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'c3a9e51f7d20'
down_revision = 'b7e2c4d91a05'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('reference_dose_imports') as batch_op:
        batch_op.add_column(sa.Column('names_filename', sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column('names_csv', sa.Text(), nullable=True))


def downgrade():
    with op.batch_alter_table('reference_dose_imports') as batch_op:
        batch_op.drop_column('names_csv')
        batch_op.drop_column('names_filename')
