"""Editing a system on its page with the test client: assumptions per level and the proposals of
a description, steps and interventions added, edited and deleted (the history keeps the values),
the system and its farm renamed and deleted, the farm list paged; editors only, CSRF checked."""

import html
import re

import pytest
from sqlalchemy import select

from tests.support.tables import run_here
from tests.systems.test_calculation_runs import started
from tests.systems.test_system_api import api_client, create
from tests.systems.test_system_pages import upload
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.review.models import Change, Suggestion
from webapp.systems import catalog
from webapp.systems.demo import DEMO_DOCUMENT
from webapp.systems.document import ASSUMPTIONS_LIMIT
from webapp.systems.models import VALUE_TARGET, Farm, System
from webapp.systems.runs import SystemCalculation


def system():
    db.session.expire_all()
    return db.session.scalars(select(System)).one()


def text(answer) -> str:
    return html.unescape(answer.get_data(as_text=True))


def demo(editor) -> str:
    farm = catalog.create_farm("Ferme de démonstration")
    made, _saved = catalog.import_system(farm, "", DEMO_DOCUMENT, editor.user)
    db.session.commit()
    return f"/systems/{made.id}"


def test_each_level_s_assumptions_are_edited_and_a_long_text_is_kept(client_as):
    editor = client_as("editor")
    url = upload(editor).headers["Location"]
    step = system().document["steps"][0]
    work = step["interventions"][0]
    saved = editor.submit(
        f"{url}/assumptions",
        {"assumptions": "- **Sol**: limon\n\n<script>alert(1)</script>"},
        page=url,
    )
    assert saved.status_code == 302 and saved.headers["Location"].endswith("#assumptions")
    page = editor.get(url).get_data(as_text=True)
    assert "Saved the assumptions of the system." in page
    assert "<strong>Sol</strong>: limon" in page and "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;</textarea>" in page
    fields = {"step": step["id"], "intervention": work["id"], "assumptions": "- **Dose**: 3 L/ha"}
    saved = editor.submit(f"{url}/assumptions", fields, page=url)
    assert saved.headers["Location"].endswith(f"#intervention-{work['id']}")
    assert "Saved the assumptions of the intervention “Labour” (Orge + Lupin)." in text(
        editor.get(url)
    )
    document = system().document
    assert document["steps"][0]["interventions"][0]["assumptions"] == "- **Dose**: 3 L/ha"
    assert document["steps"][0]["interventions"][0]["updatedAt"] == document["updatedAt"]
    too_long = "- **Note**: " + "x" * ASSUMPTIONS_LIMIT
    refused = editor.submit(
        f"{url}/assumptions", {"step": step["id"], "assumptions": too_long}, page=url
    )
    page = text(refused)
    assert refused.status_code == 422 and "at most 10,000 fit" in page
    assert too_long in page  # nothing the user typed is lost
    assert "assumptions" not in system().document["steps"][0]
    form = editor.get(f"{url}/assumptions?step={step['id']}")
    assert form.status_code == 200 and "Assumptions of the step “Orge + Lupin”" in text(form)
    assert editor.get(f"{url}/assumptions?step=nowhere").status_code == 404


def test_proposals_are_shown_added_and_conflicts_flagged(client_as):
    editor = client_as("editor")
    url = demo(editor)
    page = text(editor.get(url))
    assert page.count('<span class="badge">proposal</span>') > 10
    assert "<strong>Produit</strong>: Roundup Extra 360" in page
    step = next(s for s in DEMO_DOCUMENT["steps"] if s["name"] == "Blé tendre d'hiver")
    work = step["interventions"][0]
    fields = {"step": step["id"], "intervention": work["id"], "key": "Surface traitée"}
    added = editor.submit(f"{url}/assumptions/proposal", fields, page=url)
    assert added.status_code == 302
    page = text(editor.get(added.headers["Location"]))
    assert "Added “Surface traitée: 30 %” to the assumptions of “Désherbage d'interculture”" in page
    assert "— in the assumptions" in page
    after = system().document["steps"][1]["interventions"][0]["assumptions"]
    assert after.endswith("- **Surface traitée**: 30 %\n")
    gone = editor.submit(f"{url}/assumptions/proposal", fields | {"key": "Nothing"}, page=url)
    assert "no longer made" in text(editor.get(gone.headers["Location"]))
    # The user corrects it in the text; the step says otherwise: flagged.
    corrected = after.replace("30 %", "25 %")
    editor.submit(f"{url}/assumptions", fields | {"assumptions": corrected}, page=url)
    editor.submit(
        f"{url}/assumptions", {"step": step["id"], "assumptions": "- **Surface traitée**: 100 %"}
    )
    page = text(editor.get(url))
    assert "the assumptions say “25 %”, which is used" in page
    assert "Surface traitée: “100 %” (step) and “25 %” (intervention)" in page


