"""What an empty cell's drawer tells the user to write is what the calculator reads."""

import copy

import pytest
from markupsafe import escape

from tests.systems.test_drawer import DOCUMENT, LABOUR, drawer_url
from tests.systems.test_system_api import api_client, create

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
    assert "The calculator needs: <strong>EIQ matière active</strong>" in page
    assert str(escape("(“- **EIQ matière active**: …”)")) in page
    assert str(escape("or the field use rating itself (“- **EIQ**: …”)")) in page
