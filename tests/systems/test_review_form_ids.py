"""A review form's suggestion ids are read by the project's one rule (webapp.ids): "²", thirty
digits or a negative number name no suggestion, so nothing is applied or rejected for them and
the page says so, never a 500."""

import pytest

from tests.systems.test_calculation_runs import path, started, suggestions
from tests.systems.test_system_api import api_client, create
from webapp.extensions import db
from webapp.review.models import Suggestion

pytestmark = pytest.mark.usefixtures("idle_queue")

NOT_IDS = ["²", "1" * 30, "-1", " 7", "0", "٣"]


def test_ids_that_name_no_suggestion_apply_and_reject_nothing(client_as):
    editor = api_client(client_as, "editor")
    system_id = create(editor).get_json()["id"]
    run = started(editor, system_id)
    ift = suggestions(run)[path("ift")]
    reviewer = client_as("reviewer")
    url = f"/review/runs/{run.id}"
    for verb, said in [
        ("apply", "Choose the values to apply."),
        ("reject", "Choose the values to reject."),
    ]:
        answer = reviewer.submit(f"{url}/{verb}", {"suggestion": NOT_IDS}, page=url)
        assert answer.status_code == 302, verb
        assert said in reviewer.get(answer.headers["Location"]).get_data(as_text=True)
    assert db.session.get(Suggestion, ift.id).status == "pending"
    # A real id beside them is applied; a reconfirm list of non-ids is no harm either.
    answer = reviewer.submit(
        f"{url}/apply", {"suggestion": [*NOT_IDS, str(ift.id)], "reconfirm": NOT_IDS}, page=url
    )
    assert answer.status_code == 302 and "undo=" in answer.headers["Location"]
    db.session.expire_all()
    assert db.session.get(Suggestion, ift.id).status == "applied"
