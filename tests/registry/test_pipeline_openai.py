"""The pipeline with the openai provider (the loopback server): for each requirement and each
document its category maps to, a type-aware prompt with the requirement's schema; the answer's
passages stored with their structured fields, routed by name into cross-validation; anything
the model can send that is not evidence is that requirement's problem (the run goes on);
answers cached by document, so a second run asks nothing; the cost on the run."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from flask import current_app

from tests.registry import documents as made
from tests.support.openai_server import ScriptedOpenAI, chat_body, responses_body
from tests.support.tables import run_here
from tests.tables.test_enrichment_runs import openai_app  # noqa: F401 - a fixture
from webapp.extensions import db
from webapp.registry import documents as docs
from webapp.registry import extraction
from webapp.registry.checklist import bundled
from webapp.registry.review_state import checks, create_review, requirement
from webapp.registry.runs import ReviewAssessment, start_review_run

pytestmark = pytest.mark.usefixtures("idle_queue", "openai_app")

CHECKLIST = bundled()
NO_EVIDENCE = {"snippets": []}
PLAN = "Project plan.pdf"


class Routed:
    """The loopback server's replies chosen by what is asked (requirement and document), as
    documents are asked in parallel: each route's replies in turn, its last one repeated;
    an answer without evidence where no route is set."""

    def __init__(self, server: ScriptedOpenAI, chat: bool = False) -> None:
        self.server, self.chat = server, chat
        self.routes: dict[tuple[str, str], list[tuple[int, Any]]] = {}
        server.replies = self  # the server asks popleft() right after it records the request

    def __bool__(self) -> bool:
        return True

    def route(self, requirement_id: str, document: str, *replies: Any, status: int = 200):
        self.routes[(requirement_id, document)] = [(status, r) for r in replies]

    def popleft(self) -> tuple[int, dict[str, Any], dict[str, str]]:
        _path, body = self.server.requests[-1]
        prompt = body["messages"][-1]["content"] if self.chat else body["input"]
        for (requirement_id, document), replies in self.routes.items():
            if f"Requirement {requirement_id} (" in prompt and f"Document: {document}\n" in prompt:
                status, reply = replies.pop(0) if len(replies) > 1 else replies[0]
                return status, self.body(reply) if status == 200 else reply, {}
        return 200, self.body(NO_EVIDENCE), {}

    def body(self, answer: Any) -> dict[str, Any]:
        text = answer if isinstance(answer, str) else json.dumps(answer)
        return chat_body(text) if self.chat else responses_body(text, searches=0)

    def asked(self) -> list[tuple[str, str]]:
        """(requirement, document) of each request so far."""
        found = []
        for _path, body in self.server.requests:
            prompt = body["messages"][-1]["content"] if self.chat else body["input"]
            requirement_id = prompt.split(" ", 2)[1]
            found.append((requirement_id, prompt.split("Document: ", 1)[1].split("\n", 1)[0]))
        return found


def passage(requirement_id: str, page: int, text: str, confidence=0.9, **fields) -> dict:
    """One passage of an answer, with the requirement's fields (None unless given)."""
    wanted = CHECKLIST.requirement(requirement_id).structured_fields
    said = {"page": page, "section": None, "text": text, "confidence": confidence}
    if wanted:
        said["structured_fields"] = {f.value: fields.get(f.value) for f in wanted}
    return said


def answer(*passages: dict) -> dict:
    return {"snippets": list(passages)}


TENURE_TEXT = f"The farm is owned by {made.OWNER}, who holds the freehold title to 101.2 ha."
PLAN_OWNER = answer(
    passage(
        "REQ-002", 4, TENURE_TEXT,
        owner_name=made.OWNER, area_hectares="101.2 ha", tenure_type="freehold",
    )
)  # fmt: skip
PLAN_START = answer(
    passage(
        "REQ-007", 2, f"The project start date is {made.START_DATE}.",
        project_start_date=made.START_DATE,
    )
)  # fmt: skip


