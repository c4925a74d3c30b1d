"""A grid cell's drawer: the value, its review state and who made it, its conversation, the
assumptions in effect, how its latest suggestion was made, and approve for editors."""

import copy
import json
import re
from datetime import UTC, datetime

import pytest
from markupsafe import escape
from sqlalchemy import select

from tests.systems.test_calculation_runs import started, suggestions
from tests.systems.test_system_api import api_client, create, itinera
from webapp.extensions import db
from webapp.review.models import Change
from webapp.systems.cell_details import Made, made_by, thread
from webapp.systems.document import flat_values, validate_document, value_entry, value_path
from webapp.systems.models import System

pytestmark = pytest.mark.usefixtures("idle_queue")

DOCUMENT = itinera()
STEP = DOCUMENT["steps"][0]
LABOUR, HARVEST, DIGESTATE = STEP["interventions"][:3]
CONVERSATION = [
    {"role": "system", "content": "Calcul de l'IFT pour Labour", "timestamp": "2026-01-13T14:00Z"},
    {
        "role": "assistant",
        "content": json.dumps(
            {
                "value": 0.83,
                "unit": "IFT",
                "confidence": "high",
                "calculation_steps": ["IFT = 5 / 6 = 0.83"],
                "sources": [
                    {"title": "Base Ephy", "url": "https://ephy.anses.fr", "claim": "6 L/ha"}
                ],
            }
        ),
        "timestamp": "2026-01-13T14:00:02Z",
    },
    {
        "role": "user",
        "content": "<script>alert('x')</script> la charrue n'a que 4 corps",
        "action": "refine",
        "previous_value": 0.83,
        "new_value": 1.66,
        "timestamp": "2026-01-13T14:01:00Z",
    },
]


def imported(client_as, **values):
    """A system whose Labour holds these values ({key: entry}), imported by an editor."""
    document = copy.deepcopy(DOCUMENT)
    work = document["steps"][0]["interventions"][0]
    work["values"] = [{"key": k} | entry for k, entry in values.items()]
    editor = api_client(client_as, "editor")
    return editor, create(editor, document=document).get_json()["id"]


def drawer_url(system_id, key, work=LABOUR, step=STEP):
    return f"/systems/{system_id}/cell/drawer?step={step['id']}&intervention={work['id']}&key={key}"


def fields(key, work=LABOUR):
    return {"step": STEP["id"], "intervention": work["id"], "key": key}


def test_a_calculated_and_applied_value_shows_its_steps_and_sources(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    path = value_path(STEP["id"], HARVEST["id"], "gnr")
    fuel = suggestions(run)[path]
    reviewer = api_client(client_as, "reviewer")
    applied = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"suggestions": [fuel.id]}, headers=reviewer.headers
    )
    assert applied.status_code == 200, applied.get_json()
    page = client_as("viewer").get(drawer_url(system_id, "gnr", HARVEST)).get_data(as_text=True)
    assert f"{HARVEST['name']} › Fuel (L/ha)" in page
    assert "confidence · not reviewed" in page and "applied from a suggestion by" in page
    assert "applied</span>" in page and f'href="/review/runs/{run.id}"' in page
    for step in run.results[path]["calculation_steps"]:
        assert str(escape(step)) in page
    source = fuel.evidence[0]
    assert str(escape(source["title"])) in page
    if source["source_url"]:
        assert f'href="{escape(source["source_url"])}"' in page


def test_an_imported_value_not_reviewed_shows_its_conversation_escaped(client_as):
    entry = {"value": 0.83, "reviewed": False, "confidence": "high"}
    _editor, system_id = imported(client_as, ift=entry | {"conversation": CONVERSATION})
    page = client_as("viewer").get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert "prediction · high confidence · not reviewed" in page
    assert "imported by" in page and "0.83</strong> IFT" in page
    assert "<script>alert" not in page and "&lt;script&gt;alert(" in page
    assert "asked to refine (0.83 → 1.66)" in page
    # The assistant's JSON answer is read, never shown as it is stored.
    assert "IFT = 5 / 6 = 0.83" in page and '<a href="https://ephy.anses.fr"' in page
    assert "calculation_steps" not in page and "{&#34;" not in page


