"""A page marks the passage a link names wherever it is, in any case and across any
whitespace, for a bounded passage: the cost follows the page's length, not its length times
the passage's words."""

from markupsafe import Markup

from webapp.registry.page_data import (
    MOST_MARKS,
    MOST_PASSAGE_CHARS,
    MOST_PASSAGE_WORDS,
    highlight,
    passage_words,
)


def marks(marked) -> list[str]:
    """The marked pieces, as the page's text has them."""
    html = str(marked.text)
    return [piece.split("</mark>")[0] for piece in html.split("<mark>")[1:]]


def test_the_passage_is_marked_across_line_breaks_and_case_with_the_page_kept_as_it_is():
    text = "Title\n\nThe   land owner is\n\tNICK  Denman; the Land Owner is Nick\ndenman."
    marked = highlight(text, "the land owner is nick denman")
    assert marks(marked) == [
        "The   land owner is\n\tNICK  Denman",
        "the Land Owner is Nick\ndenman",
    ]
    assert (marked.marks, marked.more, marked.cut) == (2, False, False)
    # Only the marks are added: the page's own characters, spaces included, are all there.
    assert str(marked.text).replace("<mark>", "").replace("</mark>", "") == text


def test_the_page_is_escaped_piece_by_piece_and_a_missing_passage_marks_nothing():
    text = "a <b>bold</b> & claim\nmade here"
    marked = highlight(text, "& CLAIM made")
    assert isinstance(marked.text, Markup)
    assert str(marked.text) == "a &lt;b&gt;bold&lt;/b&gt; <mark>&amp; claim\nmade</mark> here"
    absent = highlight(text, "another claim")
    assert absent.marks == 0
    assert str(absent.text) == "a &lt;b&gt;bold&lt;/b&gt; &amp; claim\nmade here"
    assert highlight(text, "   ").marks == 0 and highlight(text, None).marks == 0


def test_a_letter_that_lowers_to_two_keeps_the_marks_in_place():
    marked = highlight("İstanbul  farm: İSTANBUL FARM", "istanbul farm")
    assert marks(marked) == ["İstanbul  farm", "İSTANBUL FARM"]


def test_a_passage_beyond_its_words_or_characters_is_cut_at_a_word_and_says_so():
    words, cut = passage_words("word " * (MOST_PASSAGE_WORDS + 50))
    assert (len(words), cut) == (MOST_PASSAGE_WORDS, True)
    long_word = "x" * 30
    passage = " ".join([long_word] * 100)  # 3,099 characters, 100 words
    words, cut = passage_words(passage)
    assert cut and words == [long_word] * (MOST_PASSAGE_CHARS // 31)  # the cut word is dropped
    assert passage_words("short passage\n") == (["short", "passage"], False)
    assert passage_words("a" * MOST_PASSAGE_CHARS + "   ") == (["a" * MOST_PASSAGE_CHARS], False)


def test_a_megabyte_page_and_a_thousand_word_passage_mark_the_passage_s_start():
    page = "a " * 500_000 + "b"
    marked = highlight(page, "a " * 999 + "b")
    # The passage is cut to its first words, all "a": the page is marked in its first places.
    assert marked.cut and marked.more and marked.marks == MOST_MARKS
    assert marks(marked)[0] == " ".join(["a"] * MOST_PASSAGE_WORDS)
    found = highlight(page, "a a b")
    assert (found.marks, found.more, found.cut) == (1, False, False)
    assert str(found.text).endswith("<mark>a a b</mark>")
