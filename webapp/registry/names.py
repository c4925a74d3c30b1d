"""Whether two documents name the same owner. People are compared surname first: the same
surname with a short form of the same first name ("Nick" for "Nicholas", an initial) is
probably the same person and asks a reviewer; another first name is another person. The
surname is the last word, unless the name says otherwise: "Denman, Nicholas" puts it before
the comma, "DENMAN Nicholas" writes it in capitals. Names are compared in any script, without
case or accents; names in a script written without spaces (Chinese, Japanese, Korean, Thai…)
are compared with their spaces removed ("李伟" is "李 伟"). A generational suffix tells
people apart: "John Smith Jr" and "John Smith Sr" are two people, a suffix on one side only
asks a reviewer. Company names are compared without their legal form ("Ltd", "LLC")."""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher
from enum import StrEnum

MATCH_RATIO = 0.8
TITLES = {"mr", "mrs", "ms", "miss", "dr", "prof", "sir", "dame", "mx", "m", "mme"}
LEGAL_FORMS = {
    "ltd", "limited", "llc", "inc", "incorporated", "corp", "corporation", "co", "plc", "pty",
    "gmbh", "sa", "sarl", "sas", "bv", "lp", "llp", "trust", "the",
}  # fmt: skip
COMPANY_WORDS = LEGAL_FORMS | {"farm", "farms", "ranch", "estate", "holdings", "company"}
# Common English short forms of first names: the long form each stands for.
SHORT_FORMS = {
    "nick": "nicholas", "nicky": "nicholas", "bill": "william", "will": "william",
    "liz": "elizabeth", "beth": "elizabeth", "bob": "robert", "rob": "robert",
    "jim": "james", "jimmy": "james", "mike": "michael", "tom": "thomas", "dan": "daniel",
    "dave": "david", "steve": "stephen", "chris": "christopher", "kate": "katherine",
    "kathy": "katherine", "sam": "samuel", "ben": "benjamin", "alex": "alexander",
    "andy": "andrew", "tony": "anthony", "joe": "joseph", "matt": "matthew", "pete": "peter",
    "rick": "richard", "dick": "richard", "ted": "edward", "ed": "edward", "jen": "jennifer",
    "jenny": "jennifer", "sue": "susan", "meg": "margaret", "maggie": "margaret",
    "pat": "patrick", "greg": "gregory", "jon": "jonathan", "fred": "frederick",
}  # fmt: skip


class NameMatch(StrEnum):
    same = "same"  # pass
    probably = "probably"  # warning: a person decides
    different = "different"  # fail


SUFFIXES = {"jr", "sr", "ii", "iii", "iv"}
# Scripts written without spaces between a person's names: Thai, Lao, Myanmar, Khmer, Hangul,
# Kana and Han.
SPACELESS = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1100-\u11ff\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0002ffff]"
)


def words(name: str) -> list[str]:
    """The name's words in any script, without case, accents or titles."""
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return [w for w in re.findall(r"[^\W_]+", plain) if w not in TITLES]


def _capitals(token: str) -> bool:
    """A word written in capitals ("DENMAN"), not an initial ("J.")."""
    letters = [c for c in token if c.isalpha()]
    return len(letters) > 1 and all(c.isupper() for c in letters)


def person(name: str) -> tuple[list[str], list[str]]:
    """A person's given names and surname, as words."""
    head, comma, tail = name.partition(",")
    if comma and words(head) and not set(words(tail)) <= SUFFIXES:
        return _unsuffixed(tail), _unsuffixed(head)  # "Denman, Nicholas"
    tokens = [t for t in name.split() if words(t) and not set(words(t)) <= SUFFIXES]
    capitals = [t for t in tokens if _capitals(t)]
    if capitals and len(capitals) < len(tokens):  # "DENMAN Nicholas", "Nicholas DENMAN"
        given = [w for t in tokens if not _capitals(t) for w in words(t)]
        return given, [w for t in capitals for w in words(t)]
    found = [w for t in tokens for w in words(t)]
    return found[:-1], found[-1:]


def _unsuffixed(name: str) -> list[str]:
    return [w for w in words(name) if w not in SUFFIXES]


def generations(name: str) -> set[str]:
    """The generational suffixes a person's name carries ("Jr", "III")."""
    return {w for w in words(name) if w in SUFFIXES}


def is_company(name: str) -> bool:
    return any(w in COMPANY_WORDS for w in words(name))


def _first_names_agree(a: str, b: str) -> bool:
    a, b = SHORT_FORMS.get(a, a), SHORT_FORMS.get(b, b)
    return a == b or (min(len(a), len(b)) == 1 and a[0] == b[0])


def compare_names(a: str, b: str) -> NameMatch:
    """How two spellings of an owner compare (see the module's docstring)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return NameMatch.different
    if wa == wb or (SPACELESS.search(a + b) and "".join(wa) == "".join(wb)):
        return NameMatch.same
    if is_company(a) or is_company(b):
        ca = [w for w in wa if w not in LEGAL_FORMS]
        cb = [w for w in wb if w not in LEGAL_FORMS]
        if ca == cb:
            return NameMatch.same
        ratio = SequenceMatcher(None, " ".join(ca), " ".join(cb)).ratio()
        return NameMatch.probably if ratio >= MATCH_RATIO else NameMatch.different
    match = _compare_people(a, b, wa, wb)
    ga, gb = generations(a), generations(b)
    if match is NameMatch.different or ga == gb:
        return match
    if ga and gb:
        return NameMatch.different  # "Jr" and "Sr": father and son
    return NameMatch.probably  # a suffix on one side only: the same person, or a relative?


def _compare_people(a: str, b: str, wa: list[str], wb: list[str]) -> NameMatch:
    """How two people's names compare, without their generational suffixes."""
    (given_a, surname_a), (given_b, surname_b) = person(a), person(b)
    if (given_a, surname_a) == (given_b, surname_b):
        return NameMatch.same
    surname_ratio = SequenceMatcher(None, " ".join(surname_a), " ".join(surname_b)).ratio()
    if surname_ratio < MATCH_RATIO:
        # The same words in another order ("Wang Wei", "Wei Wang"): which is the surname?
        return NameMatch.probably if sorted(wa) == sorted(wb) else NameMatch.different
    if not given_a or not given_b:
        return NameMatch.probably  # a surname alone
    if not _first_names_agree(given_a[0], given_b[0]):
        return NameMatch.different  # the same family, another person
    # "Nick Denman" and "Nicholas Denman", a middle name more or less, a surname misspelt.
    return NameMatch.probably
