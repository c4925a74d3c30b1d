"""The review core on data no one here wrote: the public FAO yield sample (tests/tables/data,
see its README) as a table, a computation into t/ha, applied and undone through the one API."""

from pathlib import Path

from tests.support.tables import run_here
from webapp.extensions import db
from webapp.review.models import Suggestion
from webapp.tables.catalog import add_column, import_csv
from webapp.tables.models import TableRow
from webapp.tables.runs import start_enrichment

FAO_SAMPLE = Path(__file__).parents[1] / "tables" / "data" / "fao_yield_sample.csv"


def test_fao_yields_in_t_per_ha_are_applied_and_undone_through_the_api(
    client_as, make_user, idle_queue
):
    table = import_csv("FAO yields", FAO_SAMPLE.read_text(encoding="utf-8"), {}, None)
    add_column(table, "Yield", "number", unit="t/ha")
    db.session.commit()
    run = start_enrichment(
        table, "Yield", "computation", {"formula": "{hg/ha_yield} / 10000"}, None,
        make_user("editor"),
    )  # fmt: skip
    run = run_here(run)
    assert db.session.query(Suggestion).filter_by(run_id=run.id).count() == 34
    reviewer = client_as("reviewer")
    listed = reviewer.get(f"/api/v1/runs/{run.id}/suggestions").get_json()
    # Rows go by what people call them (the first text column), never "Row 17".
    # Rows are named by their key columns: country, crop and year.
    names = {item["name"] for item in listed["targets"]}
    assert {name.split(" · ")[0] for name in names} == {"Albania", "Algeria", "Angola"}
    assert "Albania · Wheat · 2013" in names

    headers = {"X-CSRFToken": reviewer.csrf_token("/")}
    applied = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"all_valid": True}, headers=headers
    )
    body = applied.get_json()
    assert applied.status_code == 200 and len(body["applied"]) == 34
    keys = {c.name: c.key for c in table.columns}
    db.session.expire_all()
    by_place = {
        (r.cells[keys["Area"]], r.cells[keys["Item"]], r.cells[keys["Year"]]): r.cells[
            keys["Yield"]
        ]
        for r in db.session.query(TableRow).filter_by(table_id=table.id)
    }
    # FAOSTAT gives Albania's 1990 maize as 36,613 hg/ha: 3.6613 t/ha.
    assert by_place[("Albania", "Maize", 1990)] == 3.6613
    undone = reviewer.post(f"/api/v1/undo/{body['undo_group']}", headers=headers)
    assert undone.status_code == 200 and len(undone.get_json()["restored"]) == 34
    db.session.expire_all()
    assert all(
        keys["Yield"] not in r.cells
        for r in db.session.query(TableRow).filter_by(table_id=table.id)
    )
