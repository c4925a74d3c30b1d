"""The bulk paths apply and undo rely on, on whichever database the suite runs against."""

import pytest
from sqlalchemy import bindparam, delete, func, select

from webapp.database import among, bulk_insert, execute_many, insert_unless_there, utcnow
from webapp.extensions import db
from webapp.registry.models import EvidenceAnswer
from webapp.review.models import Change


def change(n: int, old, new) -> dict:
    return {
        "target_type": "test",
        "target_id": n,
        "field": "steps[0].values.fuel",
        "old_value": old,
        "new_value": new,
        "source": "apply",
        "group_id": "g1",
        "run_id": None,
        "user_id": None,
        "at": utcnow(),
        "comment": None,
        "suggestion_id": None,
    }


def test_bulk_insert_keeps_json_values_as_they_were(app):
    values = [None, 0, 2.5, "Kopfsalat – “Maikönig”", [1, {"a": None}], {"min": 50, "max": 80}]
    bulk_insert(db.session, Change.__table__, [change(n, v, v) for n, v in enumerate(values)])
    db.session.commit()
    stored = db.session.execute(
        select(Change.target_id, Change.old_value, Change.new_value).order_by(Change.target_id)
    ).all()
    assert [(old, new) for _n, old, new in stored] == [(v, v) for v in values]
    bulk_insert(db.session, Change.__table__, [])  # nothing to insert is no statement


def test_one_update_for_many_rows_takes_each_rows_values_and_the_fixed_ones(app):
    bulk_insert(db.session, Change.__table__, [change(n, None, n) for n in range(1, 4)])
    db.session.commit()
    changes = Change.__table__
    statement = (
        changes.update()
        .where(changes.c.target_id == bindparam("row_id"))
        .values(new_value=bindparam("value"), comment="edited")  # comment: the same for all
    )
    values = [{"min": 1.5, "note": "Kopfsalat – “Maikönig”"}, None, [2, "x"]]
    execute_many(
        db.session, statement, [{"row_id": n, "value": v} for n, v in enumerate(values, 1)]
    )
    execute_many(db.session, statement, [])  # nothing to update is no statement
    db.session.commit()
    stored = db.session.execute(
        select(Change.new_value, Change.comment).order_by(Change.target_id)
    ).all()
    assert stored == [(v, "edited") for v in values]


def test_among_picks_every_id_however_many(app):
    bulk_insert(db.session, Change.__table__, [change(n, None, n) for n in range(1, 1202)])
    db.session.commit()
    wanted = set(range(1, 1202, 2)) | {5000}
    picked = among(db.session, Change.target_id, wanted)
    assert len(picked.compile(db.engine).params) == 1  # one parameter, however many ids
    found = db.session.scalars(select(Change.target_id).where(picked))
    assert set(found) == wanted - {5000}
    none = among(db.session, Change.target_id, [])
    assert db.session.scalars(select(Change.target_id).where(none)).all() == []
    db.session.execute(delete(Change).where(none))  # a write over no ids changes nothing
    assert db.session.scalar(select(func.count()).select_from(Change)) == 1201


def test_a_row_already_there_is_kept_and_no_error_is_raised(app):
    # Two runs caching the same answer at once: the second write finds the first's row.
    table = EvidenceAnswer.__table__
    first = {"key": "k" * 64, "answer": {"snippets": []}, "cost_usd": 0.5, "created_at": utcnow()}
    insert_unless_there(db.session, table, first)
    insert_unless_there(db.session, table, first | {"answer": {"snippets": [1]}, "cost_usd": 1.0})
    db.session.commit()
    kept = db.session.scalars(select(EvidenceAnswer)).all()
    assert [(a.answer, a.cost_usd) for a in kept] == [({"snippets": []}, 0.5)]


def test_bulk_insert_keeps_timestamps_and_order_of_columns(app):
    # The rows name their columns in another order than the table's.
    rows = [dict(reversed(change(n, n, None).items())) for n in range(3)]
    bulk_insert(db.session, Change.__table__, rows)
    db.session.commit()
    stored = db.session.scalars(select(Change).order_by(Change.target_id)).all()
    assert [(c.target_id, c.old_value, c.new_value) for c in stored] == [
        (0, 0, None),
        (1, 1, None),
        (2, 2, None),
    ]
    assert [c.at for c in stored] == [row["at"] for row in rows]
    assert all(c.at.tzinfo is not None for c in stored)


def test_bulk_insert_applies_python_defaults_of_columns_left_out(app):
    row = change(7, None, 1)
    del row["at"]
    if db.engine.dialect.name == "postgresql":
        pytest.skip("COPY takes only the columns named, as bulk_insert says")
    before = utcnow()
    bulk_insert(db.session, Change.__table__, [row])
    db.session.commit()
    assert db.session.scalars(select(Change.at)).one() >= before