def test_steps_are_added_edited_moved_and_deleted_with_their_values_in_the_history(client_as):
    editor = client_as("editor")
    url = upload(editor).headers["Location"]
    assert editor.get(f"{url}/steps/new").status_code == 200
    bad = {"name": "", "start": "2030-03-01", "end": "2030-01-01", "color": "vert"}
    refused = editor.submit(f"{url}/steps/new", bad, page=url)
    page = text(refused)
    assert refused.status_code == 422
    assert "Give the step a name." in page and 'colour such as "#d2b48c"' in page
    assert 'value="2030-03-01"' in page and 'value="vert"' in page
    good = bad | {"name": "Sarrasin", "end": "2030-07-01", "color": "#aa5500", "lane": "cover"}
    added = editor.submit(f"{url}/steps/new", good, page=url)
    assert added.status_code == 302 and "#step-" in added.headers["Location"]
    step = next(s for s in system().document["steps"] if s["name"] == "Sarrasin")
    assert step["secondary_crop"] is True and step["startDate"] == "2030-03-01T00:00:00.000Z"
    edit_url = f"{url}/steps/edit?step={step['id']}"
    assert 'value="2030-03-01"' in text(editor.get(edit_url))
    edited = editor.submit(edit_url, good | {"name": "Sarrasin d'été"}, page=url)
    assert edited.status_code == 302
    assert "Saved the step “Sarrasin d'été”." in text(editor.get(url))
    first = system().document["steps"][0]
    moved = editor.submit(f"{url}/steps/move?step={first['id']}&by=down", page=url)
    assert moved.status_code == 302 and system().document["steps"][1]["id"] == first["id"]

    # Deleting a step with values: the confirm page counts them, the history keeps them.
    work = first["interventions"][0]
    cell = {"step": first["id"], "intervention": work["id"], "key": "gnr", "value": "18"}
    editor.submit(f"{url}/cell", cell, page=url)
    confirm = text(editor.get(f"{url}/steps/delete?step={first['id']}"))
    assert f"with its {len(first['interventions'])} interventions and 1 value?" in confirm
    deleted = editor.submit(f"{url}/steps/delete?step={first['id']}", page=url)
    assert deleted.status_code == 302
    assert first["id"] not in [s["id"] for s in system().document["steps"]]
    removed = db.session.scalars(select(Change).where(Change.source == "delete")).all()
    assert {(c.old_value, c.new_value) for c in removed} == {(18, None), (True, None)}
    page = text(editor.get(url))
    assert "Deleted the step “Orge + Lupin”." in page and "Fuel (a deleted step)" in page


