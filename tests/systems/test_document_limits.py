"""What one system may hold: interventions per step and per system, steps, indicator keys,
how deep a file nests, and ids people can see. Each refusal names its limit and where, on the
import page and through the API, and stores nothing."""

import json

import pytest
from sqlalchemy import select

from tests.systems.generated import rotation
from tests.systems.test_system_api import api_client, create, itinera
from tests.systems.test_system_pages import upload
from webapp.extensions import db
from webapp.systems import document as doc
from webapp.systems.models import System


def refused(data) -> doc.DocumentInvalid:
    with pytest.raises(doc.DocumentInvalid) as caught:
        doc.validate_document(data)
    return caught.value


def nested(levels: int) -> object:
    """A list inside a list, levels deep (one level: [])."""
    data: object = []
    for _ in range(levels - 1):
        data = [data]
    return data


def stored_systems() -> int:
    return db.session.scalar(select(db.func.count()).select_from(System))


def test_a_step_holds_at_most_its_limit_of_interventions():
    at_limit = rotation(doc.INTERVENTIONS_PER_STEP, values=False)
    assert len(doc.validate_document(at_limit)["steps"][0]["interventions"]) == 1_000
    problems = refused(rotation(3, 20_000, values=False)).errors
    assert list(problems) == ["steps[1].interventions"]
    assert problems["steps[1].interventions"] == (
        "A step holds at most 1,000 interventions and this one has 20,000: split it into "
        "several steps."
    )


def test_a_system_holds_at_most_its_limit_of_interventions_and_steps():
    steps = [doc.INTERVENTIONS_PER_STEP] * (doc.INTERVENTIONS_LIMIT // 1_000)
    assert doc.validate_document(rotation(*steps, values=False))
    problems = refused(rotation(*steps, 1, values=False)).errors
    assert problems["steps"] == (
        "A system holds at most 2,000 interventions and this one has 2,001: split the "
        "rotation into several systems."
    )
    many = rotation(*[0] * 201)
    assert refused(many).errors["steps"] == "A system has at most 200 steps and this one has 201."


def test_a_system_uses_at_most_its_limit_of_indicator_keys():
    data = rotation(1)
    work = data["steps"][0]["interventions"][0]
    work["values"] = [{"key": f"k{n}", "value": n} for n in range(doc.KEYS_LIMIT)]
    assert doc.validate_document(data)
    work["values"].append({"key": "one_more", "value": 1})
    assert refused(data).errors["steps"] == (
        "A system's values use at most 100 indicator keys and this one uses 101."
    )


def test_duplicate_ids_are_still_named_in_a_step_at_its_limit():
    data = rotation(doc.INTERVENTIONS_PER_STEP, values=False)
    works = data["steps"][0]["interventions"]
    works[900]["id"] = works[10]["id"] = works[500]["id"] = "twice"
    works[7]["id"] = works[8]["id"]
    assert refused(data).errors["steps[0]"] == ("Intervention ids appear twice: s0-w8, twice.")


def test_a_file_with_thousands_of_problems_names_the_first_fifty_and_counts_the_rest():
    data = rotation(doc.INTERVENTIONS_PER_STEP)
    for work in data["steps"][0]["interventions"]:
        work["day"] = "demain"
    caught = refused(data)
    assert len(caught.problems) == doc.PROBLEMS_SHOWN + 1
    assert caught.problems[0].loc == "steps[0].interventions[0].day"
    assert caught.problems[-1].message == "And 950 more problem(s) like these."
    assert caught.message == "The document has 1,000 problem(s); nothing was stored."


def test_a_refused_step_is_named_on_the_import_page_and_by_the_api(client_as):
    editor = client_as("editor")
    # One over the limit: the test client spools a larger upload to a file it never closes.
    big = json.dumps(rotation(1_001, values=False)).encode()
    answer = upload(editor, name="big.json", content=big)
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422 and "Nothing was imported" in page
    assert (
        "<code>steps[0].interventions</code>: A step holds at most 1,000 interventions and "
        "this one has 1,001: split it into several steps." in page
    )
    assert 'value="GAEC des Sources"' in page  # what was typed is kept
    client = api_client(client_as, "editor")
    answer = create(client, document=rotation(20_000, values=False))
    error = answer.get_json()["error"]
    assert answer.status_code == 422 and error["code"] == "document_invalid"
    assert error["details"]["errors"][0]["loc"] == "steps[0].interventions"
    assert stored_systems() == 0


def test_nesting_is_bounded_before_anything_else_reads_the_document():
    data = itinera()
    data["options"]["deep"] = nested(doc.DEPTH_LIMIT - 2)  # the document and options are two
    assert doc.validate_document(data)["options"]["deep"] == nested(doc.DEPTH_LIMIT - 2)
    for levels in (doc.DEPTH_LIMIT - 1, 256, 5_000):
        data["options"]["deep"] = nested(levels)
        caught = refused(data)
        assert caught.code == "document_too_deep" and caught.problems[0].loc == "options"
        assert str(caught) == (
            "The document is nested more than 64 levels deep (at options.deep[0][0][0][0]…); "
            "itinera's files nest about ten."
        )
    work = itinera()["steps"][2]["interventions"][0]
    work["values"] = [{"key": "ift", "value": 1, "conversation": [{"action": nested(300)}]}]
    data = itinera()
    data["steps"][2]["interventions"][0] = work
    assert refused(data).errors["steps"].startswith("The document is nested more than 64")


def test_a_deep_document_is_a_form_error_and_a_422_never_a_500(client_as):
    data = itinera()
    data["options"]["deep"] = nested(80)  # past the document's 64, within the API edge's 100
    editor = client_as("editor")
    answer = upload(editor, content=json.dumps(data).encode())
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "<code>options</code>: The document is nested more than 64 levels deep" in page
    # The API's edge refuses a body nested past 100 levels; this one reaches the document's own
    # check, which names the place.
    client = api_client(client_as, "editor")
    answer = create(client, document=data)
    assert answer.status_code == 422
    assert "64 levels" in answer.get_json()["error"]["message"]
    system_id = create(client).get_json()["id"]
    replaced = client.put(f"/api/v1/systems/{system_id}", json=data, headers=client.headers)
    assert replaced.status_code == 422 and "64 levels" in replaced.get_json()["error"]["message"]
    assert db.session.get(System, system_id).document == itinera()
    assert stored_systems() == 1
    # A value or assumptions update takes a number or text: a nested body is refused whole.
    for url, body in [
        (
            f"/api/v1/systems/{system_id}/values",
            {"step_id": "x", "key": "ift", "value": nested(300)},
        ),
        (f"/api/v1/systems/{system_id}/assumptions", {"assumptions": nested(300)}),
        (f"/api/v1/systems/{system_id}/values", {"step_id": "x", "key": "ift", "x": nested(300)}),
    ]:
        answer = client.open(url, method="PUT" if "assumptions" in url else "POST", json=body,
                             headers=client.headers)  # fmt: skip
        assert answer.status_code == 422, (url, answer.status_code)
        assert answer.get_json()["error"]["code"] == "invalid_request"
    assert db.session.get(System, system_id).document == itinera()


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ("  ", "Give an id that is not blank (itinera writes a UUID)."),
        ("", "Give an id that is not blank (itinera writes a UUID)."),
        ("a\x00b", "An id is one line of visible text. Remove the control character U+0000 at "
         "character 2."),
        ("a\nb", "An id is one line of visible text. Remove the control character U+000A at "
         "character 2."),
        ("x" * 65, "An id is at most 64 characters."),
        ("a[1]", "An id may not hold [ or ]: a value's path puts the id in brackets."),
    ],
)  # fmt: skip
def test_ids_are_one_line_of_visible_text(bad, words):
    for where in ("steps[2].id", "steps[3].interventions[1].id", "steps[1].attributes[0].id"):
        data = itinera()
        step = data["steps"][int(where[6])]
        target = step["interventions"][1] if "interventions" in where else step
        target = step["attributes"][0] if "attributes" in where else target
        target["id"] = bad
        assert refused(data).errors == {where: words}


