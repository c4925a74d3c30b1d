"""trust: run outcomes (completed_with_errors) and confidence as a level

Revision ID: fcff217c4835
Revises: ac36f9431c3f
Create Date: 2026-11-26 07:26:16.176051

"""
from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = 'fcff217c4835'
down_revision = 'ac36f9431c3f'
branch_labels = None
depends_on = None


def upgrade():
    # "completed_with_errors" is longer than the 16 characters a status had.
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.alter_column('status',
               existing_type=sa.VARCHAR(length=16),
               type_=sa.String(length=32),
               existing_nullable=False)

    # Confidence becomes a level; stored scores map onto it as Confidence.from_score does.
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('confidence_level', sa.String(length=8), nullable=True))
    op.execute(
        "UPDATE suggestions SET confidence_level = CASE"
        " WHEN confidence IS NULL THEN NULL"
        " WHEN confidence >= 0.8 THEN 'high'"
        " WHEN confidence >= 0.5 THEN 'medium'"
        " ELSE 'low' END"
    )
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.drop_column('confidence')
        batch_op.alter_column('confidence_level', new_column_name='confidence',
               existing_type=sa.String(length=8), existing_nullable=True)


def downgrade():
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.add_column(sa.Column('confidence_score', sa.FLOAT(), nullable=True))
    op.execute(
        "UPDATE suggestions SET confidence_score = CASE confidence"
        " WHEN 'high' THEN 0.9 WHEN 'medium' THEN 0.6 WHEN 'low' THEN 0.3 ELSE NULL END"
    )
    with op.batch_alter_table('suggestions', schema=None) as batch_op:
        batch_op.drop_column('confidence')
        batch_op.alter_column('confidence_score', new_column_name='confidence',
               existing_type=sa.FLOAT(), existing_nullable=True)

    op.execute("UPDATE runs SET status = 'failed' WHERE status = 'completed_with_errors'")
    with op.batch_alter_table('runs', schema=None) as batch_op:
        batch_op.alter_column('status',
               existing_type=sa.String(length=32),
               type_=sa.VARCHAR(length=16),
               existing_nullable=False)
