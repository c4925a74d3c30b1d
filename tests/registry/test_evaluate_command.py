"""`furrow registry evaluate` through the `furrow` command group: agreement and its Wilson interval
against numbers worked out by hand, over- and under-scoring, the confusion matrix as a table
and as JSON, and one clear line (never a traceback) for each input it cannot use."""

import json

import pytest

from tests.support.app import furrow
from webapp.extensions import db
from webapp.registry.models import ReviewStatus
from webapp.registry.review_state import create_review

# Furrow's status and the reviewer's verdict for five requirements:
# agree, over-scored, agree, under-scored, not applicable (left out).
STATUSES = {
    "REQ-001": "covered",
    "REQ-002": "covered",
    "REQ-003": "partial",
    "REQ-004": "missing",
    "REQ-005": "needs_input",
}
VERDICTS = {
    "REQ-001": "approved",
    "REQ-002": "needs_changes",
    "REQ-003": "needs_changes",
    "REQ-004": "approved",
    "REQ-005": "not_applicable",
}


@pytest.fixture
def review(app, make_user):
    made = create_review("Denman farm", None, make_user("editor"))
    for record in made.requirements:
        record.status = STATUSES.get(record.requirement_id)
    made.status = ReviewStatus.assessed
    db.session.commit()
    return made


@pytest.fixture
def verdicts_file(tmp_path):
    def write(content) -> str:
        path = tmp_path / "verdicts.json"
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text, encoding="utf-8")
        return str(path)

    return write


def evaluate(app, *args):
    return furrow(app, "registry", "evaluate", *args)


def test_agreement_with_its_interval_as_json(app, review, verdicts_file):
    done = evaluate(app, str(review.id), "--verdicts", verdicts_file(VERDICTS), "--json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    # 4 compared (REQ-005 is not applicable), 2 agree: 0.5, Wilson 95 % (0.1500, 0.8500).
    assert (result["compared"], result["agreed"], result["agreement"]) == (4, 2, 0.5)
    assert result["interval_95"] == [0.15, 0.85]
    assert result["over_scored"] == ["REQ-002"] and result["under_scored"] == ["REQ-004"]
    assert result["not_applicable"] == ["REQ-005"]
    assert result["unjudged"] == []  # the other requirements have no status here
    assert result["confusion"]["covered"] == {
        "approved": 1,
        "needs_changes": 1,
        "not_applicable": 0,
    }
    assert result["confusion"]["needs_input"]["not_applicable"] == 1
    assert result["review_id"] == review.id


def test_a_list_of_verdicts_printed_as_a_table(app, review, verdicts_file):
    listed = [{"requirement_id": k, "verdict": v} for k, v in VERDICTS.items() if k != "REQ-005"]
    listed.append({"requirement_id": "REQ-006", "verdict": "approved"})  # no status: not compared
    done = evaluate(app, str(review.id), "--verdicts", verdicts_file(listed))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"Review #{review.id} (Denman farm): 4 requirement(s) compared"
    assert lines[1] == "Agreement: 2 of 4 (50.0 %), Wilson 95 % interval 15.0 % to 85.0 %"
    assert "Over-scored (covered, but the reviewer asked for changes): REQ-002" in lines
    assert "Under-scored (not covered, but the reviewer approved): REQ-004" in lines
    assert "Not applicable (left out): none" in lines
    assert "Not compared (no verdict, or no status): REQ-005, REQ-006" in lines
    header = next(line for line in lines if line.startswith("Furrow's status"))
    assert header.split("  ")[-1].strip() == "Not applicable"
    rows = {line.split("  ")[0].strip(): line.split()[-3:] for line in lines[-4:]}
    assert rows == {
        "Covered": ["1", "1", "0"],
        "Partial": ["0", "1", "0"],
        "Missing": ["1", "0", "0"],
        "Needs reviewer input": ["0", "0", "0"],
    }


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "The verdicts are not JSON"),
        ({"REQ-001": "maybe"}, "“maybe” is not one of approved, needs_changes, not_applicable"),
        ([{"verdict": "approved"}], "Verdict 1 names no requirement"),
        ({"REQ-999": "approved"}, "the review's checklist has no REQ-999"),
        ("42", "Give an object"),
    ],
)
def test_an_unusable_verdicts_file_is_one_line(app, review, verdicts_file, content, says):
    done = evaluate(app, str(review.id), "--verdicts", verdicts_file(content))
    assert done.returncode == 2
    assert done.stderr.startswith("furrow: ") and says in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_unknown_reviews_missing_files_and_reviews_not_assessed(
    app, review, verdicts_file, make_user
):
    good = verdicts_file(VERDICTS)
    cases = [
        (("999999", "--verdicts", good), 2, "there is no review #999999"),
        (("abc", "--verdicts", good), 2, "'abc' is not a review id"),
        (("²", "--verdicts", good), 2, "'²' is not a review id"),
        (("9" * 30, "--verdicts", good), 2, f"'{'9' * 30}' is not a review id"),
        ((str(review.id), "--verdicts", "/nonexistent/v.json"), 2, "cannot read /nonexistent"),
    ]
    draft = create_review("Fresh", None, make_user("editor"))
    db.session.commit()
    cases.append(((str(draft.id), "--verdicts", good), 1, "has not been assessed yet"))
    for args, code, says in cases:
        done = evaluate(app, *args)
        assert done.returncode == code, (args, done.stderr)
        assert done.stderr.startswith("furrow: ") and says in done.stderr, done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
