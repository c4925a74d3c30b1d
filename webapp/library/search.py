"""Full-text search over library passages: uploaded documents and the reference library.

SQLite searches an FTS5 table (``library_passages_fts``, kept in step with ``library_passages``
by triggers) ranked by bm25; PostgreSQL matches ``to_tsvector('simple', title || ' ' || text)``,
which a GIN index serves, ranked by ts_rank. Both come from the migration. A query is cut into
words and each word is quoted or passed as a bound value, so nothing a person types is read as
query syntax; a passage matches when it has any of the words.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from markupsafe import Markup, escape
from sqlalchemy import delete, func, insert, literal_column, select, text

from webapp.extensions import db
from webapp.library.models import Document, PassageRecord
from webapp.reference.library import library

MAX_LIMIT = 100
MAX_TERMS = 32
MAX_QUERY_CHARS = 1000
SNIPPET_CHARS = 240
# The FTS5 tokenizer and PostgreSQL's parser both break words at anything but letters and digits.
_WORD = re.compile(r"[^\W_]+")
# The pg_advisory_xact_lock key ("library" in ASCII) that serializes reference syncs.
_SYNC_LOCK = 0x6C696272617279


@dataclass(frozen=True)
class Passage:
    id: int
    document_id: int | None  # None for reference passages
    title: str
    url: str | None  # reference: the source URL; document: None (pages link by document_id)
    text: str  # the whole passage
    snippet: str  # a short plain-text excerpt around the matched words (no HTML)
    score: float  # higher is better
    source_kind: str  # "document" | "reference"


def search_passages(query: str, limit: int = 10) -> list[Passage]:
    """The passages best matching any word of the query, best first; [] for a blank query.

    Needs an app context. Reference passages missing or out of date are added to the session's
    transaction first (see sync_reference_passages); commit to keep them.
    """
    terms = query_terms(query)
    if not terms or limit < 1:
        return []
    sync_reference_passages()
    limit = min(limit, MAX_LIMIT)
    if db.engine.dialect.name == "postgresql":
        rows = _postgres_matches(terms, limit)
    else:
        rows = _sqlite_matches(terms, limit)
    return [
        Passage(
            id=row.id,
            document_id=row.document_id,
            title=row.title,
            url=row.url,
            text=row.text,
            snippet=snippet(row.text, terms),
            score=float(row.score),
            source_kind=row.source_kind,
        )
        for row in rows
    ]


def document_text(document_id: int) -> str | None:
    """A library document's whole extracted text, or None when there is no such document."""
    return db.session.scalar(select(Document.text).where(Document.id == document_id))


def query_terms(query: str) -> list[str]:
    """The distinct lower-case words of a query, at most MAX_TERMS; punctuation is dropped."""
    words = _WORD.findall(query[:MAX_QUERY_CHARS].lower())
    return list(dict.fromkeys(words))[:MAX_TERMS]


def _sqlite_matches(terms: list[str], limit: int):
    # Each word as an FTS5 string ("..."); the words hold no quote characters to escape.
    match = " OR ".join(f'"{term}"' for term in terms)
    return db.session.execute(
        text(
            "SELECT p.id, p.document_id, p.title, p.url, p.text, p.source_kind, "
            "-bm25(library_passages_fts, 2.0, 1.0) AS score "
            "FROM library_passages_fts JOIN library_passages AS p "
            "ON p.id = library_passages_fts.rowid "
            "WHERE library_passages_fts MATCH :match ORDER BY score DESC, p.id LIMIT :limit"
        ),
        {"match": match, "limit": limit},
    ).all()


def _postgres_matches(terms: list[str], limit: int):
    simple = literal_column("'simple'")
    # The expression of the GIN index ix_library_passages_fts, so that the index serves it.
    vector = func.to_tsvector(
        simple, PassageRecord.title.op("||")(literal_column("' '")).op("||")(PassageRecord.text)
    )
    # One plainto_tsquery per word, OR-ed together: it takes any text without a syntax error.
    query = functools.reduce(
        lambda left, right: left.op("||")(right),
        (func.plainto_tsquery(simple, term) for term in terms),
    )
    score = func.ts_rank(vector, query).label("score")
    return db.session.execute(
        select(
            PassageRecord.id,
            PassageRecord.document_id,
            PassageRecord.title,
            PassageRecord.url,
            PassageRecord.text,
            PassageRecord.source_kind,
            score,
        )
        .where(vector.op("@@")(query))
        .order_by(score.desc(), PassageRecord.id)
        .limit(limit)
    ).all()