def deed_owner(owner: str) -> dict:
    return answer(
        passage(
            "REQ-002", 1, f"The land known as Denman farm is owned by {owner}.", 0.8,
            owner_name=owner, tenure_type="freehold ownership",
        )
    )  # fmt: skip


@pytest.fixture
def routed(openai_app):  # noqa: F811 - the fixture imported above
    return Routed(openai_app)


def assess(user, files: dict[str, bytes], review=None):
    """Assess a review of the files (a new one unless given) with the run, worked here."""
    if review is None:
        review = create_review("Denman farm", None, user)
        for name, data in files.items():
            docs.add_document(review, name, data, user)
        db.session.commit()
    run = run_here(start_review_run(review, user), ReviewAssessment())
    db.session.refresh(review)
    return review, run


def found_checks(review) -> dict[str, dict]:
    return {c["check"]: c for c in checks(review)}


def test_the_models_snippets_carry_fields_routed_by_name_into_cross_validation(make_user, routed):
    routed.route("REQ-002", "Project plan.pdf", PLAN_OWNER)
    routed.route("REQ-002", "Title deed.pdf", deed_owner(made.SAME_OWNER))
    routed.route("REQ-007", "Project plan.pdf", PLAN_START)
    review, run = assess(
        make_user("editor"), {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_SAME_OWNER}
    )
    assert run.status == "succeeded", run.item_errors
    assert (run.provider, run.model) == ("openai", current_app.config["FURROW"].openai_model)

    asked = routed.asked()
    assert sorted(d for r, d in asked if r == "REQ-002") == ["Project plan.pdf", "Title deed.pdf"]
    assert [d for r, d in asked if r == "REQ-007"] == ["Project plan.pdf"]  # the plan's category
    assert len(asked) == len(set(asked))
    _path, first = routed.server.requests[0]
    assert first["text"]["format"]["name"] == "requirement_evidence"
    assert first["tools"] == []  # the document is the source: no web search
    assert "[page 1]" not in first["input"] and "[page 3]" not in first["input"]  # contents, blank
    tenure_prompt = next(
        b["input"] for _p, b in routed.server.requests if "REQ-002 (" in b["input"]
    )
    assert "owner_name (Owner)" in tenure_prompt

    tenure = requirement(review, "REQ-002")
    # Every field is stated; "freehold" and "freehold ownership" are one tenure.
    assert tenure.status == "covered" and tenure.problems == []
    assert [(s["title"], s["locator"]["page"]) for s in tenure.snippets] == [
        ("Project plan.pdf", 4),
        ("Title deed.pdf", 1),
    ]  # fmt: skip  (best first)
    assert tenure.snippets[0]["fields"] == {
        "owner_name": made.OWNER, "area_hectares": "101.2 ha", "tenure_type": "freehold",
    }  # fmt: skip
    assert requirement(review, "REQ-007").status == "partial"  # a start date, no project ID
    found = found_checks(review)
    assert found["owner_name_present"]["status"] == "pass"
    consistent = found["owner_name_consistent"]
    assert consistent["status"] == "warning" and "may be one person" in consistent["message"]
    assert consistent["values"] == {
        "Project plan.pdf": made.OWNER, "Title deed.pdf": made.SAME_OWNER,
    }  # fmt: skip
    assert found["project_start_date_valid"]["status"] == "pass"  # read day-first
    assert found["tenure_type_consistent"]["status"] == "pass"

    requests = len(routed.server.requests)
    assert (run.input_tokens, run.output_tokens) == (1000 * requests, 200 * requests)
    assert float(run.cost_usd) == pytest.approx(requests * (1000 * 0.25 + 200 * 2.0) / 1e6)


def test_an_owner_who_is_another_person_fails(make_user, routed):
    routed.route("REQ-002", "Project plan.pdf", PLAN_OWNER)
    routed.route("REQ-002", "Title deed.pdf", deed_owner(made.OTHER_OWNER))
    review, run = assess(
        make_user("editor"),
        {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_OTHER_OWNER},
    )
    assert run.status == "succeeded", run.item_errors
    consistent = found_checks(review)["owner_name_consistent"]
    assert consistent["status"] == "fail" and "different people" in consistent["message"]


