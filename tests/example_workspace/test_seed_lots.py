"""The example workspace end to end: its own page starts a lookup; the core's run page shows
the cited weights and what was found for nothing; the core applies, refuses what the lot's
rules refuse, and undoes — with no review code in the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from rq import Queue
from sqlalchemy import delete, select

from tests.example_workspace.models import Base, SeedLot
from tests.example_workspace.rules import GERMINATION, WEIGHT, field_errors, looked_up_weight
from tests.example_workspace.runs import WeightLookup
from tests.review.test_core_imports import imported_modules, kind_of
from tests.support.app import PASSWORD, Client
from tests.support.html import by_id, soup
from tests.support.tables import run_here
from webapp import create_app, workspaces
from webapp.config import load_settings
from webapp.extensions import db
from webapp.jobs.models import Run
from webapp.jobs.queue import JobQueue
from webapp.reference.library import library
from webapp.review.models import Suggestion
from webapp.workspaces import WORKSPACE

SEED_LOTS = workspaces.Workspace(
    "seed_lots",
    "Seed lots",
    "/seed-lots",
    "Weigh seed lots against the reference library.",
    package="tests.example_workspace",
)


@pytest.fixture(scope="module")
def seed_app(services, session_app) -> Iterator[Flask]:
    """The app with the seed lots as one more entry of WORKSPACES, as the README says to add
    a workspace; its runs wait on a queue no worker listens on, and are worked here."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(workspaces, "WORKSPACES", (*workspaces.WORKSPACES, SEED_LOTS))
        app = create_app(load_settings(services.env()))
    app.config["TESTING"] = True
    app.test_client_class = Client
    jobs = app.extensions["furrow.jobs"]
    idle = Queue(f"{jobs.queue.name}-seed-lots", connection=jobs.redis)
    app.extensions["furrow.jobs"] = JobQueue(jobs.redis, idle)
    with app.app_context():
        Base.metadata.create_all(db.engine)
    yield app
    with app.app_context():
        Base.metadata.drop_all(db.engine)
        db.engine.dispose()


@pytest.fixture
def lots(app, seed_app) -> Iterator[dict[str, int]]:
    made = [
        SeedLot(name="Lot 24-01", crop="Spring barley"),
        SeedLot(name="Lot 24-02", crop="Carrot"),
        SeedLot(name="Lot 24-03", crop="Cow peas"),  # a cowpea, not the garden pea
        SeedLot(name="Lot 24-04", crop="Winter wheat", thousand_kernel_weight_g=42.0),
        SeedLot(name="Lot 24-05", crop="Faba bean"),  # the library gives a bound, no weight
    ]
    db.session.add_all(made)
    db.session.commit()
    yield {lot.name: lot.id for lot in made}
    db.session.execute(delete(SeedLot))
    db.session.commit()


@pytest.fixture
def sign_in(seed_app, make_user):
    def signed_in(role: str) -> Client:
        client = seed_app.test_client()
        assert client.login(make_user(role).email, PASSWORD).status_code == 302
        return client

    return signed_in


def weight(lot_id: int) -> float | None:
    db.session.expire_all()
    return db.session.get(SeedLot, lot_id).thousand_kernel_weight_g


