"""A decision field names its document by id ("owner_name@12"): a key whose id is no record
id ("²", which str.isdigit takes and int() refuses, or thirty digits) names no document and
never breaks a page that lists it."""

from webapp.registry.checklist import StructuredField
from webapp.registry.target import entry_of, review_decisions


def test_a_field_key_names_its_document_by_a_record_id_only():
    assert entry_of("owner_name@12") == (StructuredField.owner_name, 12)
    assert entry_of("owner_name") == (StructuredField.owner_name, None)
    for odd in ("²", "1" * 30, "0", "-1", " 7", ""):
        assert entry_of(f"owner_name@{odd}") is None, odd
        assert review_decisions.field_label(f"owner_name@{odd}") == "Owner", odd
        assert review_decisions.field_label(f"date_style@{odd}") == "Date style", odd
