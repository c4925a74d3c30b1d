"""Whether two documents name the same owner. People are compared surname first: the same
surname with a short form of the same first name ("Nick" for "Nicholas", an initial) is
probably the same person and asks a reviewer; another first name is another person. Company
names are compared without their legal form ("Ltd", "LLC")."""

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


def words(name: str) -> list[str]:
    plain = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode().lower()
    return [w for w in re.findall(r"[a-z0-9]+", plain) if w not in TITLES]


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
    if is_company(a) or is_company(b):
        ca = [w for w in wa if w not in LEGAL_FORMS]
        cb = [w for w in wb if w not in LEGAL_FORMS]
        if ca == cb:
            return NameMatch.same
        ratio = SequenceMatcher(None, " ".join(ca), " ".join(cb)).ratio()
        return NameMatch.probably if ratio >= MATCH_RATIO else NameMatch.different
    if wa == wb:
        return NameMatch.same
    surname_ratio = SequenceMatcher(None, wa[-1], wb[-1]).ratio()
    if surname_ratio < MATCH_RATIO:
        return NameMatch.different
    if len(wa) == 1 or len(wb) == 1:
        return NameMatch.probably  # a surname alone
    if not _first_names_agree(wa[0], wb[0]):
        return NameMatch.different  # the same family, another person
    # "Nick Denman" and "Nicholas Denman", a middle name more or less, a surname misspelt.
    return NameMatch.probably
