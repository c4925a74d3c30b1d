"""Compressed answers: pages, htmx fragments, JSON and CSV go br (else gzip) to a client that
accepts it, as they were to one that does not; a streamed answer still streams."""

import gzip
import json
import os
import zlib

import brotli
import pytest
from flask import Flask, Response

from tests.support.html import by_id, rows
from webapp.compression import init_compression
from webapp.config import load_settings
from webapp.extensions import db
from webapp.tables import catalog

COLUMNS = [
    {"name": "Plot", "type": "text"},
    {"name": "Yield", "type": "number", "unit": "t/ha"},
    {"name": "Note", "type": "text"},
]


def decoded(response) -> bytes:
    data = response.get_data()
    encoding = response.headers.get("Content-Encoding")
    if encoding == "br":
        return brotli.decompress(data)
    if encoding == "gzip":
        return gzip.decompress(data)
    if encoding == "deflate":
        return zlib.decompress(data)
    assert encoding is None, encoding
    return data


@pytest.fixture
def big_table(app):
    table = catalog.create_table("Trial", COLUMNS, None)
    catalog.add_rows(
        table,
        [{"Plot": f"P{n:04d}", "Yield": n / 10, "Note": f"plot {n} on loam"} for n in range(300)],
        None,
    )
    db.session.commit()
    return table


def test_a_large_table_page_goes_br_then_gzip_and_plain_to_a_client_without(client_as, big_table):
    client = client_as("viewer")
    url = f"/tables/{big_table.id}"
    plain = client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]
    shown = len(rows(by_id(plain, "table-rows")))
    assert shown > 20

    br = client.get(url, headers={"Accept-Encoding": "gzip, deflate, br"})
    assert br.headers["Content-Encoding"] == "br"
    assert int(br.headers["Content-Length"]) == len(br.get_data())
    assert len(br.get_data()) * 5 < len(plain.get_data())
    page = decoded(br)
    assert page.startswith(b"<!doctype html>") or page.lower().startswith(b"<!doctype html>")
    assert b"P0000" in page and len(page) > len(plain.get_data()) * 0.9

    gz = client.get(url, headers={"Accept-Encoding": "gzip, deflate"})
    assert gz.headers["Content-Encoding"] == "gzip"
    assert b"P0000" in decoded(gz)

    none = client.get(url, headers={"Accept-Encoding": "identity"})
    assert "Content-Encoding" not in none.headers


def test_compressed_answers_keep_the_security_headers(client_as, big_table):
    answer = client_as("viewer").get(f"/tables/{big_table.id}", headers={"Accept-Encoding": "br"})
    assert answer.headers["Content-Encoding"] == "br"
    assert answer.headers["X-Content-Type-Options"] == "nosniff"
    assert answer.headers["X-Frame-Options"] == "DENY"
    assert "frame-ancestors 'none'" in answer.headers["Content-Security-Policy"]


def test_an_htmx_fragment_is_compressed_too(client_as, big_table):
    client = client_as("viewer")
    headers = {"HX-Request": "true", "Accept-Encoding": "br"}
    fragment = client.get(f"/tables/{big_table.id}?page=2", headers=headers)
    assert fragment.status_code == 200
    body = decoded(fragment)
    assert b"<html" not in body.lower() and b"P0" in body


def test_json_and_csv_exports_are_compressed(client_as, big_table):
    client = client_as("viewer")
    answer = client.get(
        f"/tables/{big_table.id}/export.json", headers={"Accept-Encoding": "gzip, br"}
    )
    assert answer.mimetype == "application/json"
    assert answer.headers["Content-Encoding"] == "br"
    assert len(json.loads(decoded(answer))["rows"]) == 300
    assert "attachment" in answer.headers["Content-Disposition"]

    plain = client.get(f"/tables/{big_table.id}/export.json")
    assert "Content-Encoding" not in plain.headers
    assert len(plain.json["rows"]) == 300

    csv = client.get(f"/tables/{big_table.id}/export.csv", headers={"Accept-Encoding": "gzip"})
    assert csv.headers["Content-Encoding"] == "gzip"
    assert decoded(csv).decode().count("\n") == 301


