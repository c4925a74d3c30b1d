"""Severity levels as a reviewer sees them: the worst of a row, and counts at the top."""

from webapp.review.vocabulary import level_counts, worst_level

ERROR = {"severity": "error", "message": "Impossible."}
WARNING = {"severity": "warning", "message": "Derived."}
NOTE = {"severity": "info", "message": "Rounded."}


def test_a_row_shows_its_worst_level_and_an_unknown_level_counts_as_a_note():
    assert worst_level([NOTE, WARNING]) == "warning"
    assert worst_level([WARNING, ERROR, NOTE]) == "error"
    assert worst_level([{"severity": "fatal?"}]) == "info"
    assert worst_level([]) is None


def test_counts_say_how_many_items_have_each_worst_level():
    counts = level_counts([[ERROR, WARNING], [WARNING], [WARNING, NOTE], [], None, [NOTE]])
    assert counts == {"error": 1, "warning": 2, "info": 1, "none": 2}