def test_htmx_gets_the_drawer_and_a_plain_request_the_page(client_as, htmx_client_as):
    entry = {"value": 1, "reviewed": False, "conversation": CONVERSATION}
    _editor, system_id = imported(client_as, ift=entry)
    fragment = htmx_client_as("viewer").get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert "IFT = 5 / 6 = 0.83" in fragment
    assert "<html" not in fragment and 'role="dialog"' in fragment
    assert '<h2 id="drawer-title" tabindex="-1">Labour › Treatment frequency index' in fragment
    page = client_as("viewer").get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert page.startswith("<!doctype html>") and '<h1 id="drawer-title"' in page
    assert "Back to the grid" in page


def test_approve_marks_reviewed_and_a_reviewer_undoes_it(client_as, htmx_client_as):
    _editor, system_id = imported(client_as, ift={"value": 0.8, "reviewed": False})
    path = value_path(STEP["id"], LABOUR["id"], "ift")
    htmx = htmx_client_as("editor")
    drawer = htmx.get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert ">Approve</button>" in drawer and "Recalculate</button>" in drawer
    assert 'name="recalculate" value="1"' in drawer
    answer = htmx.post(
        f"/systems/{system_id}/cell/approve",
        data=fields("ift"),
        headers={"X-CSRFToken": htmx.csrf_token("/account")},
    )
    body = answer.get_data(as_text=True)
    assert answer.status_code == 200 and "is marked reviewed" in body
    assert 'hx-swap-oob="true"' in body and "state-reviewed" in body
    assert ">Approve</button>" not in body and "approved by" in body
    system = db.session.get(System, system_id)
    assert flat_values(system.document)[path + ".reviewed"] is True
    change = db.session.scalars(
        select(Change).where(Change.field == path + ".reviewed").order_by(Change.id)
    ).all()
    assert [(c.old_value, c.new_value, c.source) for c in change[-1:]] == [(False, True, "manual")]
    # Approving again changes nothing; approving an empty cell is refused.
    again = htmx.post(
        f"/systems/{system_id}/cell/approve",
        data=fields("gnr"),
        headers={"X-CSRFToken": htmx.csrf_token("/account")},
    )
    assert again.status_code == 422 and "There is no value to approve" in again.get_data(
        as_text=True
    )
    reviewer = client_as("reviewer")
    system_page = reviewer.get(f"/systems/{system_id}").get_data(as_text=True)
    assert "Labour (Orge + Lupin): Treatment frequency index, reviewed" in system_page
    undo_url = re.search(r'action="(/review/undo/\w+)"', system_page).group(1)
    assert reviewer.submit(undo_url, page=f"/systems/{system_id}").status_code == 302
    db.session.expire_all()
    values = flat_values(db.session.get(System, system_id).document)
    assert values[path] == 0.8 and values[path + ".reviewed"] is False


def test_approve_without_javascript_comes_back_to_the_drawer_page(client_as):
    _editor, system_id = imported(client_as, ift={"value": 0.8, "reviewed": False})
    plain = client_as("editor")
    answer = plain.submit(f"/systems/{system_id}/cell/approve", fields("ift"))
    assert answer.status_code == 302 and "/cell/drawer?" in answer.headers["Location"]
    page = plain.get(answer.headers["Location"]).get_data(as_text=True)
    assert "is marked reviewed" in page and "reviewed by a person" in page


def test_viewers_see_no_actions_and_may_not_approve(client_as):
    _editor, system_id = imported(client_as, ift={"value": 0.8, "reviewed": False})
    viewer = client_as("viewer")
    page = viewer.get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert "Approve" not in page and "<form" not in page.split('id="drawer"')[1]
    assert viewer.submit(f"/systems/{system_id}/cell/approve", fields("ift")).status_code == 403
    grid = viewer.get(f"/systems/{system_id}").get_data(as_text=True)
    # A viewer opens the drawer of a value; an empty cell has nothing to tell them.
    assert grid.count('class="cell-open"') == 1


