"""The migration that turns the culture_plan target's stored labels ("plan #3: N 12 · P 4 ·
K 9 g/m²") into {"plan_id": 3}, and back on downgrade, leaving every other row as it was."""

import importlib.util
from pathlib import Path

import sqlalchemy as sa
from alembic.migration import MigrationContext
from alembic.operations import Operations

MIGRATION = next((Path(__file__).parents[2] / "migrations" / "versions").glob("48367ebbafbc_*.py"))


def load_migration():
    spec = importlib.util.spec_from_file_location("plan_value_migration", MIGRATION)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_stored_plan_labels_become_plan_ids_and_come_back(tmp_path):
    migration = load_migration()
    changes, suggestions, plans = migration.changes, migration.suggestions, migration.plans
    engine = sa.create_engine(f"sqlite:///{tmp_path / 'old.db'}")
    first = "plan #3: N 12 · P 4 · K 9 g/m²"
    second = "plan #7: N 1.5 · P — · K 2 g/m²"
    with engine.begin() as connection:
        for table, columns in [
            ("changes", "target_type TEXT, old_value JSON, new_value JSON"),
            ("suggestions", "target_type TEXT, current_value JSON, suggested_value JSON"),
            ("fertilizer_plans", "plan JSON"),
        ]:
            connection.exec_driver_sql(f"CREATE TABLE {table} (id INTEGER PRIMARY KEY, {columns})")
        connection.execute(
            plans.insert(),
            [
                {"id": 3, "plan": {"totals": {"N": 12.0, "P": 4.0, "K": 9.0}}},
                {"id": 7, "plan": {"totals": {"N": 1.5, "P": None, "K": 2.0}}},
            ],
        )
        connection.execute(
            changes.insert(),
            [
                {"target_type": "culture_plan", "old_value": None, "new_value": first},
                {"target_type": "culture_plan", "old_value": first, "new_value": second},
                {"target_type": "culture", "old_value": "plan #3: x", "new_value": 4},
            ],
        )
        connection.execute(
            suggestions.insert(),
            [{"target_type": "culture_plan", "current_value": first, "suggested_value": second}],
        )

        def stored():
            return (
                connection.execute(
                    sa.select(changes.c.old_value, changes.c.new_value).order_by(changes.c.id)
                ).all(),
                connection.execute(
                    sa.select(suggestions.c.current_value, suggestions.c.suggested_value)
                ).all(),
            )

        before = stored()
        with Operations.context(MigrationContext.configure(connection)):
            migration.upgrade()
            assert stored() == (
                [
                    (None, {"plan_id": 3}),
                    ({"plan_id": 3}, {"plan_id": 7}),
                    ("plan #3: x", 4),  # another target's values stay as they are
                ],
                [({"plan_id": 3}, {"plan_id": 7})],
            )
            migration.downgrade()
            assert stored() == before
