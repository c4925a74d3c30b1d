"""Two spellings of an owner: the same, probably the same (a person confirms), or two people."""

import pytest

from webapp.registry.names import NameMatch, compare_names


@pytest.mark.parametrize(
    ("a", "b", "match"),
    [
        ("Nicholas Denman", "Nicholas Denman", NameMatch.same),
        ("Mr. Nicholas Denman", "nicholas denman", NameMatch.same),
        ("Nicholas Denman", "Nick Denman", NameMatch.probably),
        ("N. Denman", "Nicholas Denman", NameMatch.probably),
        ("Nicholas J. Denman", "Nicholas Denman", NameMatch.probably),
        ("Nicholas Denman", "Nicholas Denmann", NameMatch.probably),
        ("Nicholas Denman", "Mary Denman", NameMatch.different),
        ("Nicholas Denman", "Peter Smith", NameMatch.different),
        ("Green Acres Farm LLC", "Green Acres Farm", NameMatch.same),
        ("Green Acres Farm Ltd", "Greene Acres Farm", NameMatch.probably),
        ("Green Acres Farm", "Blue Hills Ranch", NameMatch.different),
        ("", "Nicholas Denman", NameMatch.different),
    ],
)
def test_owner_names(a, b, match):
    assert compare_names(a, b) is match
    assert compare_names(b, a) is match
