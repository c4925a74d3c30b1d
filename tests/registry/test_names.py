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
        ("Denman, Nicholas", "Nicholas Denman", NameMatch.same),
        ("DENMAN Nicholas", "Nicholas Denman", NameMatch.same),
        ("Nicholas DENMAN", "Denman, Nicholas", NameMatch.same),
        ("Denman, Nick", "Nicholas Denman", NameMatch.probably),
        ("DENMAN Mary", "Nicholas Denman", NameMatch.different),
        ("Nicholas Denman, Jr.", "Nicholas Denman Jr", NameMatch.same),
        ("Denman, Nicholas Jr", "Nicholas Denman Jr.", NameMatch.same),
        # A generational suffix tells father and son apart; on one side only, a person asks.
        ("John Smith Jr", "John Smith Sr", NameMatch.different),
        ("John Smith III", "John Smith II", NameMatch.different),
        ("Smith, John Jr.", "John Smith Sr.", NameMatch.different),
        ("Nicholas Denman, Jr.", "Nicholas Denman", NameMatch.probably),
        ("John Smith II", "John Smith", NameMatch.probably),
        ("Nick Denman Jr", "Nicholas Denman Jr", NameMatch.probably),
        # Scripts written without spaces are compared with the spaces removed.
        ("李伟", "李 伟", NameMatch.same),
        ("山田 太郎", "山田太郎", NameMatch.same),
        ("김 민수", "김민수", NameMatch.same),
        ("สมชาย ใจดี", "สมชายใจดี", NameMatch.same),
        ("李 伟", "李娜", NameMatch.different),
        ("Denman Nicholas", "Nicholas Denman", NameMatch.probably),  # which is the surname?
        ("王伟", "王伟", NameMatch.same),
        ("王伟", "李娜", NameMatch.different),
        ("Иван Петров", "Иван Петров", NameMatch.same),
        ("ПЕТРОВ Иван", "Иван Петров", NameMatch.same),
        ("Иван Петров", "Пётр Петров", NameMatch.different),
        ("José García", "Jose Garcia", NameMatch.same),
        ("Zoë Müller", "ZOË MÜLLER", NameMatch.same),
    ],
)
def test_owner_names(a, b, match):
    assert compare_names(a, b) is match
    assert compare_names(b, a) is match
