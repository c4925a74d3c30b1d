"""Fetching pages on the server: no private addresses, bounded size and time, text out."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from tests.support.pdfs import pdf_of
from webapp import fetching
from webapp.fetching import FetchedPage, FetchRefused, extract_text, fetch_page

PAGE = b"""<!doctype html>
<html><head><title> Tomato yields </title>
<style>body { color: red }</style><script>var secret = "script text";</script></head>
<body><nav>Home | About</nav>
<h1>Yields</h1><p>Field tomatoes give <b>60 t/ha</b> in good years.</p>
<noscript>Enable JavaScript</noscript>
<ul><li>Irrigated</li><li>Staked</li></ul>
<footer>Copyright</footer></body></html>"""


def make_pdf(text: str, title: str) -> bytes:
    """A one-page PDF with text in Helvetica and a title in its document information."""
    content = f"BT /F1 12 Tf 20 100 Td ({text}) Tj ET".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 144] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Title ({title}) >>".encode(),
    ]
    return pdf_of(objects, b"/Root 1 0 R /Info 6 0 R")


PDF = make_pdf("Nitrogen demand is 180 kg/ha.", "Fertilizer guide")


class PageServer:
    """A loopback server with one route per situation; it records the Host headers it saw."""

    def __init__(self) -> None:
        self.stop = threading.Event()
        self.hosts: list[str] = []
        self.trickled = 0
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        # A client that gives up mid-answer is expected here, not an error to print.
        self.server.handle_error = lambda request, address: None
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def netloc(self) -> str:
        return f"127.0.0.1:{self.server.server_address[1]}"

    @property
    def port(self) -> int:
        return self.server.server_address[1]

    def url(self, path: str) -> str:
        return f"http://{self.netloc}{path}"

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):
                pass

            def send(self, status, content_type, body, length=None):
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body) if length is None else length))
                self.end_headers()
                self.wfile.write(body)

            def redirect(self, location):
                self.send_response(302)
                self.send_header("Location", location)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                server.hosts.append(self.headers.get("Host", ""))
                path = self.path
                if path == "/page":
                    self.send(200, "text/html; charset=utf-8", PAGE)
                elif path == "/latin1":
                    body = "<title>Caf\xe9</title><p>Cr\xe8me fra\xeeche</p>".encode("latin-1")
                    self.send(200, "text/html; charset=ISO-8859-1", body)
                elif path == "/plain":
                    self.send(200, "text/plain; charset=utf-8", b"Sorte:  Rote Bete\n\n")
                elif path == "/doc.pdf":
                    self.send(200, "application/pdf", PDF)
                elif path == "/unlabelled-pdf":
                    self.send(200, "application/octet-stream", PDF)
                elif path == "/binary":
                    self.send(200, "application/octet-stream", b"\x00\x01\x02")
                elif path == "/image.png":
                    self.send(200, "image/png", b"\x89PNG\r\n")
                elif path == "/missing":
                    self.send(404, "text/html", b"<p>not here</p>")
                elif path == "/failing":
                    self.send(500, "text/html", b"<p>oops</p>")
                elif path.startswith("/chain/"):
                    left = int(path.rsplit("/", 1)[1])
                    self.redirect(f"/chain/{left - 1}" if left > 1 else "/page")
                elif path == "/loop":
                    self.redirect("/loop")
                elif path == "/to-metadata":
                    self.redirect("/to-metadata-2")
                elif path == "/to-metadata-2":
                    self.redirect("http://169.254.169.254/latest/meta-data/")
                elif path == "/to-localhost":
                    self.redirect(f"http://localhost:{server.port}/page")
                elif path == "/to-file":
                    self.redirect("file:///etc/passwd")
                elif path == "/declared-big":
                    self.send(200, "text/html", b"<p>small</p>", length=10_000_000)
                elif path == "/streamed-big":
                    # HTTP/1.0 without a length: the body ends when the connection closes.
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.end_headers()
                    for _ in range(50):
                        self.wfile.write(b"<p>" + b"x" * 1000 + b"</p>")
                elif path == "/slow":
                    server.stop.wait(3)
                    self.send(200, "text/html", b"<p>late</p>")
                elif path == "/trickle":
                    self.send_response(200)
                    self.send_header("Content-Type", "text/plain")
                    self.end_headers()
                    for _ in range(30):
                        if server.stop.wait(0.1):
                            break
                        self.wfile.write(b"x")
                        self.wfile.flush()
                elif path in ("/trickle-headers", "/trickle-body"):
                    # The drill: a line a tenth of a second, for four seconds.
                    headers = path == "/trickle-headers"
                    self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n")
                    if not headers:
                        self.wfile.write(b"Content-Length: 40\r\n\r\n")
                    for _ in range(40):
                        if server.stop.wait(0.1):
                            return
                        try:
                            self.wfile.write(b"X-Line: x\r\n" if headers else b"x")
                            self.wfile.flush()
                        except OSError:  # the client gave up
                            return
                        server.trickled += 1
                    if headers:
                        self.wfile.write(b"Content-Length: 0\r\n\r\n")
                elif path == "/host":
                    self.send(200, "text/plain", self.headers.get("Host", "").encode())
                else:
                    self.send(404, "text/plain", b"no route")

        return Handler

    def __enter__(self) -> PageServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5)


@pytest.fixture
def pages() -> Iterator[PageServer]:
    with PageServer() as server:
        yield server


def fetch(pages: PageServer, path: str, **kwargs) -> FetchedPage:
    return fetch_page(pages.url(path), allow_hosts=frozenset({pages.netloc}), **kwargs)


# Refused before any request --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "Only http and https"),
        ("ftp://example.org/file.txt", "Only http and https"),
        ("javascript:alert(1)", "Only http and https"),
        ("no address at all", "not a web address"),
        ("http://127.0.0.1/", "127.0.0.1 is a loopback address"),
        ("http://127.0.0.1:5000/admin", "loopback"),
        ("http://10.0.0.1/", "10.0.0.1 is a private address"),
        ("http://192.168.1.1/", "private"),
        ("http://172.16.0.1/", "private"),
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
        ("http://[::1]/", "::1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]/", "::ffff:127.0.0.1 is a loopback address"),
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[fd00::1]/", "private"),
        ("http://[64:ff9b::7f00:1]/", "loopback"),  # NAT64 to 127.0.0.1
        ("http://[2002:7f00:1::]/", "loopback"),  # 6to4 around 127.0.0.1
        ("http://localhost/", "localhost (127.0.0.1) is a loopback address"),
        ("http://localhost:8080/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://2130706433/", "loopback"),  # 127.0.0.1 as one decimal number
        ("http://0x7f.1/", "loopback"),
        ("http://224.0.0.1/", "multicast"),
        ("http://240.0.0.1/", "reserved"),
        ("http://100.64.0.1/", "not a public address"),  # carrier-grade NAT
        ("http:///path", "names no host"),
    ],
)
def test_refused_addresses(url, reason):
    with pytest.raises(FetchRefused) as refused:
        fetch_page(url, timeout=2)
    assert reason in str(refused.value)


def test_one_private_address_among_public_ones_is_enough_to_refuse(monkeypatch):
    def resolve(host, port, *args, **kwargs):
        assert host == "mixed.example"
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.1.2.3", port)),
        ]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with pytest.raises(FetchRefused, match=r"mixed.example \(10.1.2.3\) is a private address"):
        fetch_page("https://mixed.example/")


def test_an_unknown_host_is_refused(monkeypatch):
    def resolve(*args, **kwargs):
        raise socket.gaierror("Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    with pytest.raises(FetchRefused, match="could not be found"):
        fetch_page("https://no-such-host.example/")


def test_the_allow_list_opens_only_the_host_or_port_it_names(pages):
    assert fetch_page(pages.url("/plain"), allow_hosts=frozenset({"127.0.0.1"})).status == 200
    with pytest.raises(FetchRefused, match="loopback"):
        fetch_page(pages.url("/plain"), allow_hosts=frozenset({"127.0.0.1:1"}))


# Fetching from the loopback server ------------------------------------------------------------


def test_html_gives_title_and_visible_text(pages):
    page = fetch(pages, "/page")
    assert page == FetchedPage(
        url=pages.url("/page"),
        final_url=pages.url("/page"),
        status=200,
        content_type="text/html",
        title="Tomato yields",
        text="Yields\nField tomatoes give 60 t/ha in good years.\nIrrigated\nStaked",
    )


def test_the_declared_charset_is_used(pages):
    page = fetch(pages, "/latin1")
    assert (page.title, page.text) == ("Café", "Crème fraîche")


def test_plain_text_and_pdf(pages):
    assert fetch(pages, "/plain").text == "Sorte: Rote Bete"
    pdf = fetch(pages, "/doc.pdf")
    assert (pdf.content_type, pdf.title) == ("application/pdf", "Fertilizer guide")
    assert "Nitrogen demand is 180 kg/ha." in pdf.text
    unlabelled = fetch(pages, "/unlabelled-pdf")
    assert unlabelled.content_type == "application/pdf"
    assert "180 kg/ha" in unlabelled.text


def test_text_is_cut_at_max_chars(pages):
    assert fetch(pages, "/page", max_chars=10).text == "Yields\nFie"


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/image.png", "image/png cannot be read"),
        ("/binary", "application/octet-stream cannot be read"),
        ("/missing", "HTTP 404"),
        ("/failing", "HTTP 500"),
    ],
)
def test_unreadable_answers_are_refused(pages, path, reason):
    with pytest.raises(FetchRefused, match=reason):
        fetch(pages, path)


def test_redirects_are_followed_up_to_five(pages):
    page = fetch(pages, "/chain/5")
    assert (page.url, page.final_url, page.title) == (
        pages.url("/chain/5"),
        pages.url("/page"),
        "Tomato yields",
    )
    with pytest.raises(FetchRefused, match="more than 5 times"):
        fetch(pages, "/chain/6")
    with pytest.raises(FetchRefused, match="more than 5 times"):
        fetch(pages, "/loop")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/to-metadata", "169.254.169.254 is a link-local address"),
        ("/to-localhost", "localhost (127.0.0.1) is a loopback address"),
        ("/to-file", "Only http and https"),
    ],
)
def test_every_redirect_hop_is_checked_again(pages, path, reason):
    with pytest.raises(FetchRefused) as refused:
        fetch(pages, path)
    assert reason in str(refused.value)


def test_oversized_bodies_are_refused(pages):
    with pytest.raises(FetchRefused, match="larger than 1,000 bytes"):
        fetch(pages, "/declared-big", max_bytes=1000)
    with pytest.raises(FetchRefused, match="larger than 1,000 bytes"):
        fetch(pages, "/streamed-big", max_bytes=1000)
    assert len(fetch(pages, "/streamed-big").text) == 20_000


def test_a_slow_answer_times_out(pages):
    with pytest.raises(FetchRefused, match=r"within 0\.5 seconds"):
        fetch(pages, "/slow", timeout=0.5)


def test_a_trickling_answer_times_out_as_a_whole(pages):
    with pytest.raises(FetchRefused, match=r"within 0\.5 seconds"):
        fetch(pages, "/trickle", timeout=0.5)


@pytest.mark.parametrize("path", ["/trickle-headers", "/trickle-body"])
def test_the_time_limit_bounds_the_whole_request_however_slowly_it_trickles(pages, path):
    """Issue 11 §6: a server sending a header line a second held a fetch for 40 s, as each
    read came within the read timeout."""
    with pytest.raises(FetchRefused, match=r"did not answer within 0\.5 seconds"):
        fetch(pages, path, timeout=0.5)
    assert pages.trickled < 40  # it gave up before the server was done


def test_the_request_goes_to_the_checked_address(pages, monkeypatch):
    """A name is resolved once and checked; the connection uses that address, so a second
    answer from DNS (rebinding) is never asked for."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def resolve(host, port, *args, **kwargs):
        if host == "pages.example":
            asked.append(host)
            if len(asked) > 1:
                raise AssertionError("resolved twice")
            # An unused loopback address first: the next address is tried when it refuses.
            return real("127.0.0.2", port, *args, **kwargs) + real(
                "127.0.0.1", port, *args, **kwargs
            )
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    # Loopback stands in for a public address here.
    monkeypatch.setattr(fetching, "_refusal", lambda address: None)
    page = fetch_page(f"http://pages.example:{pages.port}/host")
    assert page.text == f"pages.example:{pages.port}"
    assert page.final_url == f"http://pages.example:{pages.port}/host"
    assert asked == ["pages.example"]