def test_documents_are_asked_in_parallel_within_a_requirement(make_user, routed):
    routed.server.delay = 0.1
    _review, run = assess(
        make_user("editor"),
        {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_SAME_OWNER},
    )
    assert run.status == "succeeded", run.item_errors
    assert routed.server.most_in_flight == 2  # the plan and the deed for Land Tenure


REFUSAL = {
    **responses_body("", searches=0),
    "output": [
        {
            "type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
            "content": [{"type": "refusal", "refusal": "I cannot help with that."}],
        }
    ],
}  # fmt: skip


@pytest.mark.parametrize(
    ("reply", "problem"),
    [
        (answer(passage("REQ-002", "four", TENURE_TEXT)), "unusable: snippets.0.page"),
        (answer(passage("REQ-002", 4, [TENURE_TEXT])), "unusable: snippets.0.text"),
        (answer(passage("REQ-002", 4, TENURE_TEXT, owner_name=["Nicholas", "Denman"])),
         "unusable: snippets.0.structured_fields.owner_name"),
        (json.dumps(answer(passage("REQ-002", 4, TENURE_TEXT, float("nan")))),
         "unusable: snippets.0.confidence"),
        ("", "unusable: the answer is not valid JSON"),
        ("{'snippets': [", "unusable: the answer is not valid JSON"),
        (answer(passage("REQ-002", 9, TENURE_TEXT)), f"page 9 of {PLAN}, which does not exist"),
        (answer(passage("REQ-002", 3, TENURE_TEXT)), f"page 3 of {PLAN}, a page without text"),
        (answer(passage("REQ-002", 1, "2 Land tenure ..... 4")), f"page 1 of {PLAN}, a contents"),
        (answer(passage("REQ-002", 2, TENURE_TEXT)), f"on page 2 of {PLAN} is not there"),
    ],
    ids=["word-page", "list-text", "list-field", "nan", "empty", "invalid-json", "no-such-page",
         "blank-page", "contents-page", "not-on-the-page"],
)  # fmt: skip
def test_an_untrusted_answer_is_the_requirements_problem_and_the_run_goes_on(
    make_user, routed, reply, problem
):
    routed.route("REQ-002", "Project plan.pdf", reply)
    routed.route("REQ-007", "Project plan.pdf", PLAN_START)
    review, run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    tenure = requirement(review, "REQ-002")
    assert tenure.snippets == [] and tenure.status == "missing"
    assert len(tenure.problems) == 1 and problem in tenure.problems[0], tenure.problems
    assert requirement(review, "REQ-007").snippets  # the other requirements are done


def test_a_refusal_is_the_requirements_problem(make_user, routed):
    routed.route("REQ-002", "Project plan.pdf", REFUSAL, status=200)
    routed.body = lambda answer, body=routed.body: answer if answer is REFUSAL else body(answer)
    review, run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    assert "unusable" in requirement(review, "REQ-002").problems[0]


def test_a_second_run_over_the_same_documents_asks_nothing_and_costs_nothing(
    make_user, routed, monkeypatch
):
    user = make_user("editor")
    routed.route("REQ-002", "Project plan.pdf", PLAN_OWNER)
    review, first = assess(user, {"Project plan.pdf": made.PLAN})
    asked = len(routed.server.requests)
    assert asked and float(first.cost_usd) > 0
    _review, second = assess(user, {}, review)
    assert second.status == "succeeded", second.item_errors
    assert len(routed.server.requests) == asked
    assert float(second.cost_usd) == 0 and second.input_tokens == 0
    assert requirement(review, "REQ-002").snippets[0]["fields"]["owner_name"] == made.OWNER

    docs.add_document(review, "Title deed.pdf", made.DEED_SAME_OWNER, user)
    db.session.commit()
    assess(user, {}, review)
    new = routed.asked()[asked:]
    assert new and {d for _r, d in new} == {"Title deed.pdf"}  # only the new document
    monkeypatch.setattr(extraction, "PROMPT_VERSION", "registry-evidence-next")
    before = len(routed.server.requests)
    _review, fourth = assess(user, {}, review)
    assert len(routed.server.requests) == before + asked + len(new)  # a new prompt asks again
    assert float(fourth.cost_usd) > 0


