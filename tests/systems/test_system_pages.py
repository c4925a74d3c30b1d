"""The farm-systems pages: the farm list, importing a file, the system page's timeline and grid,
and one cell edited in place."""

import html
import io
import json
import re
from pathlib import Path
from urllib.parse import urlencode

from sqlalchemy import select

from tests.support.html import soup
from webapp.extensions import db
from webapp.systems.document import value_path
from webapp.systems.drawer import cell_id
from webapp.systems.grid import STATES
from webapp.systems.models import Farm, System
from webapp.systems.runs import cells_to_calculate

DATA = Path(__file__).parent / "data"


def upload(client, name="example-system.json", content: bytes | None = None, **fields):
    content = content if content is not None else (DATA / name).read_bytes()
    data = {"farm": "GAEC des Sources", "region": "Normandie", "name": ""} | fields
    data["file"] = (io.BytesIO(content), name)
    return client.submit(
        "/systems/import", data, page="/systems/import", content_type="multipart/form-data"
    )


def test_an_editor_imports_a_file_and_sees_its_timeline_and_grid(client_as):
    editor = client_as("editor")
    assert "No farms yet" in editor.get("/systems").get_data(as_text=True)
    answer = upload(editor)
    assert answer.status_code == 302
    page = editor.get(answer.headers["Location"]).get_data(as_text=True)
    assert "Imported “ITK Maxime Besnard” into GAEC des Sources: 10 step(s)." in page
    assert page.count('class="step-bar') == 10 and page.count('class="mark ') == 31
    assert 'fill="#2d9f6e"' in page
    assert 'title="ift">Treatment frequency index<span class="column-type">IFT</span>' in page
    assert "Luzerne + trèfle violet et blanc" in page and "cover crop" in page
    # Every intervention-level indicator per intervention; a step's four overrides per step.
    assert page.count('class="cell-edit"') == 31 * 14 + 10 * 4
    listing = editor.get("/systems").get_data(as_text=True)
    assert "GAEC des Sources" in listing and "ITK Maxime Besnard" in listing


def test_a_bad_file_lists_its_problems_by_path_and_stores_nothing(client_as):
    editor = client_as("editor")
    document = json.loads((DATA / "example-system.json").read_text(encoding="utf-8"))
    document["steps"][3]["interventions"][2]["day"] = "demain"
    document["steps"][0]["startDate"] = "mars"
    answer = upload(editor, content=json.dumps(document).encode())
    page = answer.get_data(as_text=True)
    assert answer.status_code == 422
    assert "<code>steps[3].interventions[2].day</code>" in page
    assert "<code>steps[0].startDate</code>" in page and "Nothing was imported" in page
    for content, words in [
        (b"\xff\xfe{", "not UTF-8"),
        (b"{oops", "not JSON"),
    ]:
        refused = upload(editor, content=content)
        assert refused.status_code == 422 and words in refused.get_data(as_text=True)
    wrong_type = upload(editor, name="rotation.csv", content=b"a,b")
    assert "Only .json files." in wrong_type.get_data(as_text=True)
    assert db.session.scalar(select(db.func.count()).select_from(System)) == 0
    assert db.session.scalar(select(db.func.count()).select_from(Farm)) == 0


def test_viewers_see_the_page_but_cannot_import_or_edit(client_as):
    editor = client_as("editor")
    system_url = upload(editor).headers["Location"]
    viewer = client_as("viewer")
    page = viewer.get(system_url).get_data(as_text=True)
    assert "cell-edit" not in page and "Import an itinera file" not in viewer.get(
        "/systems"
    ).get_data(as_text=True)
    assert viewer.get("/systems/import").status_code == 403
    assert viewer.get(system_url + "/cell/edit?step=x&key=ift").status_code == 403


def _first_cell(page: str) -> str:
    """The URL htmx asks for the first intervention's IFT editor: the cell's hx-get with the
    step and intervention its row's hx-vals give."""
    row = re.search(r"<tr class=\"intervention-row\" hx-vals='([^']+)'>(.*?)</tr>", page, re.S)
    where = json.loads(html.unescape(row.group(1)))
    edit = re.search(r'hx-get="(/systems/\d+/cell/edit\?key=ift)"', row.group(2)).group(1)
    return f"{edit}&{urlencode(where)}"


