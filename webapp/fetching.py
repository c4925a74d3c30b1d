"""Fetching a web page on the server for research tables, never from a private address.

The host is resolved here and every address it resolves to must be public; the request then
goes to one of exactly those addresses (with the host name in the Host header and in TLS), so a
name cannot resolve to something else between the check and the connection. Redirects are
followed here, at most MAX_REDIRECTS, and every hop is checked again. An administrator's allow
list (FURROW_FETCH_ALLOW_HOSTS: "host" or "host:port") opens intranet hosts; tests use it for
their loopback server.
"""

from __future__ import annotations

import codecs
import contextlib
import io
import ipaddress
import socket
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx2 as httpx

MAX_REDIRECTS = 5
USER_AGENT = "Furrow/0.1 (research tables)"
_HTML = frozenset({"text/html", "application/xhtml+xml"})
_PDF = frozenset({"application/pdf", "application/x-pdf"})
_TEXT = frozenset({"text/plain"})
# Servers that do not know what they serve; the body decides (a PDF starts with "%PDF-").
_UNLABELLED = frozenset({"", "application/octet-stream", "binary/octet-stream"})
_DROPPED_TAGS = ["script", "style", "noscript", "nav", "footer", "template", "title"]
_BLOCK_TAGS = [
    *("address", "article", "aside", "blockquote", "dd", "div", "dl", "dt", "figcaption"),
    *("figure", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main"),
    *("ol", "p", "pre", "section", "table", "td", "th", "tr", "ul"),
]
_DEFAULT_PORTS = {"http": 80, "https": 443}
# 64:ff9b::/96 translates to IPv4 (NAT64): the IPv4 address inside is what is reached.
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class FetchRefused(Exception):
    """A page that is not fetched or not read; the message says why, for people."""


@dataclass(frozen=True)
class FetchedPage:
    url: str  # as asked for
    final_url: str  # after redirects
    status: int
    content_type: str  # the media type, e.g. "text/html" (no parameters)
    title: str
    text: str


def fetch_page(
    url: str,
    *,
    timeout: float = 10.0,
    max_bytes: int = 2_000_000,
    max_chars: int = 20_000,
    allow_hosts: Collection[str] = frozenset(),
) -> FetchedPage:
    """The page at url as text, at most max_chars of it. Raises FetchRefused, and nothing else,
    when the address is not public http(s) (unless its host is in allow_hosts), the page is
    larger than max_bytes, takes longer than timeout seconds in all, answers with an error
    status or is not HTML, PDF or plain text."""
    allowed = frozenset(host.strip().lower() for host in allow_hosts)
    with _Deadline(timeout) as deadline:
        try:
            page = _fetch(url, deadline, max_bytes, max_chars, allowed)
        except httpx.TimeoutException:
            raise deadline.refusal() from None
        except httpx.InvalidURL:
            raise FetchRefused(f"{url!r} is not a valid web address.") from None
        except httpx.HTTPError as error:
            # The deadline ends the connection under a read, which then fails in any way.
            if deadline.passed:
                raise deadline.refusal() from None
            raise FetchRefused(f"The page could not be fetched: {error}") from None
        except FetchRefused:
            if deadline.passed:
                raise deadline.refusal() from None
            raise
    return page


def extract_text(body: bytes, content_type: str) -> tuple[str, str]:
    """(title, text) of an HTML page, a PDF or plain text; FetchRefused for other types."""
    return _extract(body, content_type, None)


class _Deadline:
    """The whole fetch's time limit. httpx's timeouts bound each network read, so a server that
    trickles a header line a second holds a request for as long as it likes; when the time is
    up this shuts the connection's socket down (seen through httpcore's trace extension),
    which ends whatever read is waiting."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        self.ends = time.monotonic() + timeout
        self._passed = threading.Event()
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self._timer = threading.Timer(timeout, self._end)
        self._timer.daemon = True

    def __enter__(self) -> _Deadline:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()

    @property
    def passed(self) -> bool:
        return self._passed.is_set() or time.monotonic() >= self.ends

    def remaining(self) -> float:
        return self.ends - time.monotonic()

    def refusal(self) -> FetchRefused:
        return FetchRefused(f"The page did not answer within {self.timeout:g} seconds.")

    def trace(self, event: str, info: dict) -> None:
        """httpcore's trace callback: note the socket of each connection (and its TLS one)."""
        if event not in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            return
        with self._lock:
            self._socket = info["return_value"].get_extra_info("socket")
            if self._passed.is_set():
                self._shut()

    def _end(self) -> None:
        with self._lock:
            self._passed.set()
            self._shut()

    def _shut(self) -> None:
        # The plain socket's shutdown, also under TLS: SSLSocket's own would unwrap the TLS
        # object under the reading thread.
        if self._socket is not None:
            with contextlib.suppress(OSError):  # already closed
                socket.socket.shutdown(self._socket, socket.SHUT_RDWR)


def _fetch(
    url: str,
    deadline: _Deadline,
    max_bytes: int,
    max_chars: int,
    allowed: frozenset[str],
) -> FetchedPage:
    current = httpx.URL(url)
    headers = {
        "User-Agent": USER_AGENT,
        "Accept": "text/html, application/xhtml+xml, application/pdf, text/plain;q=0.9",
        "Accept-Encoding": "identity",  # the size limit then counts what is downloaded
    }
    # trust_env=False: a proxy from the environment would connect to the host by name.
    with httpx.Client(headers=headers, trust_env=False, follow_redirects=False) as client:
        for _hop in range(MAX_REDIRECTS + 1):
            with _open(client, current, deadline, allowed) as response:
                if response.has_redirect_location:
                    current = current.join(response.headers["location"])
                    continue
                if not response.is_success:
                    raise FetchRefused(f"The page answered with HTTP {response.status_code}.")
                content_type = response.headers.get("content-type", "")
                media_type = _media_type(content_type)[0]
                if media_type not in _HTML | _PDF | _TEXT | _UNLABELLED:
                    raise FetchRefused(_unsupported(media_type))
                body = _read(response, max_bytes, deadline)
                status = response.status_code
            if media_type in _UNLABELLED:
                if not body.startswith(b"%PDF-"):
                    raise FetchRefused(_unsupported(media_type))
                content_type = media_type = "application/pdf"
            title, text = _extract(body, content_type, max_chars)
            return FetchedPage(url, str(current), status, media_type, title, text[:max_chars])
    raise FetchRefused(f"The page redirected more than {MAX_REDIRECTS} times.")


@contextmanager
def _open(
    client: httpx.Client,
    url: httpx.URL,
    deadline: _Deadline,
    allowed: frozenset[str],
) -> Iterator[httpx.Response]:
    """The streamed response for url, from one of the public addresses its host resolves to."""
    if not url.scheme:
        raise FetchRefused(f"{str(url)!r} is not a web address (http or https).")
    if url.scheme not in _DEFAULT_PORTS:
        raise FetchRefused(f"Only http and https pages can be fetched, not {url.scheme}:.")
    if not url.host:
        raise FetchRefused(f"{str(url)!r} names no host.")
    addresses: list[str | None] = [None]  # None: connect by name (an allowed host)
    if not _is_allowed(url, allowed):
        addresses = [*_public_addresses(url)]
    for attempt, address in enumerate(addresses, start=1):
        remaining = deadline.remaining()
        if remaining <= 0:
            raise deadline.refusal()
        request = client.build_request(
            "GET",
            url if address is None else url.copy_with(host=address),
            headers={"Host": url.netloc.decode("ascii")},
            timeout=httpx.Timeout(remaining),
            extensions={"sni_hostname": url.raw_host.decode("ascii"), "trace": deadline.trace},
        )
        try:
            response = client.send(request, stream=True)
        except httpx.ConnectError:
            if attempt == len(addresses):
                raise
            continue
        try:
            yield response
        finally:
            response.close()
        return


def _is_allowed(url: httpx.URL, allowed: frozenset[str]) -> bool:
    host = url.host.lower()
    port = url.port or _DEFAULT_PORTS[url.scheme]
    return bool({host, f"{host}:{port}", f"[{host}]:{port}"} & allowed)


def _public_addresses(url: httpx.URL) -> list[str]:
    port = url.port or _DEFAULT_PORTS[url.scheme]
    try:
        found = socket.getaddrinfo(url.raw_host.decode("ascii"), port, 0, socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        raise FetchRefused(f"The host {url.host} could not be found.") from None
    # A scope ("fe80::1%eth0") is not part of the address.
    addresses = list(dict.fromkeys(str(info[4][0]).split("%")[0] for info in found))
    for text in addresses:
        reason = _refusal(ipaddress.ip_address(text))
        if reason:
            name = text if url.host == text else f"{url.host} ({text})"
            raise FetchRefused(f"{name} is {reason}: pages are only fetched from public addresses.")
    return addresses


def _refusal(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why address is not a public one, or None."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if address.teredo:
            embedded = address.teredo[1]
        if address in _NAT64:
            embedded = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if embedded is not None and (reason := _refusal(embedded)):
            return reason
    checks = (
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_unspecified, "an unspecified address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
        (not address.is_global, "not a public address"),
    )
    return next((reason for refused, reason in checks if refused), None)


def _read(response: httpx.Response, max_bytes: int, deadline: _Deadline) -> bytes:
    too_large = f"The page is larger than {max_bytes:,} bytes."
    declared = response.headers.get("content-length", "")
    if declared.isascii() and declared.isdigit() and int(declared) > max_bytes:
        raise FetchRefused(too_large)
    chunks: list[bytes] = []
    size = 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise FetchRefused(too_large)
        chunks.append(chunk)
    # A body without a length ends when the connection does, as the deadline ends it too.
    if deadline.passed:
        raise deadline.refusal()
    return b"".join(chunks)


def _media_type(content_type: str) -> tuple[str, str | None]:
    """("text/html", "utf-8") for "text/html; charset=UTF-8"; the charset only if Python has it."""
    media_type, *parameters = content_type.split(";")
    charset = None
    for parameter in parameters:
        name, _, value = parameter.partition("=")
        if name.strip().lower() == "charset":
            charset = value.strip().strip("\"'").lower() or None
    if charset is not None:
        try:
            codecs.lookup(charset)
        except LookupError:
            charset = None
    return media_type.strip().lower(), charset


def _unsupported(media_type: str) -> str:
    return f"Pages of type {media_type or 'unknown'} cannot be read (HTML, PDF or plain text)."


def _extract(body: bytes, content_type: str, max_chars: int | None) -> tuple[str, str]:
    media_type, charset = _media_type(content_type)
    if media_type in _HTML:
        return _html(body, charset)
    if media_type in _PDF:
        return _pdf(body, max_chars)
    if media_type in _TEXT:
        return "", _tidy(body.decode(charset or "utf-8", errors="replace"))
    raise FetchRefused(_unsupported(media_type))


def _html(body: bytes, charset: str | None) -> tuple[str, str]:
    from bs4 import BeautifulSoup  # 8 MB a process would hold for the few that fetch a page

    soup = BeautifulSoup(body, "html.parser", from_encoding=charset)
    title = soup.title.get_text(" ", strip=True) if soup.title else ""
    for tag in soup(_DROPPED_TAGS):
        tag.decompose()
    # Blocks on lines of their own; inline elements ("<b>", "<a>") stay within the sentence.
    for tag in soup("br"):
        tag.replace_with("\n")
    for tag in soup(_BLOCK_TAGS):
        tag.insert(0, "\n")
        tag.append("\n")
    return title, _tidy(soup.get_text())


def _pdf(body: bytes, max_chars: int | None) -> tuple[str, str]:
    from pypdf import PdfReader  # 16 MB, only in a process that reads a PDF

    try:
        reader = PdfReader(io.BytesIO(body))
        if reader.is_encrypted and not reader.decrypt(""):
            raise FetchRefused("The PDF is encrypted.")
        title = str(reader.metadata.title or "") if reader.metadata else ""
        pages: list[str] = []
        size = 0
        for page in reader.pages:
            pages.append(page.extract_text() or "")
            size += len(pages[-1])
            if max_chars is not None and size >= max_chars:
                break
    except FetchRefused:
        raise
    except Exception:  # pypdf raises many kinds for a broken file
        raise FetchRefused("The PDF could not be read.") from None
    return title.strip(), _tidy("\n".join(pages))


def _tidy(text: str) -> str:
    lines = (" ".join(line.split()) for line in text.splitlines())
    return "\n".join(line for line in lines if line)
