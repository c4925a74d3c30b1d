import pytest

from webapp.pagination import count_of, page_number, per_page


@pytest.mark.parametrize(
    ("raw", "count"),
    [("3", 3), ("0", None), ("", None), ("-1", None), ("2.5", None), ("²", None), ("٣", None),
     ("9" * 5000, None), ("999999999", 999_999_999)],
)  # fmt: skip
def test_a_count_is_a_few_ascii_digits_and_positive(raw, count):
    assert count_of(raw) == count


def test_query_arguments_that_are_no_count_fall_back_to_the_default():
    assert page_number({"page": "9" * 5000}) == 1
    assert per_page({"per_page": "²"}, 25) == 25
    assert per_page({"per_page": "500"}, 25) == 200


def test_the_library_search_refuses_an_unreadable_limit(client_as):
    viewer = client_as("viewer")
    for limit in ("²", "9" * 5000, "0", "51"):
        answer = viewer.get(f"/api/v1/library/search?q=soil&limit={limit}")
        assert answer.status_code == 422, limit
        assert answer.get_json()["error"]["code"] == "invalid_limit"