def _term_pattern(terms: list[str]) -> re.Pattern[str]:
    """Any of the words at the start of a word, longest first so 'tomatoes' beats 'tomato'.
    Each word is tried at every word start, so at most MAX_TERMS of them, as a query has:
    the cost stays that many times the text's length whoever calls."""
    kept = list(dict.fromkeys(terms))[:MAX_TERMS]
    alternatives = "|".join(re.escape(t) for t in sorted(kept, key=len, reverse=True))
    return re.compile(rf"(?<![^\W_])(?:{alternatives})", re.IGNORECASE)


def snippet(passage: str, terms: list[str], size: int = SNIPPET_CHARS) -> str:
    """About `size` characters of the passage around the most query words, whitespace folded."""
    flat = " ".join(passage.split())
    if len(flat) <= size:
        return flat
    matches = list(_term_pattern(terms).finditer(flat))[:200] if terms else []
    start = 0
    best = 0
    for match in matches:
        begin = max(0, match.start() - size // 4)
        found = {m.group().lower() for m in matches if begin <= m.start() < begin + size}
        if len(found) > best:
            best, start = len(found), begin
    end = min(len(flat), start + size)
    start = max(0, end - size)
    # Whole words only, with an ellipsis where the passage goes on.
    if start > 0:
        cut = flat.find(" ", start)
        start = cut + 1 if 0 <= cut < start + 30 else start
    if end < len(flat):
        cut = flat.rfind(" ", start, end)
        end = cut if cut > end - 30 else end
    return ("… " if start > 0 else "") + flat[start:end] + (" …" if end < len(flat) else "")


def highlight(plain: str, terms: list[str]) -> Markup:
    """The text, HTML-escaped, with the query words in <strong>."""
    if not terms:
        return escape(plain)
    parts: list[str] = []
    last = 0
    for match in _term_pattern(terms).finditer(plain):
        parts.append(escape(plain[last : match.start()]))
        parts.append(Markup("<strong>%s</strong>") % match.group())
        last = match.end()
    parts.append(escape(plain[last:]))
    return Markup("").join(parts)


@functools.cache
def reference_rows() -> tuple[tuple[str, str, str], ...]:
    """(title, url, text) of every fact of every crop in the reference library, in order; a
    derived fact is left out: its source does not state it, so it is nobody's answer."""
    rows = []
    for crop in library().crops:
        names = ", ".join(dict.fromkeys(crop.names.values()))
        for fact in crop.facts.values():
            if fact.derived:
                continue
            title = f"{crop.name('en')}: {fact.source.title}"
            rows.append((title, fact.source.url, f"{names}. {fact.claim}"))
    return tuple(rows)


def _stored_reference_rows() -> list[tuple[str, str | None, str]]:
    rows = db.session.execute(
        select(PassageRecord.title, PassageRecord.url, PassageRecord.text)
        .where(PassageRecord.source_kind == "reference")
        .order_by(PassageRecord.position, PassageRecord.id)
    )
    return [tuple(row) for row in rows]


def sync_reference_passages() -> bool:
    """Make the reference passages match the reference library; True when they were replaced.

    Reading the hundred-odd rows back to compare them is cheap. When their number or content
    differs, all are deleted and written again in the session's transaction, which the caller
    commits. On PostgreSQL a transaction lock makes a concurrent sync wait, then find the rows
    in place, so none are doubled; SQLite serializes the writes itself.
    """
    expected = list(reference_rows())
    if _stored_reference_rows() == expected:
        return False
    if db.engine.dialect.name == "postgresql":
        db.session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _SYNC_LOCK})
        if _stored_reference_rows() == expected:
            return False
    db.session.execute(delete(PassageRecord).where(PassageRecord.source_kind == "reference"))
    db.session.execute(
        insert(PassageRecord),
        [
            {"source_kind": "reference", "title": title, "url": url, "text": body, "position": i}
            for i, (title, url, body) in enumerate(expected)
        ],
    )
    return True
