import pytest
from sqlalchemy import func, select, text

from tests.library.files import long_markdown
from webapp.extensions import db
from webapp.library.documents import add_document
from webapp.library.models import Document, PassageRecord
from webapp.library.search import (
    MAX_TERMS,
    Passage,
    document_text,
    highlight,
    reference_rows,
    search_passages,
    snippet,
    sync_reference_passages,
)
from webapp.reference.library import library

HOSTILE = [
    "",
    "   ",
    '"',
    '"unbalanced',
    "NEAR(soil water, 2)",
    "soil*",
    "*",
    "(",
    "((a) OR",
    ")",
    "AND OR",
    "AND OR NOT",
    "title:soil",
    "^soil",
    "-soil",
    "soil + water",
    "{title text}: x",
    "x'; DROP TABLE users; --",
    "\\",
    "'",
    "&|!<->:*",
    "トマトの窒素",
    "🍅🌱",
    "\x00\u200b\ufeff",
    "Möhre ß İstanbul",
    "a" * 5000,
    " ".join(f"w{i}" for i in range(500)),
]


def store(filename: str, body: str, title: str | None = None) -> Document:
    document = add_document(filename, body.encode(), title, None)
    db.session.commit()
    return document


def reference_count() -> int:
    return db.session.scalar(select(func.count()).where(PassageRecord.source_kind == "reference"))


def test_document_passages_are_found_best_first_with_a_snippet(app):
    notes = store("cover.md", long_markdown(12), "Cover crop notes")
    store("other.txt", "Irrigation schedules for salsify.")
    results = search_passages("phacelia vetch")
    assert results and all(isinstance(r, Passage) for r in results)
    assert {r.document_id for r in results} == {notes.id}
    first = results[0]
    assert (first.source_kind, first.title, first.url) == ("document", "Cover crop notes", None)
    assert first.text in notes.text
    assert "phacelia" in first.snippet.lower() and len(first.snippet) < len(first.text)
    assert "<" not in first.snippet
    assert first.score >= results[-1].score > 0
    assert search_passages("salsify", limit=1)[0].title == "other.txt"


def test_reference_facts_are_found_with_their_source(app):
    results = search_passages("tomato nitrogen")
    fao = [r for r in results if r.title.startswith("Tomato: FAO Land & Water")]
    assert fao, [r.title for r in results]
    uptake = next(r for r in fao if "100 to 150 kg/ha N" in r.text)
    assert uptake.source_kind == "reference" and uptake.document_id is None
    tomato = library().get("tomato")
    assert uptake.url == tomato.fact("nutrient_uptake_kg_per_ha").source.url
    assert uptake.text.startswith("Tomato, Tomate, トマト.")
    assert search_passages("トマト")  # names in every language are searchable


def test_any_word_matches_and_documents_rank_with_reference_facts(app):
    store("tomato.txt", "Tomato trials: staking and pruning.")
    kinds = {r.source_kind for r in search_passages("pruning tomato", limit=20)}
    assert kinds == {"document", "reference"}
    assert search_passages("pruning", limit=20)[0].source_kind == "document"


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_raise(app, query):
    store("soil.txt", "Soil water and soil nitrogen. Möhre ß.")
    results = search_passages(query)
    assert isinstance(results, list)


def test_blank_queries_and_limits(app):
    assert search_passages("") == []
    assert search_passages("  ?! ") == []
    assert search_passages("tomato", limit=0) == []
    assert len(search_passages("tomato", limit=2)) == 2


def test_reference_passages_are_synced_once_and_never_doubled(app):
    expected = len(reference_rows())
    # Every fact a source states; a derived one is nobody's answer and is not indexed.
    stated = [f for crop in library().crops for f in crop.facts.values() if not f.derived]
    assert expected == len(stated) and expected < sum(len(c.facts) for c in library().crops)
    assert not any("not a quotation" in text for _title, _url, text in reference_rows())
    assert sync_reference_passages() is True
    assert sync_reference_passages() is False
    db.session.commit()
    search_passages("wheat")
    search_passages("barley")
    assert reference_count() == expected
    # A lost or changed row is noticed and the set written again, once.
    references = select(PassageRecord).where(PassageRecord.source_kind == "reference")
    db.session.delete(db.session.scalars(references.limit(1)).one())
    changed = db.session.scalars(references.offset(3).limit(1)).one()
    changed.text = "stale"
    db.session.commit()
    assert sync_reference_passages() is True
    db.session.commit()
    assert reference_count() == expected
    assert search_passages("stale") == []


def test_deleted_documents_leave_the_index(app):
    document = store("onions.txt", "Onion thrips appear in dry summers.")
    assert search_passages("thrips")
    db.session.delete(document)
    db.session.commit()
    assert search_passages("thrips") == []
    assert (
        db.session.scalar(
            select(func.count())
            .select_from(PassageRecord)
            .where(PassageRecord.document_id.is_not(None))
        )
        == 0
    )
    if db.engine.dialect.name == "sqlite":
        db.session.execute(
            text(
                "INSERT INTO library_passages_fts(library_passages_fts, rank) "
                "VALUES ('integrity-check', 1)"
            )
        )


def test_document_text(app):
    document = store("notes.md", "# Notes\n\nLine one.")
    assert document_text(document.id) == "# Notes\n\nLine one."
    assert document_text(document.id + 1000) is None


def test_snippets_are_plain_text_around_the_words_and_highlighting_escapes():
    passage = "Intro words. " * 40 + "The <b>nitrogen</b> demand of tomato. " + "Tail. " * 40
    excerpt = snippet(passage, ["nitrogen", "tomato"])
    assert "nitrogen</b> demand of tomato" in excerpt
    assert excerpt.startswith("… ") and excerpt.endswith(" …")
    assert len(excerpt) <= 250
    marked = str(highlight(excerpt, ["nitrogen", "tomato"]))
    assert "&lt;b&gt;<strong>nitrogen</strong>&lt;/b&gt;" in marked
    assert "<strong>tomato</strong>" in marked
    assert str(highlight("<script>x</script>", [])) == "&lt;script&gt;x&lt;/script&gt;"


def test_highlighting_tries_at_most_a_query_s_words_whoever_calls_it():
    # Every word is tried at every word start: a thousand would cost a thousand times the
    # text. Past the first MAX_TERMS, words are not marked.
    terms = [f"w{n:04d}" for n in range(1000)]
    text = " ".join(terms)
    marked = str(highlight(text, terms))
    assert marked.count("<strong>") == MAX_TERMS
    assert marked.startswith("<strong>w0000</strong> <strong>w0001</strong>")
    assert f"<strong>w{MAX_TERMS - 1:04d}</strong> w{MAX_TERMS:04d} " in marked