def test_an_answer_under_500_bytes_goes_as_it_is(client):
    health = client.get("/healthz", headers={"Accept-Encoding": "br"})
    assert health.mimetype == "application/json" and len(health.get_data()) < 500
    assert "Content-Encoding" not in health.headers
    assert "Accept-Encoding" in health.headers["Vary"]


def test_a_range_of_a_static_file_goes_uncompressed(client):
    whole = client.get("/static/css/furrow.css", headers={"Accept-Encoding": "br"})
    assert whole.headers["Content-Encoding"] == "br"
    part = client.get(
        "/static/css/furrow.css", headers={"Accept-Encoding": "br", "Range": "bytes=0-99"}
    )
    assert part.status_code == 206 and "Content-Encoding" not in part.headers
    assert len(part.get_data()) == 100
    whole.close()
    part.close()


def test_a_static_file_answers_a_conditional_request_with_its_compressed_etag(client):
    first = client.get("/static/css/furrow.css", headers={"Accept-Encoding": "br"})
    etag = first.headers["ETag"]
    assert etag.endswith(':br"')
    first.close()
    again = client.get(
        "/static/css/furrow.css", headers={"Accept-Encoding": "br", "If-None-Match": etag}
    )
    assert again.status_code == 304 and again.get_data() == b""
    again.close()


def test_compression_is_a_setting(tmp_path):
    assert load_settings({"FURROW_INSTANCE_PATH": str(tmp_path)}).compress is True
    off = load_settings({"FURROW_INSTANCE_PATH": str(tmp_path), "FURROW_COMPRESS": "0"})
    assert off.compress is False
    app = Flask(__name__)
    init_compression(app, off.compress)

    @app.get("/page")
    def page():
        return "<p>" + "a field of wheat " * 100 + "</p>"

    answer = app.test_client().get("/page", headers={"Accept-Encoding": "br"})
    assert "Content-Encoding" not in answer.headers


CHUNKS = 1000  # 2 MB


def streaming_app(produced: list[int]) -> Flask:
    app = Flask(__name__)
    init_compression(app, True)

    @app.get("/export.csv")
    def export():
        def lines():
            for n in range(CHUNKS):
                produced.append(n)
                # Hex of random bytes: compresses, but not to nothing, so output comes early.
                yield f"{n},{os.urandom(1024).hex()}\n"

        return Response(lines(), mimetype="text/csv")

    return app


@pytest.mark.parametrize(
    ("accept", "encoding"), [("gzip, deflate, br", "br"), ("gzip, deflate", "deflate")]
)
def test_a_streamed_export_is_compressed_as_it_streams(accept, encoding):
    produced: list[int] = []
    client = streaming_app(produced).test_client()
    answer = client.get("/export.csv", headers={"Accept-Encoding": accept}, buffered=False)
    assert answer.is_streamed and answer.headers["Content-Encoding"] == encoding
    assert "Content-Length" not in answer.headers
    body = iter(answer.response)
    first = next(part for part in body if part)
    # The first compressed bytes left before half the export was made: it was not gathered.
    assert 0 < len(produced) < CHUNKS / 2
    data = first + b"".join(body)
    answer.close()
    text = (brotli.decompress(data) if encoding == "br" else zlib.decompress(data)).decode()
    assert len(produced) == CHUNKS
    assert [line.split(",")[0] for line in text.splitlines()] == [str(n) for n in range(CHUNKS)]


def test_a_streamed_export_streams_plain_to_a_client_without_compression():
    produced: list[int] = []
    client = streaming_app(produced).test_client()
    answer = client.get("/export.csv", buffered=False)
    assert "Content-Encoding" not in answer.headers
    body = iter(answer.response)
    next(body)
    assert len(produced) == 1
    assert len(b"".join(body).splitlines()) == CHUNKS - 1
    answer.close()
