"""Sphinx configuration for pyterrier-risk (built in CI with warnings as errors)."""

import os
import sys

sys.path.insert(0, os.path.abspath(".."))

project = "pyterrier-risk"
author = "pyterrier-risk developers"
copyright = "2026, pyterrier-risk developers"  # noqa: A001

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.mathjax",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
autodoc_mock_imports = ["lightgbm", "matplotlib", "numba", "pyterrier_pisa"]
autodoc_typehints = "description"
napoleon_google_docstring = True
html_theme = "alabaster"
suppress_warnings = ["myst.header"]