def test_a_cell_is_edited_in_place_and_a_word_is_refused(htmx_client_as, client_as):
    editor = client_as("editor")
    system_url = upload(editor).headers["Location"]
    htmx = htmx_client_as("editor")
    edit_url = _first_cell(htmx.get(system_url).get_data(as_text=True))
    form = htmx.get(edit_url).get_data(as_text=True)
    assert 'name="value"' in form and "autofocus" in form
    fields = dict(re.findall(r'name="(step|intervention|key)" type="hidden" value="([^"]*)"', form))
    token = htmx.csrf_token("/account")
    headers = {"X-CSRFToken": token}
    word = htmx.post(f"{system_url}/cell", data=fields | {"value": "beaucoup"}, headers=headers)
    assert word.status_code == 422 and "is not a number" in word.get_data(as_text=True)
    saved = htmx.post(f"{system_url}/cell", data=fields | {"value": "2,5"}, headers=headers)
    cell = saved.get_data(as_text=True)
    assert saved.status_code == 200 and "state-reviewed" in cell and "2.5" in cell
    page = htmx.get(system_url).get_data(as_text=True)
    assert "Labour (Orge + Lupin): Treatment frequency index" in page
    plain = editor.submit(f"{system_url}/cell", fields | {"value": "3"}, page=system_url)
    assert plain.status_code == 302 and plain.headers["Location"].endswith("#grid")
    system = db.session.scalars(select(System)).one()
    assert system.document["steps"][0]["interventions"][0]["values"][0]["value"] == 3
    # The step's row adds it up (frequence unset counts once).
    assert '<span class="value-mark" aria-hidden="true">Σ</span> 3</td>' in editor.get(
        system_url
    ).get_data(as_text=True)


def test_a_missing_system_or_cell_is_404(client_as):
    viewer = client_as("viewer")
    assert viewer.get("/systems/99999").status_code == 404
    system_url = upload(client_as("editor")).headers["Location"]
    assert viewer.get(system_url + "/cell?step=nowhere&key=ift").status_code == 404


def test_a_step_row_edits_only_what_the_step_sets_for_itself(client_as):
    editor = client_as("editor")
    system_url = upload(editor).headers["Location"]
    system = db.session.scalars(select(System)).one()
    step = system.document["steps"][0]["id"]
    assert editor.get(f"{system_url}/cell/edit?step={step}&key=rendement").status_code == 200
    assert editor.get(f"{system_url}/cell/edit?step={step}&key=ift").status_code == 404


def test_a_reviewer_undoes_an_edit_from_the_system_page(client_as):
    editor = client_as("editor")
    system_url = upload(editor).headers["Location"]
    system = db.session.scalars(select(System)).one()
    step = system.document["steps"][0]
    fields = {"step": step["id"], "intervention": step["interventions"][0]["id"], "key": "gnr"}
    editor.submit(f"{system_url}/cell", fields | {"value": "18"}, page=system_url)
    assert "/review/undo/" not in editor.get(system_url).get_data(as_text=True)
    reviewer = client_as("reviewer")
    page = reviewer.get(system_url).get_data(as_text=True)
    assert "Labour (Orge + Lupin): Fuel, reviewed" in page
    undo_url = re.search(r'action="(/review/undo/\w+)"', page).group(1)
    done = reviewer.submit(undo_url, page=system_url)
    assert done.status_code == 302 and done.headers["Location"].endswith("#changes")
    after = reviewer.get(done.headers["Location"]).get_data(as_text=True)
    assert "Labour (Orge + Lupin): Fuel, Labour (Orge + Lupin): Fuel, reviewed." in after
    # One line naming what was undone, with the way to the whole history.
    [flash] = [m for m in soup(after).select(".flash") if "Undone" in m.get_text()]
    assert (
        flash.get_text() == "Undone — ITK Maxime Besnard: Labour (Orge + Lupin): Fuel, "
        "Labour (Orge + Lupin): Fuel, reviewed. History"
    )
    assert flash.a["href"].endswith("#changes")
    db.session.refresh(system)
    assert system.document["steps"][0]["interventions"][0]["values"] == []
    again = reviewer.submit(undo_url, page=system_url, follow_redirects=True)
    assert "There was nothing to undo." in again.get_data(
        as_text=True
    ) or "Nothing was undone" in again.get_data(as_text=True)


