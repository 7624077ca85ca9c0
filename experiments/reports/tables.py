"""Tables as a person reads them: text that fits a terminal (100 columns), HTML for notebooks, and
pandas DataFrames for code. A table is its header, its rows of text cells and the notes under it;
every way of showing it reads the same cells, so the terminal, the notebook and the frame agree."""
from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

import pandas as pd

# A terminal's width, and what a printed table keeps within: a wider table is cut into blocks of
# columns (each repeating the first), its notes wrapped; nothing wraps where the terminal decides.
WIDTH = 100


def text_table(lines: list[list[str]], width: int = WIDTH) -> list[str]:
    """Column-aligned lines (the first column left-aligned, the others right-aligned, a rule under
    the header). Wider than `width`, the columns after the first are cut into blocks that fit,
    each block repeating the first column, one after the other with a blank line between them."""
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    blocks, block = [], []
    for i in range(1, len(widths)):
        used = widths[0] + sum(2 + widths[j] for j in block)
        if block and used + 2 + widths[i] > width:
            blocks.append(block)
            block = []
        block.append(i)
    blocks.append(block)
    out = []
    for number, columns in enumerate(blocks):
        if number:
            out.append("")
        shown = [0, *columns]
        for n, line in enumerate(lines):
            out.append("  ".join(line[i].ljust(widths[i]) if i == 0 else line[i].rjust(widths[i])
                                 for i in shown).rstrip())
            if n == 0:
                out.append("  ".join("-" * widths[i] for i in shown))
    return out


def wrapped(notes: list[str], width: int = WIDTH) -> list[str]:
    """The notes under a table, two spaces in, each wrapped at `width` (its further lines four in)."""
    out = []
    for note in notes:
        out += textwrap.wrap(note, width, initial_indent="  ", subsequent_indent="    ", break_long_words=False,
                             break_on_hyphens=False) or [""]
    return out


# A cell holding a figure: `95.8`, `+0.4 (p=0.125)`, `-1.4`, `.828`, `77.8 [T5]`, `n/a`.
FIGURE = re.compile(r"[+-]?\.?\d|n/a$")


@dataclass
class Table:
    """A table: `header`, `rows` of text cells (as wide as the header), and `notes` said under it."""

    header: list[str]
    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    title: str = ""  # a line said above the table

    def text(self, width: int = WIDTH) -> str:
        lines = [self.title] if self.title else []
        return "\n".join(lines + text_table([self.header, *self.rows], width) + wrapped(self.notes, width))

    def __str__(self) -> str:
        return self.text()

    def html(self) -> str:
        """An HTML table (every cell escaped): the title above, the notes under it; columns of
        figures right-aligned, of words left-aligned."""
        figures = [i > 0 and all(not text or FIGURE.match(text) for text in (row[i] for row in self.rows))
                   for i in range(len(self.header))]

        def cell(tag: str, text: str, i: int) -> str:
            return f'<{tag} style="text-align: {"right" if figures[i] else "left"}">{html.escape(text)}</{tag}>'
        parts = [f"<p>{html.escape(self.title)}</p>"] if self.title else []
        parts.append('<table class="nli-baselines">')
        parts.append("<thead><tr>" + "".join(cell("th", text, i) for i, text in enumerate(self.header)) + "</tr></thead>")
        parts.append("<tbody>")
        parts += ["<tr>" + "".join(cell("td", text, i) for i, text in enumerate(row)) + "</tr>" for row in self.rows]
        parts.append("</tbody></table>")
        if self.notes:
            parts.append("<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in self.notes) + "</ul>")
        return "\n".join(parts)

    def _repr_html_(self) -> str:
        return self.html()

    def frame(self) -> pd.DataFrame:
        """The rows as a DataFrame, headed as the table is; a column whose every cell is a number
        (or empty) holds numbers (NaN where empty), the others the cells' text."""
        table = pd.DataFrame(self.rows, columns=self.header)
        for name in table.columns:
            values = table[name]
            numbers = pd.to_numeric(values.where(values != ""), errors="coerce")
            if numbers.notna().sum() == (values != "").sum():
                table[name] = numbers
        return table


def html_blocks(*parts) -> str:
    """Several tables (or lines of text) as one piece of HTML, in order."""
    return "\n".join(part.html() if isinstance(part, Table) else f"<p>{html.escape(str(part))}</p>" for part in parts)
