"""The system document: itinera's files round-trip key for key, problems are named by path,
and setting a value is a person's, with updatedAt moving up."""

import copy
import json
from pathlib import Path

import pytest

from webapp.systems import document as doc
from webapp.systems.grid import columns, field_label, rows
from webapp.systems.timeline import layout

DATA = Path(__file__).parent / "data"
FILES = ["example-system.json", "une-rotation-de-test.json"]


def itinera(name: str) -> dict:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", FILES)
def test_itinera_files_come_back_key_for_key(name):
    raw = itinera(name)
    stored = doc.read_document((DATA / name).read_text(encoding="utf-8"))
    assert stored == raw
    assert json.loads(json.dumps(stored, ensure_ascii=False)) == raw


def test_export_is_the_import_plus_our_values():
    raw = itinera("une-rotation-de-test.json")
    step = raw["steps"][1]
    work = step["interventions"][2]
    changed, _ = doc.set_value(
        raw, step["id"], work["id"], "azoteMineral", "0", stamp="2026-11-26T10:00:00.000Z"
    )
    expected = copy.deepcopy(raw)
    target = expected["steps"][1]["interventions"][2]
    target["values"] = [{"key": "azoteMineral", "value": 0, "reviewed": True}]
    for part in (target, expected["steps"][1], expected):
        part["updatedAt"] = "2026-11-26T10:00:00.000Z"
    assert changed == expected
    assert changed["options"]["climate_data"] == raw["options"]["climate_data"]


def test_a_bad_file_names_each_problem_by_its_path():
    raw = itinera("example-system.json")
    raw["steps"][3]["interventions"][2]["day"] = "deux"
    raw["steps"][1]["color"] = "vert"
    raw["steps"][0]["interventions"][0]["type"] = "intervention_middle"
    raw["steps"][2]["interventions"][0]["values"] = [{"key": "ift", "value": True}]
    raw["steps"][4]["assumptions"] = "x" * 10_001
    del raw["steps"][5]["name"]
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    assert sorted(refused.value.errors) == [
        "steps[0].interventions[0].type",
        "steps[1].color",
        "steps[2].interventions[0].values[0].value",
        "steps[3].interventions[2].day",
        "steps[4].assumptions",
        "steps[5].name",
    ]
    assert "whole number of days" in refused.value.errors["steps[3].interventions[2].day"]
    assert "nothing was stored" in refused.value.message


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"steps": [], "x": 1e400}', "finite"),
        ('{"title": "no steps"}', "required"),
    ],
)
def test_a_file_that_is_no_document_says_why(text, problem):
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.read_document(text)
    assert problem in str(refused.value)


def test_ids_twice_and_a_step_that_ends_before_it_starts_are_refused():
    raw = itinera("example-system.json")
    raw["steps"][1]["id"] = raw["steps"][0]["id"]
    raw["steps"][2]["endDate"] = "2020-01-01T00:00:00.000Z"
    raw["steps"][3]["interventions"][1]["id"] = raw["steps"][3]["interventions"][0]["id"]
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    # Each step is checked first; ids across steps once every step is sound.
    assert set(refused.value.errors) == {"steps[2]", "steps[3]"}
    assert "ends before it starts" in refused.value.errors["steps[2]"]
    assert "Intervention ids appear twice" in refused.value.errors["steps[3]"]
    raw = itinera("example-system.json")
    raw["steps"][1]["id"] = raw["steps"][0]["id"]
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    assert "Step ids appear twice" in refused.value.errors["steps"]


def test_a_document_over_one_megabyte_gets_a_warning():
    raw = itinera("example-system.json")
    assert doc.size_warning(raw) is None
    raw["options"]["notes"] = "x" * 1_000_001
    assert "over 1 MB" in doc.size_warning(doc.validate_document(raw))