def test_an_id_the_rule_refuses_is_named_on_the_page_and_by_the_api(client_as):
    data = itinera()
    data["steps"][3]["interventions"][1]["id"] = "\x00"
    answer = upload(client_as("editor"), content=json.dumps(data).encode())
    assert answer.status_code == 422
    assert "<code>steps[3].interventions[1].id</code>: An id is one line" in answer.get_data(
        as_text=True
    )
    client = api_client(client_as, "editor")
    data["steps"][3]["interventions"][1]["id"] = "a\nb"
    error = create(client, document=data).get_json()["error"]
    assert error["details"]["errors"] == [
        {
            "loc": "steps[3].interventions[1].id",
            "code": "document_invalid",
            "message": "An id is one line of visible text. Remove the control character "
            "U+000A at character 2.",
        }
    ]
    assert stored_systems() == 0


def test_one_lookup_of_many_paths_answers_as_one_lookup_each():
    data = doc.validate_document(itinera())
    places = doc.Places(data)
    for step in data["steps"]:
        assert places.owner(step["id"], None) == doc.owner(data, step["id"], None)
        for work in step.get("interventions", []):
            assert places.owner(step["id"], work["id"])[1] is work
    with pytest.raises(doc.DocumentInvalid, match="has no intervention 'gone'"):
        places.owner(data["steps"][0]["id"], "gone")
    with pytest.raises(doc.DocumentInvalid, match="no step 'gone'"):
        places.owner("gone", None)
    step, work = data["steps"][3], data["steps"][3]["interventions"][1]
    path = doc.value_path(step["id"], work["id"], "ift")
    assert doc.value_entry(data, path) is None
    changed, _ = doc.set_value(data, step["id"], work["id"], "ift", 2)
    assert doc.value_entry(changed, path) == {"key": "ift", "value": 2, "reviewed": True}
    assert doc.value_entry(changed, doc.value_path("gone", work["id"], "ift")) is None


def test_a_full_step_takes_no_more_interventions_from_the_form(client_as):
    client = api_client(client_as, "editor")
    system_id = create(client, document=rotation(doc.INTERVENTIONS_PER_STEP, 1)).get_json()["id"]
    url = f"/systems/{system_id}"
    add_url = f"{url}/interventions/new?step=s0"
    fields = {"name": "Binage", "description": "", "day": "3", "type": "intervention_top"}
    refused = client.submit(add_url, fields, page=url)
    page = refused.get_data(as_text=True)
    assert refused.status_code == 422 and "A step holds at most 1,000 interventions" in page
    assert 'value="Binage"' in page
    # Nor does moving one into it.
    edit_url = f"{url}/interventions/edit?step=s1&intervention=s1-w0"
    moved = client.submit(edit_url, fields | {"step": "s0"}, page=url)
    assert moved.status_code == 422 and "A step holds at most 1,000" in moved.get_data(as_text=True)
    steps = db.session.get(System, system_id).document["steps"]
    assert [len(s["interventions"]) for s in steps] == [1_000, 1]