def test_a_provider_error_is_that_requirements_error_and_the_others_are_done(make_user, routed):
    routed.route("REQ-002", "Project plan.pdf", {"error": {"message": "bad request"}}, status=400)
    routed.route("REQ-002", "Title deed.pdf", deed_owner(made.SAME_OWNER))
    routed.route("REQ-007", "Project plan.pdf", PLAN_START)
    user = make_user("editor")
    review, run = assess(
        user, {"Project plan.pdf": made.PLAN, "Title deed.pdf": made.DEED_SAME_OWNER}
    )
    assert run.status == "completed_with_errors"
    error = run.item_errors["evidence:REQ-002"]
    assert "Project plan.pdf" in error and "The provider failed" in error
    assert requirement(review, "REQ-007").snippets
    assert run.results["report"]
    # The deed's answer was kept: the next run asks only what failed.
    asked = len(routed.server.requests)
    routed.route("REQ-002", "Project plan.pdf", PLAN_OWNER)
    _review, again = assess(user, {}, review)
    assert again.status == "succeeded", again.item_errors
    assert routed.asked()[asked:] == [("REQ-002", "Project plan.pdf")]
    assert len(requirement(review, "REQ-002").snippets) == 2


def test_chat_completions_servers_give_evidence_too(make_user, openai_app):  # noqa: F811
    current_app.config["FURROW"] = dataclasses.replace(
        current_app.config["FURROW"], openai_api="chat"
    )
    chat = Routed(openai_app, chat=True)
    chat.route("REQ-002", "Project plan.pdf", PLAN_OWNER)
    review, run = assess(make_user("editor"), {"Project plan.pdf": made.PLAN})
    assert run.status == "succeeded", run.item_errors
    assert all(path == "/v1/chat/completions" for path, _body in openai_app.requests)
    fields = requirement(review, "REQ-002").snippets[0]["fields"]
    assert fields["owner_name"] == made.OWNER
    assert run.input_tokens == 500 * len(openai_app.requests)


def test_a_long_document_is_asked_in_parts_and_their_passages_merged(
    make_user, routed, monkeypatch
):
    monkeypatch.setattr(extraction, "PROMPT_CHARS", 250)  # a part per text page of the plan
    monitoring = "Soil organic carbon is sampled every five years at stratified sampling points."
    routed.route(
        "REQ-017", PLAN,
        answer(passage("REQ-017", 2, "The project start date is", 0.3)),
        answer(passage("REQ-017", 4, "The landowner approval is attached", 0.2)),
        answer(passage("REQ-017", 5, monitoring, 0.9)),
    )  # fmt: skip
    review, run = assess(make_user("editor"), {PLAN: made.PLAN})
    assert run.status == "succeeded", run.item_errors
    prompts = [b["input"] for _p, b in routed.server.requests if "REQ-017 (" in b["input"]]
    assert [("[page 2]" in p, "[page 4]" in p, "[page 5]" in p) for p in prompts] == [
        (True, False, False), (False, True, False), (False, False, True),
    ]  # fmt: skip
    assert [s["locator"]["page"] for s in requirement(review, "REQ-017").snippets] == [5, 2, 4]


def test_an_openai_provider_without_a_server_says_so_on_each_requirement(make_user, openai_app):  # noqa: F811
    current_app.config["FURROW"] = dataclasses.replace(
        current_app.config["FURROW"], openai_api_key=None, openai_base_url=None
    )
    review, run = assess(make_user("editor"), {PLAN: made.PLAN})
    assert run.status == "completed_with_errors"
    assert "needs OPENAI_API_KEY or OPENAI_BASE_URL" in run.item_errors["evidence:REQ-001"]
    assert run.results[f"discover:{review.documents[0].id}"]["pages"] == 5
    assert openai_app.requests == []
