"""culture plan values name the plan by id: {"plan_id": 3}, not "plan #3: N 12 · P 4 · K 9 g/m²"

Revision ID: 48367ebbafbc
Revises: 3c99f3dba70e
Create Date: 2026-11-28 01:00:00.000000

A data migration: the audit rows and suggestions of the culture_plan target held the plan as
a label; they now hold {"plan_id": n}. Downgrade writes the labels back from the plans.
"""
import re

from alembic import op
import sqlalchemy as sa


# revision identifiers, used by Alembic.
revision = '48367ebbafbc'
down_revision = '3c99f3dba70e'
branch_labels = None
depends_on = None

TARGET = 'culture_plan'
LABEL = re.compile(r'^plan #(\d+)(:|$)')


def _values(name, *value_columns):
    """Only the columns read and written; JSON, so values come and go as Python values."""
    json_columns = [sa.column(c, sa.JSON) for c in value_columns]
    return sa.table(name, sa.column('id', sa.Integer), sa.column('target_type', sa.String), *json_columns)


changes = _values('changes', 'old_value', 'new_value')
suggestions = _values('suggestions', 'current_value', 'suggested_value')
plans = sa.table('fertilizer_plans', sa.column('id', sa.Integer), sa.column('plan', sa.JSON))


def _rewrite(table, names, convert):
    connection = op.get_bind()
    columns = [table.c[n] for n in names]
    rows = connection.execute(
        sa.select(table.c.id, *columns).where(table.c.target_type == TARGET)
    ).all()
    for row in rows:
        values = {n: convert(getattr(row, n)) for n in names}
        if any(values[n] != getattr(row, n) for n in names):
            connection.execute(table.update().where(table.c.id == row.id).values(**values))


def _as_id(value):
    """"plan #3: N 12 · P 4 · K 9 g/m²" as {"plan_id": 3}; anything else as it is."""
    found = LABEL.match(value) if isinstance(value, str) else None
    return {'plan_id': int(found.group(1))} if found else value


def _label(plan):
    totals = (plan or {}).get('totals') or {}
    shown = ('—' if totals.get(e) is None else f'{totals[e]:g}' for e in ('N', 'P', 'K'))
    return 'N {} · P {} · K {} g/m²'.format(*shown)


def upgrade():
    _rewrite(changes, ('old_value', 'new_value'), _as_id)
    _rewrite(suggestions, ('current_value', 'suggested_value'), _as_id)


def downgrade():
    labels = {
        plan_id: _label(plan) for plan_id, plan in op.get_bind().execute(sa.select(plans.c.id, plans.c.plan))
    }

    def as_label(value):
        if not (isinstance(value, dict) and set(value) == {'plan_id'}):
            return value
        plan_id = value['plan_id']
        return f'plan #{plan_id}: {labels[plan_id]}' if plan_id in labels else f'plan #{plan_id}'

    _rewrite(changes, ('old_value', 'new_value'), as_label)
    _rewrite(suggestions, ('current_value', 'suggested_value'), as_label)
