"""Which referenced files a browser may render inline."""

from __future__ import annotations

import pytest

from openalice.gateway.delivery import content_disposition, content_type_for, file_headers

PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF"
GIF = b"GIF89a\x01\x00\x01\x00"
WEBP = b"RIFF\x24\x00\x00\x00WEBPVP8 "
PDF = b"%PDF-1.7\n"
HTML = b"<!doctype html><script>alert(1)</script>"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>'


@pytest.mark.parametrize("path,data,mime", [
    ("a.png", PNG, "image/png"), ("b/c.JPG", JPEG, "image/jpeg"), ("d.jpeg", JPEG, "image/jpeg"),
    ("e.gif", GIF, "image/gif"), ("f.webp", WEBP, "image/webp"), ("r/close.pdf", PDF, "application/pdf"),
])
def test_raster_images_and_pdf_are_inline(path, data, mime):
    assert content_type_for(path, data) == (mime, True)
    assert file_headers(path, data, True)["Content-Disposition"].startswith("inline;")


@pytest.mark.parametrize("path,data", [
    ("page.html", HTML), ("page.htm", HTML), ("logo.svg", SVG), ("notes.md", b"# hi"),
    ("data.json", b"{}"), ("script.js", b"alert(1)"), ("noext", PNG),
    # a known extension whose bytes are something else is not trusted
    ("fake.png", HTML), ("fake.pdf", SVG), ("fake.webp", b"RIFF\x00\x00\x00\x00AVI "),
])
def test_everything_else_is_an_octet_stream_attachment(path, data):
    assert content_type_for(path, data) == ("application/octet-stream", False)
    headers = file_headers(path, data, None)
    assert headers["Content-Disposition"].startswith("attachment;")
    assert headers["Content-Type"] == "application/octet-stream"


def test_every_file_response_is_sandboxed_and_nosniff():
    for path, data in (("a.png", PNG), ("page.html", HTML)):
        h = file_headers(path, data, True)
        assert h["X-Content-Type-Options"] == "nosniff"
        assert h["Content-Security-Policy"].split(";")[0] == "sandbox"
        assert h["Cache-Control"] == "no-store"


def test_revision_header():
    assert file_headers("a.png", PNG, True)["X-OpenAlice-Revision"] == "match"
    assert file_headers("a.png", PNG, False)["X-OpenAlice-Revision"] == "changed"
    assert file_headers("a.png", PNG, None)["X-OpenAlice-Revision"] == "unpinned"


def test_disposition_names_are_safe():
    assert content_disposition("reports/close.pdf", inline=True) == (
        "inline; filename=\"close.pdf\"; filename*=UTF-8''close.pdf")
    value = content_disposition('x/"evil";\r\nSet-Cookie: a=b.html', inline=False)
    assert "\r" not in value and "\n" not in value
    assert value.startswith('attachment; filename="_evil__')
    assert "été" not in content_disposition("été.png", inline=True).split("filename*")[0]
    assert "filename*=UTF-8''%C3%A9t%C3%A9.png" in content_disposition("été.png", inline=True)
