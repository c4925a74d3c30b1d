"""What pages call a person."""


def test_pages_call_a_person_by_name_never_by_whole_address(app, make_user):
    named = make_user("editor", email="ada.l@example.org", name="Ada Lovelace")
    unnamed = make_user("editor", email="b.tiller@example.org")
    assert named.display_name == "Ada Lovelace"
    assert unnamed.display_name == "b.tiller"
