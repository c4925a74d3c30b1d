"""Editing a system's document by hand, without Flask: assumptions per level, steps and
interventions added, edited, moved and deleted, every result checked and stamped."""

import pytest

from webapp.systems import editing
from webapp.systems.document import ASSUMPTIONS_LIMIT, BOTTOM, DocumentInvalid, flat_values

STAMP = "2026-11-26T10:00:00.000Z"


def document():
    return {
        "title": "Essai",
        "options": {"theme": "dark"},
        "updatedAt": "2026-01-01T00:00:00.000Z",
        "steps": [
            {
                "id": "s1",
                "name": "Blé",
                "startDate": "2026-10-20T06:00:00.000Z",
                "endDate": "2027-07-20T00:00:00.000Z",
                "duration": 9,
                "useDefaultColor": True,
                "attributes": [{"id": "a", "name": "Travail du sol", "value": "Labour"}],
                "stepValues": [{"key": "rendement", "value": 8, "reviewed": True}],
                "interventions": [
                    {
                        "id": "i1",
                        "name": "Désherbage",
                        "description": "Roundup Extra 360 3,5 L/ha sur 30 %",
                        "day": "-15",
                        "type": "intervention_top",
                        "custom": "kept",
                        "values": [{"key": "ift", "value": 0.15, "reviewed": False}],
                    },
                    {"id": "i2", "name": "Semis", "day": "0", "type": "intervention_top"},
                ],
            },
            {
                "id": "s2",
                "name": "Moutarde",
                "startDate": "2027-08-01T00:00:00.000Z",
                "endDate": "2027-11-01T00:00:00.000Z",
                "secondary_crop": True,
                "interventions": [],
            },
        ],
    }


def test_each_level_takes_its_assumptions_and_updated_at_moves_up():
    changed = editing.set_assumptions(document(), "s1", "i1", "- **Dose**: 3 L/ha", STAMP)
    step = changed["steps"][0]
    assert step["interventions"][0]["assumptions"] == "- **Dose**: 3 L/ha"
    assert step["interventions"][0]["updatedAt"] == STAMP
    assert step["updatedAt"] == STAMP and changed["updatedAt"] == STAMP
    assert "updatedAt" not in step["interventions"][1]
    assert step["interventions"][0]["custom"] == "kept" and changed["options"] == {"theme": "dark"}
    system = editing.set_assumptions(document(), None, None, "- **Sol**: limon", STAMP)
    assert system["assumptions"] == "- **Sol**: limon"
    on_step = editing.set_assumptions(document(), "s2", None, "Couvert\r\nsemé à la volée", STAMP)
    assert on_step["steps"][1]["assumptions"] == "Couvert\nsemé à la volée"


def test_assumptions_past_the_limit_are_refused_whole():
    with pytest.raises(DocumentInvalid) as refused:
        editing.set_assumptions(document(), None, None, "x" * (ASSUMPTIONS_LIMIT + 1))
    assert refused.value.problems[0].loc == "assumptions"
    assert "10,001 characters; at most 10,000" in str(refused.value)
    at_limit = editing.set_assumptions(document(), None, None, "x" * ASSUMPTIONS_LIMIT)
    assert len(at_limit["assumptions"]) == ASSUMPTIONS_LIMIT
    with pytest.raises(DocumentInvalid, match="control character"):
        editing.set_assumptions(document(), None, None, "a\x00b")


def test_a_proposal_is_appended_once():
    line = "- **Dose**: 3.5 L/ha"
    once = editing.set_assumptions(document(), "s1", "i1", "## Désherbage\n- **Produit**: X")
    once = editing.append_assumption(once, "s1", "i1", line, STAMP)
    text = once["steps"][0]["interventions"][0]["assumptions"]
    assert text == "## Désherbage\n- **Produit**: X\n- **Dose**: 3.5 L/ha\n"
    assert editing.append_assumption(once, "s1", "i1", line) == once
    empty = editing.append_assumption(document(), "s1", "i1", line)
    assert empty["steps"][0]["interventions"][0]["assumptions"] == line + "\n"


def test_a_step_is_added_in_date_order_with_a_new_id():
    fields = {
        "name": " Orge ",
        "startDate": "2027-03-01",
        "endDate": "2027-07-15",
        "color": "#aabbcc",
        "secondary_crop": False,
    }
    changed, step_id = editing.add_step(document(), fields, STAMP)
    assert [s["name"] for s in changed["steps"]] == ["Blé", "Orge", "Moutarde"]
    step = changed["steps"][1]
    assert step["id"] == step_id and len(step_id) == 36
    assert step["startDate"] == "2027-03-01T00:00:00.000Z" and step["color"] == "#aabbcc"
    assert step["interventions"] == [] and step["updatedAt"] == STAMP


