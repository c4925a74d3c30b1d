"""A system page shows its grid and its list of steps one page of interventions at a time:
a long step goes on over pages with its row (and its totals over all of it) on each, and a
cell of any page is edited in place as on the first."""

import re

from tests.systems.test_document_limits import rotation
from tests.systems.test_system_api import api_client, create
from webapp.systems import grid
from webapp.systems.editing import outline


def paged_system(client) -> int:
    """Steps of 150, 3 and 0 interventions: two pages of 100."""
    return create(client, document=rotation(150, 3, 0)).get_json()["id"]


def grid_rows(page: str) -> list[str]:
    """The grid's rows by the name in their header cell."""
    body = page.split('<table class="data system-grid">')[1].split("</table>")[0]
    return [
        re.sub(r"<[^>]+>|▼|▲", "", name).strip()
        for name in re.findall(r'<th scope="row">(.*?)</th>', body)
    ]


def test_the_window_pages_interventions_in_the_grids_order():
    document = rotation(150, 3, 0)
    first = grid.window(document, 1)
    assert (first.page.number, first.page.pages, first.page.total) == (1, 2, 153)
    assert [(s["id"], len(w)) for s, w in first.steps] == [("s0", 100)]
    last = grid.window(document, 2)
    assert [(s["id"], len(w)) for s, w in last.steps] == [("s0", 50), ("s1", 3), ("s2", 0)]
    assert last.steps[0][1][0]["id"] == "s0-w100"
    assert grid.window(document, 99).page.number == 2  # past the end: the last page
    empty = grid.window({"steps": []}, 1)
    assert (empty.steps, empty.page.pages) == ([], 1)
    rows = grid.rows(document, grid.columns(document), last)
    assert [(r.step_id, r.intervention_id) for r in rows[:2]] == [("s0", None), ("s0", "s0-w100")]
    assert len(rows) == 3 + 50 + 3
    levels = outline(document, last.steps)
    assert [(s.id, s.number, s.last, s.count, len(s.interventions)) for s in levels] == [
        ("s0", 1, False, 150, 50),
        ("s1", 2, False, 3, 3),
        ("s2", 3, True, 0, 0),
    ]


def test_a_long_system_page_shows_one_page_of_interventions(client_as):
    editor = api_client(client_as, "editor")
    system_id = paged_system(editor)
    first = editor.get(f"/systems/{system_id}").get_data(as_text=True)
    rows = grid_rows(first)
    assert rows[0] == "Blé 0" and rows[1:] == [f"Passage {n}" for n in range(100)]
    assert "Interventions 1–100 of 153, 100 a page" in first
    assert f'href="/systems/{system_id}?page=2#grid" rel="next"' in first
    assert f'href="/systems/{system_id}?page=2#steps" rel="next"' in first
    assert "100 of its 150 interventions are on this page (page 1 of 2)." in first
    # The step's row totals all 150 interventions, not only this page's.
    step_row = first.split('<tr class="step-row"')[1].split("</tr>")[0]
    assert "Σ</span> 150" in step_row
    second = editor.get(f"/systems/{system_id}?page=2").get_data(as_text=True)
    rows = grid_rows(second)
    assert rows[0] == "Blé 0" and rows[1] == "Passage 100" and rows[50] == "Passage 149"
    assert rows[51:] == ["Blé 1", "Passage 0", "Passage 1", "Passage 2", "Blé 2"]
    assert "Interventions 101–153 of 153" in second and 'rel="prev"' in second
    assert "Σ</span> 150" in second.split('<tr class="step-row"')[1].split("</tr>")[0]
    # Moving a step up or down follows its place among all the steps, not on this page.
    steps = second.split('<section id="steps">')[1]
    assert steps.count('aria-label="Move up"') == 2 and steps.count('aria-label="Move down"') == 2
    assert 'aria-label="Move up" aria-describedby="step-1-name"' not in steps
    assert 'aria-label="Move down" aria-describedby="step-3-name"' not in steps


def test_a_cell_on_a_later_page_is_edited_in_place(htmx_client_as):
    editor = htmx_client_as("editor")
    editor.headers = {"X-CSRFToken": editor.csrf_token("/account")}
    system_id = paged_system(editor)
    where = {"step": "s0", "intervention": "s0-w140", "key": "ift"}
    form = editor.get(f"/systems/{system_id}/cell/edit", query_string=where)
    assert form.status_code == 200 and 'name="value"' in form.get_data(as_text=True)
    saved = editor.submit(f"/systems/{system_id}/cell", where | {"value": "2,5"})
    assert saved.status_code == 200 and "2.5" in saved.get_data(as_text=True)
    page = editor.get(f"/systems/{system_id}?page=2").get_data(as_text=True)
    # The step's total, 151.5, as people read it: to 3 significant figures.
    assert "Σ</span> 152" in page.split('<tr class="step-row"')[1].split("</tr>")[0]
    gone = editor.get(f"/systems/{system_id}/cell", query_string=where | {"intervention": "x"})
    assert gone.status_code == 404
