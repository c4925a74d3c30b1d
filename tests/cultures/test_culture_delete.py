"""Deleting a culture asks first and says what goes with it."""

from tests.support.html import soup
from webapp.cultures.models import Culture
from webapp.extensions import db
from webapp.review.models import Suggestion


def test_deleting_a_culture_asks_first_and_counts_what_goes(client_as):
    reviewer = client_as("reviewer")
    bean = Culture(name="Dry bean")
    db.session.add(bean)
    db.session.commit()
    bean_id = bean.id
    db.session.add(
        Suggestion(target_type="culture", target_id=bean.id, field="notes", suggested_value="x")
    )
    db.session.commit()

    detail = soup(reviewer.get(f"/cultures/{bean.id}"))
    link = detail.select_one(".page-header a.danger")
    assert link["href"] == f"/cultures/{bean.id}/delete"

    confirm = soup(reviewer.get(link["href"]))
    question = confirm.select_one("section.confirm p").get_text()
    assert "Delete “Dry bean”?" in question
    assert "Its 1 open suggestion(s)" in question and "0 saved fertilizer plan(s)" in question
    assert db.session.get(Culture, bean.id) is not None

    form = confirm.select_one("section.confirm form")
    deleted = reviewer.submit(form["action"], page=link["href"])
    assert deleted.status_code == 302
    db.session.expire_all()
    assert db.session.get(Culture, bean_id) is None
    assert client_as("editor").get(f"/cultures/{bean_id}/delete").status_code == 403