def _cell(page: str, step: str, intervention: str | None, key: str) -> str:
    """The <td> of one value on the system page."""
    found = re.search(rf'<td id="{cell_id(step, intervention, key)}" (.*?)</td>', page, re.S)
    return found.group(1)


def test_each_state_has_its_colour_mark_and_legend_entry(client_as):
    editor = client_as("editor")
    answer = upload(editor, "itinera-text-values.json")
    page = editor.get(answer.headers["Location"]).get_data(as_text=True)
    # The import names the values that are not numbers.
    assert "2 value(s) are text that is not a number" in page
    assert "Désherbage (Blé tendre d&#39;hiver): Fuel “environ 2”" in page
    legend = page.split('class="value-legend"')[1].split("</ul>")[0]
    for state, (mark, meaning) in STATES.items():
        entry = f'<li class="value-cell state-{state}"><span class="value-mark" aria-hidden="true">'
        assert f"{entry}{mark}</span> {html.escape(meaning, quote=False)}</li>" in legend
    assert len(set(mark for mark, _ in STATES.values())) == len(STATES)
    confident = _cell(page, "step-ble", "int-herbicide", "ift")
    assert "state-confident" in confident and ">★</span> 0.15" in confident
    unsure = _cell(page, "step-ble", "int-moisson", "gnr")
    assert "state-unreviewed confidence-medium" in unsure and ">?</span> 18" in unsure
    invalid = _cell(page, "step-ble", "int-herbicide", "gnr")
    assert "state-invalid" in invalid and ">!</span>" in invalid and "not a number" in invalid
    assert "“environ 2”, counted in no total" in invalid


def test_a_yield_shows_the_unit_its_step_states(client_as):
    editor = client_as("editor")
    system_url = upload(editor, "itinera-text-values.json").headers["Location"]
    page = editor.get(system_url).get_data(as_text=True)
    assert 'title="rendement">Yield<span class="column-type">unit per step</span>' in page
    assert '72 <span class="cell-unit">q/ha</span>' in _cell(page, "step-ble", None, "rendement")
    rapeseed = _cell(page, "step-colza", None, "rendement")
    assert '3.4 <span class="cell-unit">t/ha</span>' in rapeseed
    drawer = editor.get(
        f"{system_url}/cell/drawer?step=step-ble&intervention=&key=rendement"
    ).get_data(as_text=True)
    assert "Blé tendre d&#39;hiver › Yield (q/ha)" in drawer and "72</strong> q/ha" in drawer
    # One unit for every step: said once, in the heading.
    plain = upload(editor).headers["Location"]
    page = editor.get(plain).get_data(as_text=True)
    assert 'title="rendement">Yield<span class="column-type">t/ha</span>' in page
    assert 'class="cell-unit"' not in page


def test_text_that_is_not_a_number_is_never_calculated_over_nor_approved(client_as):
    editor = client_as("editor")
    upload(editor, "itinera-text-values.json")
    system = db.session.scalars(select(System)).one()
    gnr = value_path("step-ble", "int-herbicide", "gnr")
    assert gnr not in cells_to_calculate(system.document)
    assert value_path("step-colza", "int-semis", "gnr") in cells_to_calculate(system.document)
    refused = editor.submit(
        f"/systems/{system.id}/cell/approve",
        {"step": "step-ble", "intervention": "int-herbicide", "key": "gnr"},
        page=f"/systems/{system.id}",
    )
    assert refused.status_code == 302
    drawer = editor.get(refused.headers["Location"]).get_data(as_text=True)
    assert "“environ 2” is not a number: correct the value before approving it." in drawer
    assert "<strong>“environ 2”</strong>: not a number" in drawer
    assert ">Approve</button>" not in drawer