def test_an_unknown_cell_is_404(client_as):
    _editor, system_id = imported(client_as, ift={"value": 0.8})
    viewer = client_as("viewer")
    assert viewer.get(f"/systems/{system_id}/cell/drawer?step=nowhere&key=ift").status_code == 404
    assert viewer.get(drawer_url(system_id, "totalProduits")).status_code == 404
    assert viewer.get("/systems/99999/cell/drawer?step=x&key=ift").status_code == 404
    data = fields("ift") | {"step": "nowhere"}
    assert client_as("editor").submit(f"/systems/{system_id}/cell/approve", data).status_code == 404


def test_an_empty_cell_says_what_its_calculator_needs(client_as):
    _editor, system_id = imported(client_as)
    editor = client_as("editor")
    page = editor.get(drawer_url(system_id, "mecanisation", work=HARVEST)).get_data(as_text=True)
    assert "The calculator needs:" in page and "no value yet" in page
    assert "Calculate</button>" in page and 'name="recalculate"' not in page
    assert "Approve</button>" not in page
    assert f'action="/systems/{system_id}/cell/calculate"' in page


def test_the_assumptions_in_effect_say_their_level_and_flag_two_levels(client_as):
    document = copy.deepcopy(DOCUMENT)
    document["assumptions"] = "- **Prix GNR**: 0,80 €/L"
    step = document["steps"][0]
    step["assumptions"] = "- **Sol**: limoneux\n- **Puissance**: 120 ch"
    step["interventions"][2]["assumptions"] = "- **Dose**: 10 t/ha\n- **Puissance**: 150 ch"
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=document).get_json()["id"]
    page = editor.get(drawer_url(system_id, "azoteOrganique", work=DIGESTATE)).get_data(
        as_text=True
    )
    rows = dict(re.findall(r'<th scope="row">([^<]+)</th>\s*<td>(.*?)</td>', page, re.S))
    assert rows["Prix GNR"].startswith("0,80 €/L") and rows["Sol"] == "limoneux"
    assert rows["Puissance"].startswith("150 ch")
    assert "set differently: the step says “120 ch”" in rows["Puissance"]
    # The description's 7T/ha is a proposal the intervention's own Dose overrides.
    assert rows["Dose"].startswith("10 t/ha") and "the description proposes “7" in rows["Dose"]
    assert '<span class="proposal">proposed from the description</span>' in page
    # Each level's text is a link away, for editors.
    links = page.split('id="drawer-edit-assumptions"')[1].split("</p>")[0]
    assert links.count(f'href="/systems/{system_id}/assumptions') == 3
    assert f"intervention={DIGESTATE['id']}" in links


def test_a_conversation_of_any_shape_reads_without_failing():
    said = thread(
        [
            "not a message",
            {"role": "assistant", "content": "{not json", "sources": "Base Ephy"},
            {"role": "assistant", "content": '["a", "list"]', "steps": 3},
            {"role": "robot", "content": 12, "caveats": [{"message": "low data"}, 4]},
            {"role": "assistant", "content": json.dumps({"value": "beaucoup", "sources": [1]})},
        ]
    )
    assert [s.role for s in said] == ["Assistant", "Assistant", "Message", "Assistant"]
    assert said[0].text == "{not json" and said[0].sources == []
    assert said[1].text == '["a", "list"]'
    assert said[2].text == "" and said[2].caveats == ["low data"]
    assert said[3].value == "beaucoup" and said[3].sources == []
    assert thread(None) == [] and thread({"role": "user"}) == []


def test_who_made_a_value_and_who_approved_it():
    path = "steps[s].interventions[i].values.ift"
    at = datetime(2026, 11, 26, 9, 0, tzinfo=UTC)
    later = datetime(2026, 11, 26, 10, 0, tzinfo=UTC)
    rows = [
        Made(path + ".reviewed", "manual", None, later, True, "b"),
        Made(path + ".reviewed", "import", "Ann", at, False, "a"),
        Made(path, "import", "Ann", at, 0.8, "a"),
    ]
    assert made_by(path, rows) == [
        "imported by Ann on 2026-11-26 09:00 UTC",
        "approved on 2026-11-26 10:00 UTC",
    ]
    # An edit sets the value and its status together: it is not also an approval.
    edit = [
        Made(path, "manual", "Bo", later, 2, "c"),
        Made(path + ".reviewed", "manual", "Bo", later, True, "c"),
    ]
    assert made_by(path, edit + rows) == ["entered by Bo on 2026-11-26 10:00 UTC"]
    assert made_by(path, []) == []


