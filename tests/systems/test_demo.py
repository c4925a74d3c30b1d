"""The demo farm system: loaded once by `furrow demo`, a valid itinera document."""

from sqlalchemy import select

from tests.support.app import furrow
from webapp.extensions import db
from webapp.systems.demo import DEMO_DOCUMENT
from webapp.systems.document import validate_document
from webapp.systems.models import System


def test_the_demo_document_is_a_small_arable_rotation_with_doses():
    assert validate_document(DEMO_DOCUMENT) == DEMO_DOCUMENT
    steps = DEMO_DOCUMENT["steps"]
    work = [i for s in steps for i in s["interventions"]]
    assert len(steps) == 4 and 14 <= len(work) <= 18
    assert any(s["secondary_crop"] for s in steps)
    assert any("Roundup Extra 360 3,5 L/ha sur 30 %" in i["description"] for i in work)


def test_furrow_demo_loads_the_system_once(app, services):
    first = furrow(services, "demo")
    assert "added the demo farm system" in first.stdout, first.stderr
    again = furrow(services, "demo")
    assert "there are farm systems; no demo system" in again.stdout
    system = db.session.scalars(select(System)).one()
    assert system.farm.name == "Ferme de démonstration"
    assert system.name == DEMO_DOCUMENT["title"] and system.document == DEMO_DOCUMENT
