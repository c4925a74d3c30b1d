import io

import pytest

from webapp.uploads import UploadRefused, check_csv_text, read_csv, read_text, size_text

KB = 1024


def refused(source, max_bytes=KB, **messages):
    with pytest.raises(UploadRefused) as caught:
        read_text(source, max_bytes, **messages)
    return caught.value


def test_utf8_text_is_read_without_its_byte_order_mark():
    assert read_text("\ufeffName;Ertrag\nMöhre;3,5\n".encode(), KB) == "Name;Ertrag\nMöhre;3,5\n"
    assert read_text(io.BytesIO("トマト".encode()), KB) == "トマト"
    assert read_text(b"", KB) == ""


def test_a_file_over_the_limit_is_refused_with_the_limit_named():
    error = refused(b"x" * (KB + 1), too_large="The file is larger than {limit}; split it.")
    assert (error.code, str(error)) == ("file_too_large", "The file is larger than 1 KB; split it.")
    assert read_text(b"x" * KB, KB) == "x" * KB  # at the limit is fine


def test_a_stream_is_read_no_further_than_one_byte_past_the_limit():
    stream = io.BytesIO(b"x" * (10 * KB))
    with pytest.raises(UploadRefused):
        read_text(stream, KB)
    assert stream.tell() == KB + 1


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ("Möhre".encode("latin-1"), "not_utf8"),
        ("Möhre".encode("utf-16"), "binary_file"),  # a BOM and NULs
        ("Carrot".encode("utf-16-le"), "binary_file"),  # decodes as UTF-8, NUL after each letter
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary_file"),
        (b"%PDF-1.7\n\xe2\xe3\xcf\xd3\n", "not_utf8"),
    ],
)
def test_binary_and_undecodable_files_are_refused_with_what_to_do(data, code):
    error = refused(data, advice="Save it as CSV (UTF-8).")
    assert error.code == code
    assert str(error).startswith("The file is not UTF-8 text.")
    assert str(error).endswith("Save it as CSV (UTF-8).")


def test_csv_uploads_say_how_to_fix_them():
    with pytest.raises(UploadRefused, match="split it into parts"):
        read_csv(b"a\n" * KB, KB)
    assert isinstance(UploadRefused("x", "y"), ValueError)  # views catch it as one


@pytest.mark.parametrize(
    ("limit", "text"), [(512 * KB, "512 KB"), (5 * KB * KB, "5 MB"), (1536 * KB, "1.5 MB")]
)
def test_limits_read_as_people_say_them(limit, text):
    assert size_text(limit) == text


def test_csv_text_sent_back_by_a_form_is_held_to_the_upload_limit_in_bytes():
    check_csv_text("a\n" * 512, KB)
    with pytest.raises(UploadRefused, match="larger than 1 KB; split it into parts"):
        check_csv_text("ö" * 513, KB)  # 513 characters, 1,026 bytes
