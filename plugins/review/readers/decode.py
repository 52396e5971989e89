"""Bytes to text: the encodings exports come in, and the inputs refused before any parsing."""

from __future__ import annotations

import codecs

from .results import ReadError

MAX_BYTES = 200 * 1024 * 1024
_SAMPLE = 65536


def decode(raw: bytes) -> tuple[str, list[str]]:
    """The text of an export with line endings made ``\\n``, and notices about how it was read.

    UTF-8 (BOM or not), UTF-16 (BOM, or told by its NULs), else cp1252/latin-1. Refuses files
    over 200 MB, PDFs, archives and binary data with a :class:`ReadError`.
    """
    if len(raw) > MAX_BYTES:
        raise ReadError(
            "too_large", f"the file is {len(raw):,} bytes; files over {MAX_BYTES:,} bytes are refused"
        )
    if not raw.strip():
        raise ReadError("empty", "the file is empty")
    head = raw[:8]
    if head.startswith(b"%PDF"):
        raise ReadError("unsupported", "this is a PDF document, not a bibliographic export")
    if head.startswith(b"PK\x03\x04"):
        raise ReadError(
            "unsupported", "this is a ZIP archive (an .xlsx or .docx?); export or save it as CSV, RIS or XML"
        )
    if head.startswith(b"\xd0\xcf\x11\xe0"):
        raise ReadError("unsupported", "this is a legacy Office file (.xls?); save it as CSV")
    notices: list[str] = []
    text: str
    if raw.startswith(codecs.BOM_UTF8):
        text = _strict(raw[3:], "utf-8")
    elif raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = _strict(raw, "utf-16")
        notices.append("UTF-16 decoded")
    elif (guess := _utf16_by_nuls(raw[:_SAMPLE])) is not None:
        text = _strict(raw, guess)
        notices.append("UTF-16 decoded")
    else:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            if _looks_binary(raw[:_SAMPLE]):
                raise ReadError("undecodable", "the file holds binary data, not text") from None
            try:
                text = raw.decode("cp1252")
                notices.append("not UTF-8: decoded as Windows-1252")
            except UnicodeDecodeError:
                text = raw.decode("latin-1")
                notices.append("not UTF-8: decoded as Latin-1")
    text = text.lstrip("\ufeff")
    if _control_share(text[:_SAMPLE]) > 0.01:
        raise ReadError("undecodable", "the file holds binary data or control characters, not text")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text, notices


def _strict(raw: bytes, encoding: str) -> str:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise ReadError(
            "undecodable", f"the file is not valid {encoding.upper()}: {exc.reason} at byte {exc.start}"
        ) from None


def _utf16_by_nuls(sample: bytes) -> str | None:
    # ASCII-range text in UTF-16 has a NUL in every other byte: the odd bytes for LE, the even for BE.
    if len(sample) < 4 or b"\x00" not in sample:
        return None
    even, odd = sample[0::2], sample[1::2]
    if odd.count(0) > 0.4 * len(odd) and even.count(0) < 0.05 * len(even):
        return "utf-16-le"
    if even.count(0) > 0.4 * len(even) and odd.count(0) < 0.05 * len(odd):
        return "utf-16-be"
    return None


def _looks_binary(sample: bytes) -> bool:
    return sample.count(0) > 0 or sum(1 for b in sample if b < 9 or 13 < b < 32) > 0.01 * len(sample)


def _control_share(sample: str) -> float:
    if not sample:
        return 0.0
    bad = sum(1 for ch in sample if ch < " " and ch not in "\t\n\r\f\v")
    return bad / len(sample)
