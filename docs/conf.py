"""Sphinx configuration for the sklearn-eval documentation."""

import os
import sys
import warnings

sys.path.insert(0, os.path.abspath(".."))

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
html_theme_options = {"navigation_with_keys": False}

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": "../examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
}

warnings.filterwarnings(
    "ignore", category=UserWarning, message="Matplotlib is currently"
)
