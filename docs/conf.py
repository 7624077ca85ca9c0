"""Sphinx configuration of the user guide: Markdown pages (MyST), the Python API's docstrings
(autodoc), the examples gallery (sphinx-gallery: examples/*.py, run at every build, their output
and plots shown), the lab notebook (myst-nb: docs/lab.ipynb, run at every build) and the figures
read from records (records.py). Built by `python -m sphinx -W -n -b html docs docs/_build/html`;
every warning, a broken cross-reference among them, fails the build (and tests/test_docs.py).

The quick build of the default test run runs no example and no notebook:
`-D plot_gallery=0 -D nb_execution_mode=off` (the pages are still built and checked)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # docstrings.py

from nli_baselines._version import __version__  # noqa: E402

project = "nli-baselines"
author = "the nli-baselines developers"
release = version = __version__
# myst_nb is myst-parser (the Markdown pages) plus notebooks (the lab).
extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx_gallery.gen_gallery", "docstrings", "records", "citation"]
exclude_patterns = ["_build", "*.csv", "*.json", "*.svg", "records", "auto_examples/*.ipynb",
                    "auto_examples/*.py", "auto_examples/*.zip", "auto_examples/*.md5", "auto_examples/*.json"]
# myst-nb's parser loses track of heading levels after an eval-rst block of autodoc (api.md's "###" under
# "##" reads as under "#"): the pages' heading structure is checked by reading them, not by this warning.
suppress_warnings = ["myst.header"]
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
html_static_path = ["_static"]
html_css_files = ["guide.css"]  # wide tables scroll inside the page (tests/test_docs.py checks it at 1280 px)
html_show_copyright = False  # no owner or year to show: the footer said "(c). |"
html_theme_options = {"page_width": "1180px", "sidebar_width": "220px"}

# The lab: run at every build (it has no stored outputs), from docs/, with time for its longest cell.
nb_execution_mode = "auto"
nb_execution_timeout = 900
nb_execution_raise_on_error = True  # a cell that fails fails the build
nb_merge_streams = True

# The examples gallery: examples/*.py are run in order, every figure they leave open is shown,
# and a block's last value is shown as HTML where it has a _repr_html_ (else as its repr).
sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",        # run every example
    "capture_repr": ("_repr_html_", "__repr__"),
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_signature": False,
    "abort_on_example_error": True,      # an example that fails fails the build
    "within_subsection_order": "FileNameSortKey",
    "min_reported_time": 1,
    "write_computation_times": True,
}