def test_a_step_value_has_its_drawer_with_the_step_and_system_assumptions(client_as):
    document = copy.deepcopy(DOCUMENT)
    document["assumptions"] = "- **Sol**: argileux"
    document["steps"][0]["stepValues"] = [{"key": "rendement", "value": 6.5}]
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=document).get_json()["id"]
    url = f"/systems/{system_id}/cell/drawer?step={STEP['id']}&intervention=&key=rendement"
    page = editor.get(url).get_data(as_text=True)
    assert "Orge + Lupin › Yield" in page and "6.5</strong>" in page
    assert "argileux" in page and "the step&#39;s name (its crop)" in page
    # A step's value has no calculator: it is set or approved, never calculated.
    assert ">Approve</button>" in page and "Calculate</button>" not in page


def test_approving_is_said_in_the_conversation_which_keeps_its_system_message(client_as):
    many = [
        CONVERSATION[0],
        *(
            {"role": "user", "content": f"note {n}", "timestamp": "2026-01-13T14:02Z"}
            for n in range(12)
        ),
    ]
    entry = {"value": 0.8, "reviewed": False, "conversation": many}
    _editor, system_id = imported(client_as, ift=entry)
    editor = client_as("editor")
    assert editor.submit(f"/systems/{system_id}/cell/approve", fields("ift")).status_code == 302
    path = value_path(STEP["id"], LABOUR["id"], "ift")
    system = db.session.get(System, system_id)
    conversation = value_entry(system.document, path)["conversation"]
    assert len(conversation) == 10 and conversation[0] == CONVERSATION[0]
    last = conversation[-1]
    assert (last["role"], last["action"], last["previous_value"], last["new_value"]) == (
        "user",
        "approve",
        0.8,
        0.8,
    )
    page = editor.get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert "approved the value" in page and "0.8 → 0.8" not in page


def test_approving_a_value_without_a_conversation_begins_one_naming_it(client_as):
    _editor, system_id = imported(client_as, ift={"value": 0.8, "reviewed": False})
    client_as("editor").submit(f"/systems/{system_id}/cell/approve", fields("ift"))
    path = value_path(STEP["id"], LABOUR["id"], "ift")
    conversation = value_entry(db.session.get(System, system_id).document, path)["conversation"]
    assert [(m["role"], m.get("action")) for m in conversation] == [
        ("system", None),
        ("user", "approve"),
    ]
    assert conversation[0]["content"] == "Labour (Orge + Lupin): Treatment frequency index."


def test_an_edit_stored_under_its_earlier_name_reads_as_the_seeds():
    earlier = {"role": "user", "content": "Set to 2.", "action": "edit", "timestamp": "x"}
    assert thread([earlier])[0].action == "edited the value"
    document = copy.deepcopy(DOCUMENT)
    work = document["steps"][0]["interventions"][0]
    work["values"] = [{"key": "ift", "value": 2, "conversation": [earlier]}]
    stored = validate_document(document)
    said = stored["steps"][0]["interventions"][0]["values"][0]["conversation"][0]
    assert said["action"] == "manual_edit"


def test_an_empty_value_says_who_would_work_it_out(client_as, monkeypatch):
    """A calculator's key says a calculator works it out; a key only the model proposes says
    so — never that a calculator can."""
    from dataclasses import replace

    from flask import current_app

    from webapp.systems.calculators import CALCULATORS
    from webapp.systems.runs import MODEL_KEYS

    settings = replace(current_app.config["FURROW"], provider="openai", openai_api_key="sk-t")
    monkeypatch.setitem(current_app.config, "FURROW", settings)
    _editor, system_id = imported(client_as)
    editor = client_as("editor")
    model_only = next(k for k in MODEL_KEYS if k not in CALCULATORS)
    asked = editor.get(drawer_url(system_id, model_only)).get_data(as_text=True)
    assert "no calculator works this value out; Calculate asks the model" in asked
    assert "a calculator can work this value out" not in asked
    calculated = editor.get(drawer_url(system_id, "ift")).get_data(as_text=True)
    assert "a calculator can work this value out" in calculated or "needs:" in calculated
