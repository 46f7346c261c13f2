"""Sphinx configuration for the sklearn-eval documentation."""

import linecache
import os
import sys
import warnings

sys.path.insert(0, os.path.abspath(".."))

import pandas

import sklearn_eval

project = "sklearn-eval"
author = "The sklearn-eval developers"
copyright = "2026, The sklearn-eval developers"
version = release = sklearn_eval.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    # MathJax 3 bundled in the package (copied to _static/mathjax): formulas
    # render without internet, where the default would load it from a CDN
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    # scikit-learn's generated metadata-routing setters document themselves
    # with cross-references into scikit-learn's own docs
    "exclude-members": "set_fit_request,set_transform_request,set_score_request,"
    "set_predict_request,set_partial_fit_request,set_predict_proba_request,"
    "get_metadata_routing,set_output,set_params,get_params",
}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py",
                    "auto_examples/*.zip", "auto_examples/*.md5"]

html_theme = "pydata_sphinx_theme"
html_title = "sklearn-eval"
html_static_path = ["_static"]
html_css_files = ["sklearn_eval.css"]
html_show_sourcelink = False
# pages without sub-pages: no empty navigation column beside them
html_sidebars = {"getting_started": [], "design": [], "changelog": []}
html_theme_options = {
    "navigation_with_keys": False,
    # only the in-page contents: a page without sections (a gallery example)
    # then has no right-hand column, and its figures get the width
    "secondary_sidebar_items": ["page-toc"],
}

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    # an example's last expression is shown only when it has an HTML form (a
    # DataFrame); plain reprs such as "<...Display object at 0x...>" or
    # "Text(0.5, 1.0, ...)" are noise on the page
    "capture_repr": ("_repr_html_",),
}

warnings.filterwarnings(
    "ignore", category=UserWarning, message="Matplotlib is currently"
)

# the gallery prints tables whole, at the width of the page (not of a terminal)
pandas.set_option("display.max_columns", 30, "display.width", 110)

_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_format_warning = warnings.formatwarning


def _short_path(filename):
    """A warning's file as a reader's path, never the build machine's."""
    path = os.path.abspath(filename)
    if path.startswith(_ROOT + os.sep):
        return os.path.relpath(path, _ROOT)
    if "site-packages" + os.sep in path:
        return path.split("site-packages" + os.sep, 1)[1]
    return os.path.basename(path)


def _format_warning_short(message, category, filename, lineno, line=None):
    if line is None:  # read the source line while the real path is known
        line = linecache.getline(filename, lineno)
    return _format_warning(message, category, _short_path(filename), lineno, line)


# the gallery prints the warnings an example raises into its page
warnings.formatwarning = _format_warning_short
