"""The suite's docstrings as reStructuredText, for autodoc.

They are written to be read as plain text (and in `help()`): `code` in backticks, parameters as
`name: what it is` with indented continuation lines, code examples indented after a blank line.
reST reads some of that otherwise (an indented continuation is an error, `**kwargs` opens bold,
`coef_` is a link, `a|b` a substitution), so each docstring is rewritten line by line: continuation
lines joined to the line they continue, an indented block after a blank line made a literal
block, inline code made literal, and the characters reST would take as markup escaped elsewhere.
"""
from __future__ import annotations

import re

_CODE = re.compile(r"``?([^`]+?)``?")
_MARKUP = re.compile(r"(\*|\||(?<=\w)_(?=\W|$))")


def _inline(text: str) -> str:
    """Backticked spans as literals, everything else with reST's markup characters escaped."""
    out, at = [], 0
    for match in _CODE.finditer(text):
        out.append(_MARKUP.sub(r"\\\1", text[at:match.start()]))
        code = match.group(1).replace("\\", "\\\\")
        after = text[match.end():match.end() + 1]
        out.append(f":literal:`{code}`" + ("\\ " if after and (after.isalnum() or after in "_(") else ""))
        at = match.end()
    out.append(_MARKUP.sub(r"\\\1", text[at:]))
    return "".join(out)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def to_rest(lines: list[str]) -> list[str]:
    """`lines` of one docstring (already dedented by autodoc) as reST lines."""
    paragraphs: list[list[str]] = [[]]
    for line in lines:
        if line.strip():
            paragraphs[-1].append(line.rstrip())
        elif paragraphs[-1]:
            paragraphs.append([])
    out: list[str] = []
    for paragraph in (p for p in paragraphs if p):
        base = _indent(paragraph[0])
        if base > 0:  # an indented block after a blank line: code, shown as written
            out += ["::", ""] + ["    " + line[base:] for line in paragraph] + [""]
            continue
        joined: list[str] = []
        for line in paragraph:
            if joined and _indent(line) > 0:
                joined[-1] += " " + line.strip()  # a continuation of the line above
            else:
                joined.append(line.strip())
        if len(joined) > 1 and all(re.match(r"^[\w.*]+( \w+)*: ", line) or line.startswith("- ") for line in joined):
            out += [f"- {_inline(line.removeprefix('- '))}" for line in joined] + [""]  # one item per name
        else:
            out += [_inline(line) for line in joined] + [""]
    return out


def _as_written(obj, lines: list[str]) -> list[str]:
    """The docstring's lines dedented to its body's own indentation, which the closing quotes'
    line gives: autodoc dedents to the least indented line, which loses a code example's indent
    when the example is all the body holds."""
    raw = getattr(obj, "__doc__", None)
    if not isinstance(raw, str) or "\n" not in raw:
        return lines
    first, *rest = raw.expandtabs().split("\n")
    if rest[-1].strip() or any(line.strip() and not line.startswith(rest[-1]) for line in rest):
        return lines  # the closing quotes share a line with text, or an unusual layout: autodoc's
    base = len(rest[-1])
    return [first.strip(), *(line[base:] for line in rest[:-1])]


def process(app, what, name, obj, options, lines: list[str]) -> None:
    lines[:] = to_rest(_as_written(obj, lines))


def setup(app):
    app.connect("autodoc-process-docstring", process)
    return {"parallel_read_safe": True}
