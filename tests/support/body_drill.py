"""Large request bodies against a real `furrow serve`, and how much the web process grows while
it answers each: the test of bounded bodies and bench/body_memory.py share it.

The shapes are the ones that once took the web process from 449 MB to 1.9 GB: an anonymous
sign-in form of one empty field repeated ("%2C" ×6.5 million), the same without a
Content-Length (chunked), a multipart form and a JSON body of the same size, and four
signed-in confirm forms of 7 MB sent at once."""

from __future__ import annotations

import http.client
import http.cookiejar
import re
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import psutil

MB = 1024 * 1024
CSRF_FIELD = re.compile(rb'name="csrf_token"[^>]*?value="([^"]+)"')


@dataclass(frozen=True)
class Shape:
    name: str
    path: str
    content_type: str
    body: bytes
    chunked: bool = False
    signed_in: bool = False
    at_once: int = 1


@dataclass(frozen=True)
class Answer:
    shape: str
    statuses: list[int]
    growth_mb: float
    seconds: float


def form_of_commas(size: int) -> bytes:
    """One empty field repeated: "%2C" until size bytes, as the sign-in drill sent it."""
    return b"%2C" * (size // 3)


def multipart_of(size: int) -> tuple[str, bytes]:
    boundary = "drill-boundary"
    head = f'--{boundary}\r\nContent-Disposition: form-data; name="email"\r\n\r\n'.encode()
    body = head + b"a" * size + f"\r\n--{boundary}--\r\n".encode()
    return f"multipart/form-data; boundary={boundary}", body


def shapes(sizes_mb: tuple[float, ...] = (19.5, 9)) -> list[Shape]:
    form = "application/x-www-form-urlencoded"
    found = []
    for size_mb in sizes_mb:
        size = int(size_mb * MB)
        found.append(Shape(f"sign-in form, {size_mb:g} MB", "/login", form, form_of_commas(size)))
    size = int(sizes_mb[0] * MB)
    found += [
        Shape("sign-in form, chunked", "/login", form, form_of_commas(size), chunked=True),
        Shape("sign-in form, multipart", "/login", *multipart_of(size)),
        Shape(
            "JSON body to the API",
            "/api/v1/cultures",
            "application/json",
            b"[" + b"{}," * (size // 3) + b"{}]",
            signed_in=True,
        ),
        Shape(
            "4 confirm forms of 7 MB at once",
            "/cultures/import/confirm",
            form,
            form_of_commas(7 * MB),
            signed_in=True,
            at_once=4,
        ),
    ]
    return found


def web_process(server_pid: int) -> psutil.Process:
    """gunicorn's worker: the gunicorn process whose parent is gunicorn too."""
    for child in psutil.Process(server_pid).children(recursive=True):
        if "gunicorn" in " ".join(child.cmdline()) and "gunicorn" in " ".join(
            child.parent().cmdline()
        ):
            return child
    raise AssertionError("no gunicorn worker under the server")


class Session:
    """A signed-in browser's cookies and CSRF token, got through the sign-in form."""

    def __init__(self, base_url: str, email: str, password: str) -> None:
        self.base_url = base_url
        self.jar = http.cookiejar.CookieJar()
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))
        page = opener.open(base_url + "/login", timeout=10).read()
        token = CSRF_FIELD.search(page).group(1).decode()
        form = {"csrf_token": token, "email": email, "password": password}
        opener.open(base_url + "/login", urllib.parse.urlencode(form).encode(), timeout=10)
        self.csrf = token

    def cookie_header(self) -> str:
        return "; ".join(f"{c.name}={c.value}" for c in self.jar)


def headers_of(session: Session, secret: str) -> Callable[[Shape], dict[str, str]]:
    """What each shape sends to be let in: a bearer token to the API, the signed-in browser's
    cookies and CSRF token to a page, nothing to a public form."""

    def headers_for(shape: Shape) -> dict[str, str]:
        if not shape.signed_in:
            return {}
        if shape.path.startswith("/api/"):
            return {"Authorization": f"Bearer {secret}"}
        return {"Cookie": session.cookie_header(), "X-CSRFToken": session.csrf}

    return headers_for


def send(base_url: str, shape: Shape, headers: dict[str, str]) -> int:
    parts = urlsplit(base_url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)
    headers = {"Content-Type": shape.content_type, **headers}
    try:
        if shape.chunked:
            pieces = (shape.body[i : i + 64 * 1024] for i in range(0, len(shape.body), 64 * 1024))
            connection.request(
                "POST", shape.path, body=pieces, headers=headers, encode_chunked=True
            )
        else:
            connection.request("POST", shape.path, body=shape.body, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    except (BrokenPipeError, ConnectionResetError):
        # The server may answer and close before the whole body is sent: it refused it.
        return 413
    finally:
        connection.close()


def drill(
    base_url: str,
    server_pid: int,
    headers_for: Callable[[Shape], dict[str, str]],
    chosen: list[Shape],
) -> list[Answer]:
    """Send each shape and watch the web process's resident memory every 5 ms meanwhile."""
    process = web_process(server_pid)
    return [answer_of(base_url, process, shape, headers_for(shape)) for shape in chosen]


def answer_of(
    base_url: str, process: psutil.Process, shape: Shape, headers: dict[str, str]
) -> Answer:
    baseline = process.memory_info().rss
    peak = baseline
    done = threading.Event()

    def watch() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, process.memory_info().rss)
            time.sleep(0.005)

    statuses: list[int] = []

    def post() -> None:
        statuses.append(send(base_url, shape, headers))

    watcher = threading.Thread(target=watch)
    watcher.start()
    began = time.monotonic()
    senders = [threading.Thread(target=post) for _ in range(shape.at_once)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    took = time.monotonic() - began
    done.set()
    watcher.join()
    return Answer(shape.name, sorted(statuses), (peak - baseline) / MB, took)