def test_interventions_are_added_edited_moved_and_deleted(client_as):
    editor = client_as("editor")
    url = upload(editor).headers["Location"]
    first, second = system().document["steps"][:2]
    add_url = f"{url}/interventions/new?step={first['id']}"
    form = text(editor.get(add_url))
    assert "Main crop" in form and "Cover crop" in form
    bad = {"name": "Binage", "description": "bineuse", "day": "demain", "type": "intervention_top"}
    refused = editor.submit(add_url, bad, page=url)
    assert refused.status_code == 422 and "whole number of days" in text(refused)
    assert 'value="demain"' in text(refused)
    added = editor.submit(add_url, bad | {"day": "30", "type": "intervention_bottom"}, page=url)
    assert added.status_code == 302
    work = system().document["steps"][0]["interventions"][-1]
    assert work["name"] == "Binage" and work["type"] == "intervention_bottom"
    assert "Added the intervention “Binage” to “Orge + Lupin”." in text(editor.get(url))
    edit_url = f"{url}/interventions/edit?step={first['id']}&intervention={work['id']}"
    assert "bineuse" in text(editor.get(edit_url))
    fields = bad | {"day": "12", "step": second["id"], "name": "Binage maïs"}
    assert editor.submit(edit_url, fields, page=url).status_code == 302
    moved = system().document["steps"][1]["interventions"][-1]
    assert moved["id"] == work["id"] and moved["name"] == "Binage maïs" and moved["day"] == "12"
    delete_url = f"{url}/interventions/delete?step={second['id']}&intervention={work['id']}"
    assert "with its 0 values?" in text(editor.get(delete_url))
    assert editor.submit(delete_url, page=url).status_code == 302
    assert work["id"] not in str(system().document)
    assert editor.get(delete_url).status_code == 404


def test_viewers_see_no_buttons_and_cannot_post(client_as):
    editor = client_as("editor")
    url = upload(editor).headers["Location"]
    step = system().document["steps"][0]
    work = step["interventions"][0]
    farm = system().farm_id
    viewer = client_as("viewer")
    page = text(viewer.get(url))
    assert "Steps, interventions and assumptions" in page and "Labour" in page
    for words in ("Add a step", "Edit the assumptions", "Add to assumptions", "Delete"):
        assert words not in page
    assert "/systems/farms/" not in text(viewer.get("/systems"))
    ids = f"step={step['id']}&intervention={work['id']}"
    for path in (
        "/assumptions",
        "/assumptions/proposal",
        "/steps/new",
        f"/steps/edit?{ids}",
        f"/steps/move?{ids}",
        f"/steps/delete?{ids}",
        f"/interventions/new?{ids}",
        f"/interventions/edit?{ids}",
        f"/interventions/delete?{ids}",
        "/edit",
        "/delete",
    ):
        assert viewer.submit(url + path, {"assumptions": "x"}, page=url).status_code == 403, path
    for path in (f"/systems/farms/{farm}/edit", f"/systems/farms/{farm}/delete"):
        assert viewer.submit(path, {"name": "x"}, page=url).status_code == 403
    # Without its CSRF token an editor's post is refused and nothing changes.
    assert editor.post(f"{url}/steps/delete?{ids}").status_code == 400
    assert editor.post(f"{url}/assumptions", data={"assumptions": "x"}).status_code == 400
    assert len(system().document["steps"]) == 10


def test_a_system_s_details_are_edited_within_bounds_and_it_is_deleted(client_as):
    editor = client_as("editor")
    url = upload(editor).headers["Location"]
    details = {
        "name": "ITK bio",
        "description": "Rotation longue",
        "system_type": "x" * 101,
        "productions": "Céréales",
        "gps_location": "49.18, -0.37",
    }
    refused = editor.submit(f"{url}/edit", details, page=url)
    assert refused.status_code == 422 and "At most 100 characters fit here." in text(refused)
    assert editor.submit(f"{url}/edit", details | {"name": " "}).status_code == 422
    saved = editor.submit(f"{url}/edit", details | {"system_type": "Grandes cultures"}, page=url)
    assert saved.status_code == 302
    assert (system().name, system().system_type) == ("ITK bio", "Grandes cultures")
    confirm = text(editor.get(f"{url}/delete"))
    assert "Delete the system “ITK bio” of GAEC des Sources with its 10 steps and 0 values?" in (
        confirm
    )
    deleted = editor.submit(f"{url}/delete", page=url)
    assert deleted.status_code == 302 and deleted.headers["Location"].endswith("/systems")
    assert "Deleted the system “ITK bio”." in text(editor.get("/systems"))
    assert editor.get(url).status_code == 404
    assert db.session.scalar(select(db.func.count()).select_from(Farm)) == 1


