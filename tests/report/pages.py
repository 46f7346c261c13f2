"""Reading the report's HTML in tests: sections, cells, images, error boxes."""

import base64
import html.parser

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class _Sections(html.parser.HTMLParser):
    """Per section: heading, tables, rows, cell texts, images and error boxes."""

    def __init__(self):
        super().__init__()
        self.sections = {}
        self._current = None
        self._in_h2 = False
        self._in_cell = False
        self._error_depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self._current = attrs["id"]
            self.sections[self._current] = {
                "h2": "",
                "tables": 0,
                "images": [],
                "rows": 0,
                "cells": [],
                "errors": [],
                "text": "",
            }
        elif self._current is None:
            return
        elif tag == "h2":
            self._in_h2 = True
        elif tag == "table":
            self.sections[self._current]["tables"] += 1
        elif tag == "tr":
            self.sections[self._current]["rows"] += 1
        elif tag == "td":
            self._in_cell = True
        elif tag == "img":
            self.sections[self._current]["images"].append(attrs.get("src", ""))
        elif tag == "div" and "error-box" in attrs.get("class", ""):
            self._error_depth = 1
            self.sections[self._current]["errors"].append(
                {"part": attrs.get("data-part"), "text": ""}
            )
        elif tag == "div" and self._error_depth:
            self._error_depth += 1

    def handle_endtag(self, tag):
        if tag == "section":
            self._current = None
        elif tag == "h2":
            self._in_h2 = False
        elif tag == "td":
            self._in_cell = False
        elif tag == "div" and self._error_depth:
            self._error_depth -= 1

    def handle_data(self, data):
        if self._current is None:
            return
        self.sections[self._current]["text"] += data
        if self._error_depth:
            self.sections[self._current]["errors"][-1]["text"] += data
        if self._in_h2:
            self.sections[self._current]["h2"] += data
        if self._in_cell:
            self.sections[self._current]["cells"].append(data)


def parse_sections(page):
    parser = _Sections()
    parser.feed(page)
    return parser.sections


def decode_png(src):
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    return base64.b64decode(src[len(prefix) :])
