"""Furrow's statuses against a reviewer's verdicts: agreement with its Wilson interval, over-
and under-scoring, the confusion matrix."""

import pytest

from webapp.registry.evaluation import VerdictsInvalid, evaluate, read_verdicts, wilson


def test_wilson_interval_of_known_proportions():
    low, high = wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(10, 10)
    assert round(high, 4) == 1.0 and round(low, 4) == 0.7225


def test_agreement_over_and_under_scoring_and_the_matrix():
    statuses = {
        "REQ-001": "covered",
        "REQ-002": "needs_input",
        "REQ-003": "covered",
        "REQ-004": "missing",
        "REQ-005": "partial",
        "REQ-016": "needs_input",
        "REQ-099": "covered",
    }
    verdicts = {
        "REQ-001": "approved",
        "REQ-002": "needs_changes",
        "REQ-003": "needs_changes",  # Furrow said covered: over-scored
        "REQ-004": "approved",  # Furrow said missing: under-scored
        "REQ-005": "needs_changes",
        "REQ-016": "not_applicable",
    }
    result = evaluate(statuses, verdicts)
    assert (result.compared, result.agreed) == (5, 3)
    assert result.over == ["REQ-003"] and result.under == ["REQ-004"]
    assert result.not_applicable == ["REQ-016"] and result.unjudged == ["REQ-099"]
    assert result.matrix["covered"] == {"approved": 1, "needs_changes": 1, "not_applicable": 0}
    assert result.matrix["needs_input"]["not_applicable"] == 1
    shown = result.to_dict()
    assert shown["agreement"] == 0.6 and shown["interval_95"] == [0.2307, 0.8824]


def test_verdict_files_in_either_shape_and_their_problems():
    assert read_verdicts('{"REQ-001": "approved"}') == {"REQ-001": "approved"}
    listed = '[{"requirement_id": "REQ-002", "verdict": "needs_changes"}]'
    assert read_verdicts(listed) == {"REQ-002": "needs_changes"}
    with pytest.raises(VerdictsInvalid, match="“yes” is not one of"):
        read_verdicts('{"REQ-001": "yes"}')
    with pytest.raises(VerdictsInvalid, match="Verdict 1 names no requirement"):
        read_verdicts('[{"verdict": "approved"}]')
    with pytest.raises(VerdictsInvalid, match="not JSON"):
        read_verdicts("{")
    with pytest.raises(VerdictsInvalid, match="an object"):
        read_verdicts('"approved"')
