"""Sphinx configuration of the user guide: Markdown pages (MyST) and the Python API's docstrings
(autodoc). Built by `python -m sphinx -W -n -b html docs docs/_build/html`; every warning, a
broken cross-reference among them, fails the build (and tests/test_docs.py)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # docstrings.py

from nli_baselines._version import __version__  # noqa: E402

project = "nli-baselines"
author = "the nli-baselines developers"
release = version = __version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "docstrings"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "lab.ipynb", "*.csv", "*.json", "*.svg"]
myst_heading_anchors = 3  # `[text](page.md#a-heading)` links resolve, and a wrong anchor warns
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
# Types from other projects (numpy, scipy, scikit-learn, the standard library) have no pages
# here, and no intersphinx inventory is fetched (the build needs no network): their names are
# not references that can break. References to this suite's own names still must resolve.
nitpick_ignore_regex = [
    (r"py:.*", r"(np|numpy|sp|scipy|sklearn|pd|pandas|Path|pathlib|typing|collections|datetime|os|PathLike)(\..*)?"),
    (r"py:.*", r"(Any|Callable|Iterable|Iterator|Mapping|Sequence|Optional|Union|ClassVar|Protocol)"),
    (r"py:.*", r"(int|float|str|bool|bytes|dict|list|tuple|set|object|None|type|slice)"),
    (r"py:class", r"tuple\[.*"),  # `tuple[str, ...]` reaches the resolver cut at its comma
]
html_theme = "alabaster"
html_title = f"nli-baselines {release}"
html_static_path: list[str] = []
