"""Text from a file, shown in a message: one line, printable, bounded.

A label, a column name, a module name or a version read from a file a user did not write may
hold line breaks, terminal escapes (ESC [2J clears the screen), bidirectional overrides or lone
surrogates; printed raw, it can forge a line of output (`error: ...`) or fail to encode. Every
character that is not printable is written as its Python escape, and a long text is cut.
"""
from __future__ import annotations

_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def shown(text, limit: int = 200) -> str:
    """`text` as one printable line of at most `limit` characters (and the count of the rest).

    Printable means `str.isprintable`: no control, format, separator (but the space), surrogate
    or unassigned character; each of those becomes its escape (`\\x1b`, `\\u202e`, `\\ud800`).
    """
    text = text if isinstance(text, str) else str(text)
    part = text[:limit]
    if not part.isprintable():
        part = "".join(c if c.isprintable() else _escape(c) for c in part)
    return part if len(text) <= limit else f"{part}... ({len(text):,} characters)"