def test_a_bad_step_names_each_field():
    with pytest.raises(DocumentInvalid) as refused:
        editing.add_step(document(), {"name": "", "startDate": "mars", "endDate": ""})
    assert {p.loc for p in refused.value.problems} == {"name", "startDate", "endDate"}
    with pytest.raises(DocumentInvalid) as refused:
        editing.add_step(
            document(), {"name": "", "startDate": "2027-03-01", "endDate": "2027-04-01"}
        )
    assert refused.value.errors == {"name": "Give the step a name."}
    with pytest.raises(DocumentInvalid) as refused:
        editing.add_step(
            document(), {"name": "Orge", "startDate": "2027-03-01", "endDate": "2027-02-01"}
        )
    assert refused.value.errors == {"endDate": "The step ends before it starts."}
    with pytest.raises(DocumentInvalid) as refused:
        fields = {"name": "Orge", "startDate": "2027-03-01", "endDate": "2027-04-01"}
        editing.add_step(document(), fields | {"color": "vert"})
    assert refused.value.problems[0].loc == "color"
    assert "colour such as" in refused.value.problems[0].message


def test_editing_a_step_keeps_what_the_form_does_not_know():
    fields = {
        "name": "Blé tendre",
        "startDate": "2026-10-20",
        "endDate": "2027-08-20",
        "color": "#112233",
        "secondary_crop": False,
    }
    changed = editing.edit_step(document(), "s1", fields, STAMP)
    step = changed["steps"][0]
    assert step["name"] == "Blé tendre"
    # The same day keeps the time itinera wrote; a new day is written as the document's dates.
    assert step["startDate"] == "2026-10-20T06:00:00.000Z"
    assert step["endDate"] == "2027-08-20T00:00:00.000Z" and step["duration"] == 10
    assert step["useDefaultColor"] is False and step["attributes"][0]["value"] == "Labour"
    assert step["stepValues"] == document()["steps"][0]["stepValues"]
    assert len(step["interventions"]) == 2
    cleared = editing.edit_step(changed, "s1", {"color": ""})
    assert "color" not in cleared["steps"][0]
    with pytest.raises(DocumentInvalid, match="no step"):
        editing.edit_step(document(), "nowhere", {"name": "X"})


def test_deleting_a_step_takes_its_interventions_and_values():
    changed = editing.delete_step(document(), "s1", STAMP)
    assert [s["id"] for s in changed["steps"]] == ["s2"] and changed["updatedAt"] == STAMP
    assert flat_values(changed) == {}
    assert editing.value_count(document()["steps"][0]) == 2


def test_steps_move_up_and_down_and_stay_at_the_ends():
    down = editing.move_step(document(), "s1", 1)
    assert [s["id"] for s in down["steps"]] == ["s2", "s1"]
    assert editing.move_step(down, "s1", 1)["steps"] == down["steps"]


def test_an_intervention_is_added_edited_moved_and_deleted():
    fields = {"name": "Binage", "description": "bineuse", "day": " 30 ", "type": BOTTOM}
    changed, new_id = editing.add_intervention(document(), "s2", fields, STAMP)
    added = changed["steps"][1]["interventions"][0]
    assert added == {
        "id": new_id,
        "name": "Binage",
        "description": "bineuse",
        "day": "30",
        "type": BOTTOM,
        "updatedAt": STAMP,
    }
    assert changed["steps"][1]["updatedAt"] == STAMP
    edited = editing.edit_intervention(document(), "s1", "i1", {"name": "Désherbage total"})
    work = edited["steps"][0]["interventions"][0]
    assert work["name"] == "Désherbage total" and work["custom"] == "kept"
    assert work["values"] == document()["steps"][0]["interventions"][0]["values"]
    moved = editing.move_intervention(document(), "s1", "i1", "s2", STAMP)
    assert [i["id"] for i in moved["steps"][1]["interventions"]] == ["i1"]
    assert "steps[s2].interventions[i1].values.ift" in flat_values(moved)
    gone = editing.delete_intervention(document(), "s1", "i1", STAMP)
    assert [i["id"] for i in gone["steps"][0]["interventions"]] == ["i2"]


def test_a_bad_intervention_names_each_field():
    with pytest.raises(DocumentInvalid) as refused:
        editing.add_intervention(document(), "s1", {"name": "", "day": "demain", "type": "x"})
    assert set(refused.value.errors) == {"name", "type"}
    with pytest.raises(DocumentInvalid) as refused:
        editing.add_intervention(document(), "s1", {"name": "Semis", "day": "demain"})
    assert set(refused.value.errors) == {"day"}
    assert "whole number of days" in refused.value.errors["day"]


def test_the_outline_shows_proposals_and_conflicts():
    changed = editing.set_assumptions(document(), None, None, "- **Sol**: limon")
    changed = editing.set_assumptions(changed, "s1", None, "- **Sol**: argile")
    changed = editing.set_assumptions(changed, "s1", "i1", "- **Dose**: 3,5 L/ha")
    wheat = editing.outline(changed)[0]
    assert wheat.when == "2026-10-20 to 2027-07-20" and wheat.values == 2
    assert [c.code for c in wheat.conflicts] == ["assumption_conflict"]
    weeding = wheat.interventions[0]
    proposals = {p.key: p for p in weeding.proposals}
    assert proposals["Produit"].line == "- **Produit**: Roundup Extra 360"
    assert proposals["Surface traitée"].value == "30 %" and not proposals["Produit"].taken
    assert proposals["Dose"].written == "3,5 L/ha" and not proposals["Dose"].taken
    assert editing.outline(document())[1].lane == "cover crop"
