import pytest

from tests.library.files import (
    SOIL_PDF_LINES,
    blank_pdf,
    long_markdown,
    pdf_of_figures,
    pdf_running_a_form,
    pdf_with_text,
)
from webapp.library.extract import (
    PASSAGE_MAX,
    PdfLimits,
    UploadRefused,
    extract,
    html_text,
    pdf_pages,
    split_passages,
)

MB = 1024 * 1024


def refused(filename: str, data: bytes, max_bytes: int = MB) -> UploadRefused:
    with pytest.raises(UploadRefused) as caught:
        extract(filename, data, max_bytes)
    return caught.value


def test_pdf_text_is_extracted_page_by_page():
    data = pdf_with_text(SOIL_PDF_LINES, ["Page two: lime acid soils (pH below 6)."])
    extracted = extract("guide.PDF", data, MB)
    assert extracted.kind == "pdf"
    assert "Take twenty cores per field" in extracted.text
    assert "lime acid soils (pH below 6)" in extracted.text
    assert "\n\n" in extracted.text  # pages are paragraph boundaries


def test_a_document_s_content_is_bounded_in_all_not_only_stream_by_stream():
    limits = PdfLimits(content_bytes=MB)
    lines = [f"Line {n} of the monitoring report, with its figures." for n in range(40)]
    # 40 pages of 2.4 KB each: 97 KB in all, read.
    pages = pdf_pages(pdf_with_text(*[lines] * 40), limits)
    assert len(pages) == 40 and pages[39].startswith("Line 0 of the monitoring report")
    # The same pages over a budget of 40 KB: refused before any is read.
    with pytest.raises(UploadRefused) as caught:
        pdf_pages(pdf_with_text(*[lines] * 40), PdfLimits(content_bytes=40 * 1024))
    assert caught.value.code == "pdf_too_large"
    assert str(caught.value).startswith("The PDF's pages hold more than 40 KB of content")


def test_a_form_counts_each_time_it_runs_and_a_form_running_itself_once():
    limits = PdfLimits(content_bytes=MB)
    # A 60 KB form run 3 times reads; run 100 times (6 MB to parse) it is refused, though the
    # page's own content is 1.4 KB.
    assert pdf_pages(pdf_running_a_form(3, 1000), limits)[0].count("Buffer pool share") == 3000
    with pytest.raises(UploadRefused) as caught:
        pdf_pages(pdf_running_a_form(100, 1000), limits)
    assert caught.value.code == "pdf_too_large"
    looping = pdf_pages(pdf_running_a_form(1, 10, form_runs_itself=True), limits)
    assert looping[0].count("Buffer pool share") == 10


def test_content_without_text_is_not_counted():
    # Maps and figures are paths, which text extraction skips: 9 MB of them cost nothing.
    assert pdf_pages(pdf_of_figures(3, 3_000_000), PdfLimits(content_bytes=MB)) == ["", "", ""]


def test_markdown_and_text_are_kept_as_they_are():
    markdown = "# Title\n\n* one **bold** item\r\n"
    assert extract("notes.md", markdown.encode(), MB).text == "# Title\n\n* one **bold** item"
    assert extract("notes.markdown", b"x", MB).kind == "markdown"
    plain = extract("notes.txt", "\ufeffKohl und Möhren\n\nzweiter Absatz".encode(), MB)
    assert (plain.kind, plain.text) == ("text", "Kohl und Möhren\n\nzweiter Absatz")


def test_html_keeps_visible_text_in_paragraphs_and_drops_scripts_and_styles():
    html = (
        "<html><head><style>p {color: red}</style><script>alert('x')</script></head>"
        "<body><h1>Mulch</h1><p>Straw <b>keeps</b>\n   moisture.</p><ul><li>one</li><li>two</li>"
        "</ul><script>document.write('hidden')</script></body></html>"
    )
    text = extract("page.htm", html.encode(), MB).text
    assert text == "Mulch\n\nStraw keeps moisture.\n\none\n\ntwo"
    assert html_text("<p>a<br>b</p>") == "a\n\nb"


@pytest.mark.parametrize(
    ("filename", "data", "code"),
    [
        ("report.docx", b"PK\x03\x04", "unsupported_type"),
        ("no-extension", b"text", "unsupported_type"),
        ("empty.txt", b"", "empty_file"),
        ("blank.md", b"  \n\n ", "no_text"),
        ("latin1.txt", "Möhre".encode("latin-1"), "not_utf8"),
        ("page.html", b"\xff\xfe<p>x</p>", "not_utf8"),
        ("fake.pdf", b"<html>not a pdf</html>", "not_a_pdf"),
        ("broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog", "unreadable_pdf"),
    ],
)
def test_files_that_cannot_be_used_are_refused_with_a_reason(filename, data, code):
    assert refused(filename, data).code == code


def test_a_truncated_pdf_and_a_pdf_without_text_are_refused():
    whole = pdf_with_text(SOIL_PDF_LINES)
    assert refused("cut.pdf", whole[: len(whole) // 3]).code == "unreadable_pdf"
    error = refused("scan.pdf", blank_pdf())
    assert error.code == "no_text"
    assert "no text" in str(error)


def test_a_file_over_the_limit_is_refused_before_it_is_read():
    error = refused("big.txt", b"x" * (MB + 1), max_bytes=MB)
    assert error.code == "file_too_large"
    assert "1 MB" in str(error)


def test_passages_are_cut_on_paragraph_boundaries_within_the_size():
    text = long_markdown(12)
    passages = split_passages(text)
    assert len(passages) > 1
    assert all(len(p) <= PASSAGE_MAX for p in passages)
    assert all(len(p) >= 800 for p in passages[:-1])
    for passage in passages:  # no paragraph is cut
        assert passage.startswith(("# Cover crops", "Paragraph "))
        assert passage.endswith("surface.")
    assert "\n\n".join(passages) == text


def test_a_long_paragraph_is_cut_at_sentences_and_words():
    sentence = "Nitrogen moves with water through sandy soil. "
    passages = split_passages(sentence * 100)
    assert all(len(p) <= PASSAGE_MAX for p in passages)
    assert all(p.endswith("soil.") for p in passages)
    word = split_passages("x" * 4000)
    assert [len(p) for p in word] == [1500, 1500, 1000]
    assert split_passages("short") == ["short"]
    assert split_passages("  \n\n ") == []
