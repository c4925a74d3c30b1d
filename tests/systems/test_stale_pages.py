"""Stale values on the system page, its drawer and the API: a fuel cost applied from 1,10 €/L
is shown stale once the price is 1,30 €/L, never reviewed; undoing the change clears it;
"Recalculate stale" proposes the new value, reviewed as any suggestion."""

import re

import pytest
from sqlalchemy import select

from tests.support.tables import run_here
from tests.systems.test_stale import place, rotation
from tests.systems.test_system_api import api_client, create
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Change, Suggestion
from webapp.systems.document import value_entry, value_path
from webapp.systems.models import System
from webapp.systems.runs import SystemCalculation
from webapp.systems.stale import basis

pytestmark = pytest.mark.usefixtures("idle_queue")

WORDS = "stale: Prix du GNR 1,10 €/L → 1,30 €/L"


def worked(run_id):
    return run_here(db.session.get(Run, run_id), SystemCalculation())


def apply(reviewer, run, path):
    query = select(Suggestion).where(Suggestion.run_id == run.id, Suggestion.field == path)
    suggestion = db.session.scalars(query).one()
    answer = reviewer.post(
        f"/api/v1/runs/{run.id}/apply",
        json={"suggestions": [suggestion.id]},
        headers=reviewer.headers,
    )
    assert answer.status_code == 200, answer.get_json()
    return suggestion


def set_price(editor, system_id, price):
    answer = editor.put(
        f"/api/v1/systems/{system_id}/assumptions",
        json={"assumptions": f"- **Prix du GNR**: {price}\n"},
        headers=editor.headers,
    )
    assert answer.status_code == 200, answer.get_json()
    query = select(Change.group_id).where(Change.field == "assumptions")
    return db.session.scalars(query.order_by(Change.id.desc())).first()


def stale_answer(client, system_id):
    answer = client.get(f"/api/v1/systems/{system_id}/stale")
    assert answer.status_code == 200
    return answer.get_json()


def rotation_system(client_as):
    """The test rotation as a new system, stating 1,10 €/L: its clients, id, and the place of
    its second intervention's fuel cost."""
    editor, reviewer = api_client(client_as, "editor"), api_client(client_as, "reviewer")
    document = rotation()
    system_id = create(editor, document=document).get_json()["id"]
    step, work = place(document)
    path = value_path(step["id"], work["id"], "coutGnr")
    return editor, reviewer, system_id, path, step, work


@pytest.fixture
def fuel_cost_applied(client_as):
    """A system whose second intervention's fuel cost, calculated at 1,10 €/L, is applied."""
    editor, reviewer, system_id, path, step, work = rotation_system(client_as)
    started = editor.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=editor.headers)
    run = worked(started.get_json()["run_id"])
    assert apply(reviewer, run, path).suggested_value == 22
    return editor, reviewer, system_id, path, step, work


def test_a_changed_price_shows_the_value_stale_and_undo_clears_it(fuel_cost_applied):
    editor, reviewer, system_id, path, step, work = fuel_cost_applied
    entry = value_entry(db.session.get(System, system_id).document, path)
    assert basis(entry)["assumption:Prix GNR"] == "1,10 €/L"  # remembered on apply
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Recalculate stale (0)" in page and 'state-stale" title=' not in page
    group = set_price(editor, system_id, "1,30 €/L")

    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Recalculate stale (1)" in page and 'id="stale-count"' in page
    assert "1 value is stale" in page
    # Stale first, whatever the confidence it was applied with.
    assert re.search(rf'class="num value-cell state-stale[^"]*" title="{re.escape(WORDS)}"', page)
    assert f", {WORDS}</span>" in page  # the words a screen reader reads with the value
    assert stale_answer(editor, system_id) == {
        "count": 1,
        "stale": [
            {
                "path": path,
                "label": f"{work['name']} ({step['name']}): Fuel cost",
                "changes": [{"input": "Prix du GNR", "then": "1,10 €/L", "now": "1,30 €/L"}],
            }
        ],
    }
    drawer = editor.get(
        f"/systems/{system_id}/cell/drawer",
        query_string={"step": step["id"], "intervention": work["id"], "key": "coutGnr"},
    ).get_data(as_text=True)
    assert 'id="drawer-stale"' in drawer and WORDS in drawer
    assert "<td>1,10 €/L</td><td>1,30 €/L</td>" in drawer
    assert '<strong id="drawer-stale-now">26</strong>' in drawer  # 20 L/ha × 1,30 €/L
    assert ">Approve</button>" not in drawer  # approving would not make it current

    undone = reviewer.post(f"/api/v1/undo/{group}", headers=reviewer.headers)
    assert undone.status_code == 200, undone.get_json()
    assert stale_answer(editor, system_id)["count"] == 0
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert WORDS not in page and "Recalculate stale (0)" in page


