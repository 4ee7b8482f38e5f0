"""Sphinx configuration: the API reference from gblas' docstrings (numpydoc style, read by
napoleon) and the guides in docs/*.md (MyST).  Build with ``make docs``; warnings are
errors there (``sphinx-build -W --keep-going``)."""

from __future__ import annotations

import importlib.util
import os
import sys

from docutils import nodes
from docutils.parsers.rst import Directive, directives

sys.path.insert(0, os.path.abspath(".."))

project = "gblas"
author = "the gblas authors"
copyright = "gblas authors, BSD-3-Clause"

import gblas  # noqa: E402

release = version = gblas.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"

# numpydoc-style docstrings only
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
# type fields are parsed ("int, optional", "{'pull', 'push'}", "default 0"), so only
# the class names in them become references; "dtype" is NumPy's, not an attribute here
napoleon_preprocess_types = True
napoleon_type_aliases = {"dtype": "numpy.dtype", "ndarray": "numpy.ndarray"}

autodoc_default_options = {"members": True}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autosummary_generate = False

# The optional dependencies that a documented module imports at import time: mocked only
# where they are not installed, so the pages build with the docs extra alone.
autodoc_mock_imports = [
    name for name in ("dask", "distributed", "cloudpickle", "networkx", "cupy", "cupyx",
                      "matplotlib", "hypothesis")
    if importlib.util.find_spec(name) is None
]

# Every cross-reference must resolve (with -W, a broken one fails the build), except
# py:class targets outside gblas: numpydoc type fields are free text ("int, optional",
# "{'pull', 'push'}", "array_like", "scipy.sparse matrix") and name third-party classes
# that have no inventory here; True, False and None in them have no target either.
nitpicky = True
nitpick_ignore_regex = [("py:class", r"(?!gblas\.).*"), ("py:obj", r"True|False|None")]

# MyST: headings get anchors so the guides' "#section" links resolve
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"gblas {release}"
html_static_path: list[str] = []


class BuiltinOperators(Directive):
    """``.. gblas-operators:: semirings|monoids|binary|unary`` — a table of the built-in
    operators of that kind, read from gblas' own tables (so the page never goes stale)."""

    required_arguments = 1
    option_spec = {"columns": directives.positive_int}

    def run(self):
        from gblas.semirings import builtin

        kind = self.arguments[0]
        tables = {"semirings": builtin.SEMIRINGS, "monoids": builtin.MONOIDS,
                  "binary": builtin.BINARY, "unary": builtin.UNARY}
        names = sorted(tables[kind])
        ncol = self.options.get("columns", 6)
        rows = [names[i:i + ncol] for i in range(0, len(names), ncol)]
        table = nodes.table()
        group = nodes.tgroup(cols=ncol)
        table += group
        for _ in range(ncol):
            group += nodes.colspec(colwidth=1)
        body = nodes.tbody()
        group += body
        for row in rows:
            tr = nodes.row()
            for i in range(ncol):
                entry = nodes.entry()
                if i < len(row):
                    entry += nodes.paragraph("", "", nodes.literal(text=row[i]))
                tr += entry
            body += tr
        intro = nodes.paragraph(text=f"{len(names)} built-in {kind}:")
        return [intro, table]


def setup(app):
    app.add_directive("gblas-operators", BuiltinOperators)