def test_a_value_set_by_a_person_is_reviewed_and_updated_at_moves_up():
    raw = itinera("example-system.json")
    step, work = raw["steps"][0], raw["steps"][0]["interventions"][0]
    stamp = "2026-11-26T10:00:00.000Z"
    new, changed = doc.set_value(raw, step["id"], work["id"], "ift", "3,5", stamp=stamp)
    path = doc.value_path(step["id"], work["id"], "ift")
    assert path == f"steps[{step['id']}].interventions[{work['id']}].values.ift"
    assert changed == {path: (None, 3.5), path + ".reviewed": (None, True)}
    assert new["steps"][0]["interventions"][0]["updatedAt"] == stamp
    assert new["steps"][0]["updatedAt"] == new["updatedAt"] == stamp
    assert "updatedAt" not in new["steps"][1]
    again, nothing = doc.set_value(new, step["id"], work["id"], "ift", 3.5)
    assert nothing == {} and again == new
    marked, status = doc.set_value(new, step["id"], work["id"], "ift", 2, reviewed="n/a")
    assert status == {path: (3.5, 2), path + ".reviewed": (True, "n/a")}
    back, _ = doc.write_fields(marked, {path: None, path + ".reviewed": None}, stamp)
    assert back["steps"][0]["interventions"][0]["values"] == []


def test_a_step_value_and_the_refusals_of_set_value():
    raw = itinera("example-system.json")
    step = raw["steps"][1]
    new, changed = doc.set_value(raw, step["id"], None, "rendement", 12)
    assert new["steps"][1]["stepValues"] == [{"key": "rendement", "value": 12, "reviewed": True}]
    assert list(changed) == [
        f"steps[{step['id']}].stepValues.rendement",
        f"steps[{step['id']}].stepValues.rendement.reviewed",
    ]
    cases = [
        ((step["id"], None, "rendement", "beaucoup"), "value", "not a number"),
        (("nowhere", None, "rendement", 1), "step_id", "no step"),
        ((step["id"], "nothing", "ift", 1), "intervention_id", "no intervention"),
        ((step["id"], None, "2 words", 1), "key", "indicator key"),
    ]
    for args, loc, words in cases:
        with pytest.raises(doc.DocumentInvalid) as refused:
            doc.set_value(raw, *args)
        assert words in refused.value.errors[loc]


def test_the_grid_lists_steps_then_their_interventions_by_day():
    raw = itinera("example-system.json")
    step = raw["steps"][0]
    new, _ = doc.set_value(raw, step["id"], step["interventions"][1]["id"], "eiq", 4)
    new, _ = doc.set_value(new, step["id"], step["interventions"][1]["id"], "humus", 1)
    keys = columns(new)
    # itinera's keys first, then any other the document holds.
    assert keys[:2] == ["frequence", "semences"] and keys[-1] == "humus" and keys.count("eiq") == 1
    assert "totalCharges" not in keys and {"rendement", "prixVente"} <= set(keys)
    first = rows(new, keys)[:4]
    assert [r.name for r in first] == [
        "Orge + Lupin",
        "Labour",
        "Digestat solide",
        "Fauche, andainage puis récolte",
    ]
    assert [str(r.when) for r in first] == ["2026-03-01", "2026-02-24", "2026-03-01", "2026-07-20"]
    assert first[3].cell("eiq").state == "reviewed" and first[3].cell("ift").state == "empty"
    assert first[0].editable("rendement") and not first[0].editable("ift")
    assert first[1].editable("ift") and first[1].editable("humus")
    assert not first[1].editable("rendement") and not first[1].editable("totalCharges")
    path = doc.value_path(step["id"], step["interventions"][1]["id"], "eiq")
    assert (
        field_label(new, path)
        == "Fauche, andainage puis récolte (Orge + Lupin): EIQ field use rating"
    )
    assert field_label(new, path + ".reviewed").endswith("EIQ field use rating, reviewed")


def test_the_timeline_puts_steps_in_lanes_and_marks_at_their_day():
    timeline = layout(itinera("example-system.json"))
    assert len(timeline.bars) == 10 and len(timeline.marks) == 31
    assert str(timeline.start) == "2026-02-24" and str(timeline.end) == "2033-05-15"
    main, cover = (
        {b.y for b in timeline.bars if b.name == "Quinoa"},
        {b.y for b in timeline.bars if b.name == "Trèfle blanc"},
    )
    assert main != cover
    assert [t.label for t in timeline.ticks if t.year][:3] == ["2026", "2027", "2028"]
    xs = [b.x for b in timeline.bars]
    assert xs == sorted(xs) and all(timeline.left <= x <= timeline.width for x in xs)
    sowing = next(m for m in timeline.marks if m.name == "Semis associé")
    assert not sowing.top and str(sowing.day) == "2026-03-01"
    assert layout({"steps": []}).bars == []


