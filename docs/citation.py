"""The Citing page, read from CITATION.cff at the repository's root when the guide is built: the
file is the one place that says how to cite the suite and the works it reproduces; the page shows
its message, a BibTeX entry for the suite and one per reference, never a copy that could drift.

    ```{citation}
    ```
"""
from __future__ import annotations

import re
from pathlib import Path

import yaml
from docutils import nodes
from docutils.parsers.rst import Directive

CFF = Path(__file__).resolve().parents[1] / "CITATION.cff"
# CFF reference types -> BibTeX entry types
_BIBTEX_TYPES = {"conference-paper": "inproceedings", "article": "article", "software": "software",
                 "book": "book", "report": "techreport", "thesis": "phdthesis"}


def _names(authors: list[dict]) -> list[str]:
    out = []
    for author in authors or ():
        if "family-names" in author:
            out.append(f"{author['family-names']}, {author.get('given-names', '')}".strip(", "))
        else:
            out.append("{" + author["name"] + "}")  # an entity: braced, so BibTeX keeps it whole
    return out


def _key(entry: dict) -> str:
    if entry.get("type") == "software":
        return re.sub(r"[^a-z0-9]", "", entry["title"].lower())
    first = (entry.get("authors") or [{}])[0]
    name = first.get("family-names") or first.get("name", "anon")
    word = next((w for w in re.findall(r"[A-Za-z]+", entry.get("title", "")) if len(w) > 3), "")
    return re.sub(r"[^a-z0-9]", "", f"{name}{entry.get('year', '')}{word}".lower())


def bibtex(entry: dict, kind: str | None = None) -> str:
    """One CFF entry (the file itself, or one of its references) as a BibTeX entry."""
    kind = kind or _BIBTEX_TYPES.get(entry.get("type", ""), "misc")
    fields = [("author", " and ".join(_names(entry.get("authors")))), ("title", "{" + entry["title"] + "}")]
    venue = entry.get("collection-title") or (entry.get("conference") or {}).get("name")
    if venue:
        fields.append(("booktitle", venue))
    for key, bib in (("journal", "journal"), ("volume", "volume"), ("issue", "number"), ("version", "version"),
                     ("year", "year"), ("doi", "doi"), ("url", "url"), ("license", "license")):
        if entry.get(key):
            fields.append((bib, str(entry[key])))
    if entry.get("publisher"):
        fields.append(("publisher", entry["publisher"]["name"]))
    if entry.get("start") and entry.get("end"):
        fields.append(("pages", f"{entry['start']}--{entry['end']}"))
    body = ",\n".join(f"  {name} = {{{value}}}" for name, value in fields)
    return f"@{kind}{{{_key(entry)},\n{body}\n}}"


def reference_text(entry: dict) -> str:
    """A reference in one line: authors (year). Title. Venue."""
    names = [f"{a.get('given-names', '')} {a['family-names']}".strip() if "family-names" in a else a["name"]
             for a in entry.get("authors", ())]
    who = ", ".join(names[:-1]) + (" and " if len(names) > 1 else "") + names[-1]
    venue = entry.get("collection-title") or entry.get("journal") or (entry.get("conference") or {}).get("name", "")
    return f"{who} ({entry['year']}). {entry['title'].strip()}. {venue.strip()}."


def _block(text: str) -> nodes.literal_block:
    block = nodes.literal_block(text, text)
    block["language"] = "bibtex"
    return block


class Citation(Directive):
    has_content = False

    def run(self):
        env = self.state.document.settings.env
        env.note_dependency(str(CFF))  # a change to the file rebuilds the page
        cff = yaml.safe_load(CFF.read_text(encoding="utf-8"))
        out: list[nodes.Node] = [nodes.paragraph(text=" ".join(cff["message"].split())), _block(bibtex(cff, "software"))]
        items = nodes.bullet_list()
        for reference in cff.get("references", ()):
            item = nodes.list_item()
            item += nodes.paragraph(text=reference_text(reference) + (f" {reference['notes']}"
                                                                       if reference.get("notes") else ""))
            item += _block(bibtex(reference))
            items += item
        if len(items):
            out += [nodes.paragraph(text="The works whose baselines, corpora and diagnostics the suite reproduces:"),
                    items]
        return out


def setup(app):
    app.add_directive("citation", Citation)
    return {"parallel_read_safe": True}
