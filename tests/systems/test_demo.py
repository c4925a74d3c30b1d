"""The demo farm system: loaded once by `furrow demo`, a valid itinera document."""

import json
from pathlib import Path

from sqlalchemy import select

from tests.support.app import furrow
from webapp.extensions import db
from webapp.systems.calculators import CALCULATORS, calculate_in
from webapp.systems.demo import DEMO_DOCUMENT
from webapp.systems.document import validate_document
from webapp.systems.models import System
from webapp.systems.totals import step_totals

DATA = Path(__file__).parents[2] / "webapp" / "systems" / "data"

# What the demo cannot calculate offline, and why: the reference file gives no EIQ for these
# products' active ingredients (nor names Altiplano DAM Tec's), and no price for Altiplano DAM Tec.
NOT_CALCULATED = {
    ("colza-traitement", "eiq"),
    ("colza-traitement", "coutsPhytos"),
    ("ble-insecticide", "eiq"),
    ("ble-fongicide", "eiq"),
    ("orge-desherbage", "eiq"),
}


def work():
    return [(s["id"], i) for s in DEMO_DOCUMENT["steps"] for i in s["interventions"]]


def test_the_demo_document_is_a_small_arable_rotation_with_doses():
    assert validate_document(DEMO_DOCUMENT) == DEMO_DOCUMENT
    steps = DEMO_DOCUMENT["steps"]
    work = [i for s in steps for i in s["interventions"]]
    assert len(steps) == 4 and 14 <= len(work) <= 18
    assert any(s["secondary_crop"] for s in steps)
    assert any("Roundup Extra 360 3,5 L/ha sur 30 %" in i["description"] for i in work)


def test_furrow_demo_loads_the_system_once(app):
    first = furrow(app, "demo")
    assert "added the demo farm system" in first.stdout, first.stderr
    again = furrow(app, "demo")
    assert "there are farm systems; no demo system" in again.stdout
    system = db.session.scalars(select(System)).one()
    assert system.farm.name == "Ferme de démonstration"
    assert system.name == DEMO_DOCUMENT["title"] and system.document == DEMO_DOCUMENT


def test_the_demo_calculates_offline_end_to_end():
    calculated, lacking = {}, set()
    for step_id, intervention in work():
        for key in CALCULATORS:
            result = calculate_in(DEMO_DOCUMENT, step_id, intervention["id"], key)
            if result.value is None:
                lacking.add((intervention["id"], key))
            else:
                assert result.applicable, (intervention["id"], key, result.caveats)
                calculated[intervention["id"], key] = result.value
    assert lacking == NOT_CALCULATED
    assert calculated["ble-glyphosate", "coutsPhytos"] == 3.9375  # 3.5 L/ha × 3.75 €/L × 30 %
    assert calculated["colza-dechaumage", "mecanisation"] == 10.9  # disc cultivator ≥ 4 m
    assert calculated["colza-dechaumage", "gnr"] == 8  # a deep loam, not a clay
    assert calculated["colza-semis", "gnr"] > 0  # 10.4 L/h over 1.6–1.9 ha/h


def test_every_demo_spray_has_a_reference_dose():
    sprays = 0
    for step_id, intervention in work():
        result = calculate_in(DEMO_DOCUMENT, step_id, intervention["id"], "ift")
        if result.value:
            sprays += 1
            assert "ift_no_reference_dose" not in [c.code for c in result.caveats]
            assert any("Agrosyst" in s.title for s in result.sources)
    assert sprays == 5


def test_the_demo_steps_state_their_yield_and_price():
    products = {s["id"]: step_totals(s).values.get("totalProduits") for s in DEMO_DOCUMENT["steps"]}
    assert products == {"colza": 3.5 * 450, "ble": 8.5 * 200, "couvert": 0, "orge": 7 * 220}


def test_the_demo_rapeseed_treatment_states_no_segment_the_reference_table_does_not_give():
    """The bundled reference doses name a product, crop, target and dose, never a product's
    type, and their one rapeseed product is Altiplano DAM Tec: the demo's autumn treatment is
    counted as other and says so, rather than guessing a segment."""
    table = json.loads((DATA / "ift_reference_doses.json").read_text(encoding="utf-8"))["doses"]
    stated = {"product", "crop", "target", "value", "unit", "source", "url", "claim"}
    assert all(set(row) <= stated for row in table)
    assert [row["product"] for row in table if row["crop"] == "rapeseed"] == ["ALTIPLANO DAM TEC"]
    result = calculate_in(DEMO_DOCUMENT, "colza", "colza-traitement", "ift")
    assert result.value == 1.0 and result.parts["other"] == 1.0
    assert [c.code for c in result.caveats] == ["ift_segment_unknown"]