@pytest.mark.usefixtures("idle_queue")
def test_a_system_is_deleted_once_its_run_ended_and_the_run_s_pages_answer_cleanly(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    queued = editor.post(f"/api/v1/systems/{system_id}/calculate-missing", headers=editor.headers)
    run = db.session.get(Run, queued.get_json()["run_id"])
    # A system being calculated is not deleted, from its page, its farm's or the API.
    page = f"/systems/{system_id}"
    refused = editor.submit(f"{page}/delete", page=page)
    assert refused.status_code == 302 and refused.headers["Location"].endswith(f"/runs/{run.id}")
    assert "Cancel it or wait for its end, then delete." in text(editor.get(f"/runs/{run.id}"))
    farm_id = db.session.get(System, system_id).farm_id
    assert editor.submit(f"/systems/farms/{farm_id}/delete", page="/systems").status_code == 302
    busy = editor.delete(f"/api/v1/systems/{system_id}", headers=editor.headers)
    assert busy.status_code == 409 and busy.get_json()["error"]["details"]["run_id"] == run.id
    assert db.session.get(System, system_id) is not None
    # Once the run has ended, the system goes and its run's pages stay.
    run_here(run, SystemCalculation())
    editor.submit(f"{page}/delete", page=page)
    assert db.session.get(System, system_id) is None
    removed = select(Change).where(Change.target_type == VALUE_TARGET, Change.source == "delete")
    assert db.session.scalars(removed).all() == []  # the system had no values yet
    assert editor.get(f"/systems/{system_id}/runs/{run.id}").status_code == 404
    assert editor.get(f"/runs/{run.id}").status_code == 200
    answer = editor.get(f"/api/v1/runs/{run.id}/suggestions", headers=editor.headers)
    assert answer.status_code == 200
    statuses = db.session.scalars(select(Suggestion.status).where(Suggestion.run_id == run.id))
    assert set(statuses) == {"rejected"}  # none is offered for a system that is gone
    reviewer = api_client(client_as, "reviewer")
    applied = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"all_valid": True}, headers=reviewer.headers
    )
    assert applied.status_code == 200 and applied.get_json()["applied"] == []
    assert editor.get("/runs").status_code == 200