def test_a_lookup_is_reviewed_applied_refused_and_undone_on_the_cores_pages(lots, sign_in):
    editor, reviewer = sign_in("editor"), sign_in("reviewer")
    assert 'href="/seed-lots"' in editor.get("/").get_data(as_text=True)  # in the header
    started = editor.submit("/seed-lots/lookup", page="/seed-lots")
    assert started.status_code == 302
    review = started.headers["Location"]
    run = db.session.scalars(select(Run).where(Run.kind == WeightLookup.name)).one()
    assert review == f"/review/runs/{run.id}"
    assert run.items == [str(lots[n]) for n in ("Lot 24-01", "Lot 24-02", "Lot 24-03", "Lot 24-05")]
    run_here(run, WeightLookup())

    page = soup(reviewer.get(review))
    suggested = {s.target_id: s for s in db.session.scalars(select(Suggestion))}
    barley, carrot = suggested[lots["Lot 24-01"]], suggested[lots["Lot 24-02"]]
    row = by_id(page, f"suggestion-{barley.id}")
    text = row.get_text(" ", strip=True)
    assert "Lot 24-01: Thousand-kernel weight" in text and "46.5 g" in text
    assert "Huge variation in thousand grain weight" in text  # the source, cited
    assert "The source gives 39–54 g; its midpoint is proposed." in text
    assert "The source speaks of varieties grown in Ireland." in text
    assert by_id(page, "nothing-count").a.get_text() == "2 weight(s) with nothing proposed"
    nothing = soup(reviewer.get(f"{review}?level=nothing")).select("#proposal tbody tr")
    said = [tr.get_text(" ", strip=True) for tr in nothing]
    assert "cowpea, a Vigna, not the garden pea" in said[0] and "Lot 24-03" in said[0]
    assert "states no weight for Faba bean" in said[1]

    # The page's own form: the barley's weight as proposed, the carrot's typed over.
    form = by_id(page, "review-form")
    back = form.find("input", attrs={"name": "back"})["value"]
    chosen = {"suggestion": [str(barley.id), str(carrot.id)], "back": back}
    refused = reviewer.submit(form["action"], chosen | {f"value-{carrot.id}": "-3"}, page=review)
    said = soup(reviewer.get(refused.headers["Location"])).get_text(" ", strip=True)
    assert "Applied Thousand-kernel weight of Lot 24-01." in said
    assert "Not applied — Thousand-kernel weight of Lot 24-02: " in said
    assert "A thousand-kernel weight is more than 0 g." in said  # the lot's own rule
    assert weight(lots["Lot 24-01"]) == 46.5 and weight(lots["Lot 24-02"]) is None
    # The typed value stays on the suggestion; typed again, as weighed, it applies.
    weighed = {"suggestion": str(carrot.id), f"value-{carrot.id}": "1,6", "back": back}
    applied = reviewer.submit(form["action"], weighed, page=review)
    assert weight(lots["Lot 24-02"]) == 1.6
    decided = soup(reviewer.get(applied.headers["Location"]))
    assert not decided.find(id="apply-all") and not decided.find(id="reject-all")  # none open
    assert "1.6 g" in by_id(soup(reviewer.get("/seed-lots")), f"lot-{lots['Lot 24-02']}").text

    # The core's undo, from the page the apply returned to; the same undo again is refused.
    undo = by_id(soup(reviewer.get(applied.headers["Location"])), "undo-form")
    undone = reviewer.submit(undo["action"], {"back": back}, page=review)
    assert "Undone — Lot 24-02: Thousand-kernel weight." in reviewer.get(
        undone.headers["Location"]
    ).get_data(as_text=True)
    assert weight(lots["Lot 24-02"]) is None and weight(lots["Lot 24-01"]) == 46.5
    again = reviewer.submit(undo["action"], {"back": back}, page=review, follow_redirects=True)
    assert "Nothing was undone" in again.get_data(as_text=True)

    # The core's API answers for the workspace too.
    listed = reviewer.get(f"/api/v1/runs/{run.id}/suggestions").get_json()
    names = {t["name"] for t in listed["targets"]}
    assert {"Lot 24-01", "Lot 24-02", "Lot 24-03"} <= names


def test_the_rules_are_plain_functions():
    assert field_errors({WEIGHT: 0, GERMINATION: 101}) == {
        WEIGHT: "A thousand-kernel weight is more than 0 g.",
        GERMINATION: "Germination is a share of the seeds: 0 to 100 %.",
    }
    assert field_errors({WEIGHT: 46.5, GERMINATION: 92}) == {}
    reference = library()
    barley = reference.resolve("Spring barley").fact(WEIGHT)
    value, issues = looked_up_weight(barley)
    assert value == 46.5 and [i.code for i in issues] == ["range_midpoint", "scoped_source"]
    maize = reference.resolve("Grain maize").fact(WEIGHT)
    assert "derived_figure" in [i.code for i in looked_up_weight(maize)[1]]
    assert looked_up_weight(reference.resolve("Faba bean").fact(WEIGHT)) == (None, [])


def test_the_example_imports_the_core_and_no_workspace():
    for path in Path(__file__).parent.glob("*.py"):
        for module in imported_modules(path):
            parts = module.split(".")
            if parts[0] == "webapp" and len(parts) > 1:
                assert kind_of(parts[1]) != WORKSPACE, (path.name, module)