def test_recalculate_stale_proposes_the_new_value_for_review(fuel_cost_applied):
    editor, reviewer, system_id, path, _step, _work = fuel_cost_applied
    token = editor.csrf_token(f"/systems/{system_id}")
    nothing = editor.post(f"/systems/{system_id}/recalculate-stale", data={"csrf_token": token})
    assert nothing.status_code == 302 and nothing.location.endswith(f"/systems/{system_id}#grid")
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Nothing to recalculate: no value is stale" in page
    refused = editor.post(f"/api/v1/systems/{system_id}/recalculate-stale", headers=editor.headers)
    assert refused.status_code == 422
    assert refused.get_json()["error"]["code"] == "nothing_to_calculate"

    set_price(editor, system_id, "1,30 €/L")
    started = editor.post(f"/systems/{system_id}/recalculate-stale", data={"csrf_token": token})
    assert started.status_code == 302 and "/runs/" in started.location
    run = worked(int(started.location.rsplit("/", 1)[1]))
    assert run.items == [path] and run.title.startswith("Recalculate")
    # Until the new value is applied, the old one stays, stale.
    assert stale_answer(editor, system_id)["count"] == 1
    assert apply(reviewer, run, path).suggested_value == 26
    assert value_entry(db.session.get(System, system_id).document, path)["value"] == 26
    assert stale_answer(editor, system_id)["count"] == 0
    page = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Recalculate stale (0)" in page and WORDS not in page


def test_a_value_a_person_types_over_a_stale_one_is_theirs(fuel_cost_applied):
    editor, _reviewer, system_id, path, step, work = fuel_cost_applied
    set_price(editor, system_id, "1,30 €/L")
    assert stale_answer(editor, system_id)["count"] == 1
    body = {"step_id": step["id"], "intervention_id": work["id"], "key": "coutGnr", "value": 30}
    typed = editor.post(f"/api/v1/systems/{system_id}/values", json=body, headers=editor.headers)
    assert typed.status_code == 200, typed.get_json()
    assert stale_answer(editor, system_id)["count"] == 0
    assert path not in editor.get(f"/systems/{system_id}").get_data(as_text=True)


def test_one_cell_calculated_and_applied_remembers_its_inputs_once(client_as):
    editor, reviewer, system_id, path, step, work = rotation_system(client_as)
    body = {"step_id": step["id"], "intervention_id": work["id"], "key": "coutGnr"}
    url = f"/api/v1/systems/{system_id}/calculate"
    started = editor.post(url, json=body, headers=editor.headers)
    assert started.status_code == 202, started.get_json()
    run = worked(started.get_json()["run_id"])
    apply(reviewer, run, path)
    entry = value_entry(db.session.get(System, system_id).document, path)
    answers = [m for m in entry["conversation"] if m["role"] == "assistant"]
    assert len(answers) == 1 and answers[0]["value"] == 22  # written by the run, not again
    assert basis(entry) == answers[0]["inputs"]
    set_price(editor, system_id, "1,30 €/L")
    assert stale_answer(editor, system_id)["stale"][0]["path"] == path
