"""What an empty cell's drawer tells the user to write is what the calculator reads."""

import copy

import pytest
from markupsafe import escape

from tests.systems.test_drawer import DOCUMENT, LABOUR, drawer_url
from tests.systems.test_system_api import api_client, create
from webapp.systems.assumptions import _ALIASES, canonical_key, key_label

pytestmark = pytest.mark.usefixtures("idle_queue")


def test_an_ingredient_without_a_bundled_eiq_asks_for_one_the_calculator_reads(client_as):
    document = copy.deepcopy(DOCUMENT)
    spray = document["steps"][0]["interventions"][0]
    spray |= {
        "name": "Désherbage",
        "description": "Désherbage Flufenacet 500 0,5 L/ha",
        "assumptions": "- **Matière active**: flufenacet\n- **Concentration**: 500 g/L\n",
    }
    editor = api_client(client_as, "editor")
    system_id = create(editor, document=document).get_json()["id"]
    page = editor.get(drawer_url(system_id, "eiq", work=LABOUR)).get_data(as_text=True)
    # Named in the page's language, as a key the calculator reads when written so.
    assert "The calculator needs: <strong>Active ingredient EIQ</strong>" in page
    assert str(escape("(“- **Active ingredient EIQ**: …”)")) in page
    assert str(escape("or the field use rating itself (“- **EIQ**: …”)")) in page
    assert "matière active" not in page.split("The calculator needs")[1].split("</p>")[0]


def test_every_key_a_page_names_is_one_the_calculators_read_as_written():
    for key in _ALIASES:
        label = key_label(key)
        assert label.isascii() and canonical_key(label) == key, (key, label)
