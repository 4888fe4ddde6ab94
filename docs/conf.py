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
    # MathJax 3 shipped with the docs (pip package sphinx-mathjax-offline, in the docs extra): it sets
    # mathjax_path to _static/mathjax/tex-chtml.js and copies MathJax there, so formulas render
    # without network access (Sphinx's default loads MathJax from a CDN).
    "sphinx-mathjax-offline",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
myst_enable_extensions = ["dollarmath", "amsmath"]
myst_heading_anchors = 3
exclude_patterns = ["_build"]
autodoc_mock_imports = ["lightgbm", "matplotlib", "numba", "pyterrier_pisa"]
autodoc_typehints = "description"
napoleon_google_docstring = True
html_theme = "alabaster"
html_theme_options = {"sidebar_width": "250px", "page_width": "1080px"}
# alabaster links _static/custom.css itself: there, long code-formatted titles wrap in the sidebar
html_static_path = ["_static"]
suppress_warnings = ["myst.header"]