# extract_text ---------------------------------------------------------------------------------


def test_extract_text_by_content_type():
    assert extract_text(PAGE, "text/html")[0] == "Tomato yields"
    assert "script text" not in extract_text(PAGE, "text/html")[1]
    assert extract_text(b"<p>a<br>b</p>", "application/xhtml+xml") == ("", "a\nb")
    assert extract_text("Grüße\r\n\r\n  x".encode(), "text/plain") == ("", "Grüße\nx")
    assert extract_text(b"caf\xe9", "text/plain; charset=latin-1") == ("", "café")
    assert extract_text(b"caf\xe9", "text/plain; charset=no-such-codec") == ("", "caf\ufffd")
    assert extract_text(PDF, "application/pdf") == (
        "Fertilizer guide",
        "Nitrogen demand is 180 kg/ha.",
    )


@pytest.mark.parametrize(
    ("body", "content_type", "reason"),
    [
        (b"\x89PNG", "image/png", "image/png"),
        (b"{}", "application/json", "application/json"),
        (b"x", "", "unknown"),
        (b"%PDF-1.4 broken", "application/pdf", "The PDF could not be read."),
    ],
)
def test_extract_text_refuses_what_it_cannot_read(body, content_type, reason):
    with pytest.raises(FetchRefused, match=reason):
        extract_text(body, content_type)
