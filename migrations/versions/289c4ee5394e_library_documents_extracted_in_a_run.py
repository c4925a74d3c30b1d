"""library documents extracted in a run: a document's status and error, and a PDF's bytes
until its extraction run has read them (documents stored before are ready)

Revision ID: 289c4ee5394e
Revises: ef7bec7ab0cf
Create Date: 2026-11-26 10:23:14.966278

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '289c4ee5394e'
down_revision = 'ef7bec7ab0cf'
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table('library_documents', schema=None) as batch_op:
        batch_op.add_column(sa.Column('status', sa.String(length=16), server_default='ready', nullable=False))
        batch_op.add_column(sa.Column('error', sa.Text(), nullable=True))
        batch_op.add_column(sa.Column('pending_file', sa.LargeBinary(), nullable=True))


def downgrade():
    with op.batch_alter_table('library_documents', schema=None) as batch_op:
        batch_op.drop_column('pending_file')
        batch_op.drop_column('error')
        batch_op.drop_column('status')
