"""How a path the file system gave is shown. A name that is not valid UTF-8 (Latin-1 from an
old archive, a byte a tool mangled) reaches Python with each undecodable byte as a lone
surrogate (PEP 383: b"\\xff" is "\\udcff"), which no UTF-8 output can carry: such a byte is
shown as the escape `\\xff`, in every output format (text, --diff, JSON), and the file is
still read, rendered and written under its real name."""
from __future__ import annotations

_LOW, _HIGH = 0xDC80, 0xDCFF  # the surrogates os.fsdecode makes of the bytes 0x80-0xff


def escaped(text: str, in_json: bool = False) -> str:
    """`text` with every lone surrogate of an undecodable byte written `\\xNN` (any other
    lone surrogate `\\udNNN`); `text` itself when it has none (nearly always). `in_json`:
    `text` is JSON (a surrogate is only ever inside one of its strings), whose backslash is
    written escaped."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    slash = "\\\\" if in_json else "\\"
    return "".join(_escape(c, slash) if "\ud800" <= c <= "\udfff" else c for c in text)


def _escape(c: str, slash: str) -> str:
    n = ord(c)
    return f"{slash}x{n - 0xDC00:02x}" if _LOW <= n <= _HIGH else f"{slash}u{n:04x}"