@pytest.mark.usefixtures("idle_queue")
def test_a_deleted_step_s_suggestions_are_closed_and_the_others_still_apply(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    url = f"/systems/{system_id}"
    step = db.session.get(System, system_id).document["steps"][0]
    editor.submit(f"{url}/steps/delete?step={step['id']}", page=url)
    by_status = {}
    for found in db.session.scalars(select(Suggestion).where(Suggestion.run_id == run.id)):
        by_status.setdefault(found.field.startswith(f"steps[{step['id']}]"), set()).add(
            found.status
        )
    assert by_status[True] == {"rejected"} and "pending" in by_status[False]
    assert editor.get(f"/review/runs/{run.id}").status_code == 200
    reviewer = api_client(client_as, "reviewer")
    applied = reviewer.post(
        f"/api/v1/runs/{run.id}/apply", json={"all_valid": True}, headers=reviewer.headers
    )
    assert applied.status_code == 200 and applied.get_json()["applied"]


def test_farms_are_renamed_deleted_with_their_systems_and_paged(client_as):
    editor = client_as("editor")
    upload(editor)
    farm = system().farm
    edit_url = f"/systems/farms/{farm.id}/edit"
    assert 'value="GAEC des Sources"' in text(editor.get(edit_url))
    other = catalog.create_farm("Ferme du Bois")
    db.session.commit()
    taken = editor.submit(edit_url, {"name": "ferme du bois", "region": "Orne"}, page=edit_url)
    assert taken.status_code == 422 and "Another farm is named “Ferme du Bois”." in text(taken)
    renamed = editor.submit(edit_url, {"name": "GAEC des Sources bio", "region": "Orne"})
    assert renamed.status_code == 302
    listing = text(editor.get("/systems"))
    assert "GAEC des Sources bio" in listing and "Orne" in listing
    confirm = text(editor.get(f"/systems/farms/{farm.id}/delete"))
    assert "with its 1 system? Deleted with it: “ITK Maxime Besnard”" in confirm
    assert "Delete the farm and its systems" in confirm
    gone = editor.submit(f"/systems/farms/{farm.id}/delete", page=edit_url)
    assert gone.status_code == 302
    assert "Deleted the farm “GAEC des Sources bio” with its 1 system." in text(
        editor.get("/systems")
    )
    assert db.session.scalar(select(db.func.count()).select_from(System)) == 0
    empty = text(editor.get(f"/systems/farms/{other.id}/delete"))
    assert "Delete the farm “Ferme du Bois”? This cannot be undone." in empty
    for number in range(30):
        catalog.create_farm(f"Ferme {number:02d}")
    db.session.commit()
    first = text(editor.get("/systems"))
    assert "Page 1 of 2" in first and "Ferme 24" in first and "Ferme 25" not in first
    second = text(editor.get("/systems?page=2"))
    assert "Ferme 25" in second and "Ferme du Bois" in second
    assert len(re.findall(r'<article class="farm"', second)) == 6


def test_a_system_emptied_of_steps_still_shows_and_takes_a_new_one(client_as):
    editor = client_as("editor")
    one_step = {"steps": [DEMO_DOCUMENT["steps"][2]]}
    made, _saved = catalog.import_system(catalog.create_farm("Ferme vide"), "Vide", one_step, None)
    db.session.commit()
    url = f"/systems/{made.id}"
    step_id = one_step["steps"][0]["id"]
    assert editor.submit(f"{url}/steps/delete?step={step_id}", page=url).status_code == 302
    page = text(editor.get(url))
    assert "This system has no steps yet." in page and "Deleted the step" in page
    fields = {"name": "Pois", "start": "2031-03-01", "end": "2031-07-01", "lane": "main"}
    assert editor.submit(f"{url}/steps/new", fields, page=url).status_code == 302
    assert "Pois" in text(editor.get(url)) and editor.get(f"{url}.csv").status_code == 200


def test_the_api_sets_a_level_s_assumptions_and_deletes_a_system(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    step = db.session.get(System, system_id).document["steps"][0]
    work = step["interventions"][0]
    url = f"/api/v1/systems/{system_id}/assumptions"
    body = {"step_id": step["id"], "intervention_id": work["id"], "assumptions": "- **Dose**: 2"}
    answer = editor.put(url, json=body, headers=editor.headers)
    assert answer.status_code == 200 and answer.get_json()["assumptions"] == "- **Dose**: 2"
    assert system().document["steps"][0]["interventions"][0]["assumptions"] == "- **Dose**: 2"
    # A level's assumptions are audited like its values, and undone like them.
    change = db.session.scalars(
        select(Change).where(Change.target_id == system_id).order_by(Change.id)
    ).all()[-1]
    assert change.field.endswith(".assumptions") and change.new_value == "- **Dose**: 2"
    reviewer = api_client(client_as, "reviewer")
    undone = reviewer.post(f"/api/v1/undo/{change.group_id}", headers=reviewer.headers)
    assert undone.status_code == 200, undone.get_json()
    db.session.expire_all()
    assert not system().document["steps"][0]["interventions"][0].get("assumptions")
    too_long = editor.put(
        url, json={"assumptions": "x" * (ASSUMPTIONS_LIMIT + 1)}, headers=editor.headers
    )
    assert too_long.status_code == 422 and too_long.get_json()["error"]["code"]
    lost = editor.put(url, json=body | {"step_id": None}, headers=editor.headers)
    assert lost.status_code == 422 and "step_id" in lost.get_json()["error"]["message"]
    viewer = api_client(client_as, "viewer")
    assert viewer.put(url, json=body, headers=viewer.headers).status_code == 403
    assert viewer.delete(f"/api/v1/systems/{system_id}", headers=viewer.headers).status_code == 403
    gone = editor.delete(f"/api/v1/systems/{system_id}", headers=editor.headers)
    assert gone.status_code == 204 and db.session.get(System, system_id) is None
    assert editor.put(url, json=body, headers=editor.headers).status_code == 404