def test_a_step_row_carries_the_step_totals():
    raw = itinera("example-system.json")
    step = raw["steps"][0]
    first, second = step["interventions"][0]["id"], step["interventions"][1]["id"]
    new, _ = doc.set_value(raw, step["id"], first, "ift", 0.5)
    new, _ = doc.set_value(new, step["id"], second, "ift", 1)
    new, _ = doc.set_value(new, step["id"], second, "frequence", 2)
    step_row = next(r for r in rows(new, columns(new)) if r.intervention_id is None)
    assert step_row.totals["ift"] == 2.5


TEXT_VALUES = "itinera-text-values.json"


def test_values_written_as_text_are_kept_as_written_with_their_status():
    raw = itinera(TEXT_VALUES)
    stored = doc.read_document((DATA / TEXT_VALUES).read_text(encoding="utf-8"))
    assert stored == raw  # "0,15", "environ 2", status and conversations come back as they were
    herbicide = stored["steps"][0]["interventions"][0]["values"]
    assert [(v["value"], v["status"]) for v in herbicide] == [
        ("0,15", "ia"),
        (1, "user"),
        ("environ 2", "ia"),
        ("35.5", "calculated"),
    ]
    assert doc.text_values(stored) == {
        doc.value_path("step-ble", "int-herbicide", "gnr"): "environ 2",
        doc.value_path("step-ble", "int-moisson", "mecanisation"): "beaucoup",
    }
    assert [doc.value_number(v["value"]) for v in herbicide] == [0.15, 1, None, 35.5]


def test_a_value_is_a_number_or_text_of_bounded_length():
    raw = itinera(TEXT_VALUES)
    values = raw["steps"][0]["interventions"][0]["values"]
    values[0]["value"] = "x" * (doc.TEXT_VALUE_LIMIT + 1)
    values[1]["value"] = [1]
    with pytest.raises(doc.DocumentInvalid) as refused:
        doc.validate_document(raw)
    assert sorted(refused.value.errors) == [
        "steps[0].interventions[0].values[0].value",
        "steps[0].interventions[0].values[1].value",
    ]


def test_reviewing_alone_keeps_the_value_and_a_value_that_is_not_a_number_is_not_reviewed():
    stored = doc.validate_document(itinera(TEXT_VALUES))
    stamp = "2026-11-26T10:00:00.000Z"
    approved, changed = doc.set_value(
        stored, "step-ble", "int-herbicide", "ift", reviewed=True, stamp=stamp
    )
    path = doc.value_path("step-ble", "int-herbicide", "ift")
    # An approval makes the model's value a person's, as itinera's save does.
    assert changed == {path + doc.REVIEWED: (None, True), path + doc.STATUS: ("ia", "user")}
    assert doc.value_entry(approved, path)["value"] == "0,15"
    with pytest.raises(doc.DocumentInvalid, match="not a number"):
        doc.set_value(stored, "step-ble", "int-herbicide", "gnr", reviewed=True, stamp=stamp)
    # A person's own value replaces the text, read as a number.
    corrected, _ = doc.set_value(stored, "step-ble", "int-herbicide", "gnr", "2,5", stamp=stamp)
    gnr = doc.value_entry(corrected, doc.value_path("step-ble", "int-herbicide", "gnr"))
    assert (gnr["value"], gnr["reviewed"], gnr["status"]) == (2.5, True, "user")


def test_blank_text_is_no_value_and_is_kept_as_written():
    raw = itinera(TEXT_VALUES)
    raw["steps"][1]["interventions"][0]["values"].append({"key": "gnr", "value": " "})
    stored = doc.validate_document(raw)
    assert stored == raw and doc.text_values(stored) == {
        doc.value_path("step-ble", "int-herbicide", "gnr"): "environ 2",
        doc.value_path("step-ble", "int-moisson", "mecanisation"): "beaucoup",
    }
    semis = next(r for r in rows(stored, columns(stored)) if r.intervention_id == "int-semis")
    assert semis.cell("gnr").state == "empty" and semis.cell("semences").number == 65
    with pytest.raises(doc.DocumentInvalid, match="no value to review"):
        doc.set_value(stored, "step-colza", "int-semis", "gnr", reviewed=True)
