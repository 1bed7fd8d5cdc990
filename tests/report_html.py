"""Read a report's index.html back with the standard library's HTML parser: its tables
(caption, headers, cell texts, the links in cells), its figures (the ``<svg>``
attributes, ``<title>`` and ``<desc>``), headings, and every URL it references."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser


@dataclass
class ParsedTable:
    id: str
    caption: str = ""
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    links: list[list[str | None]] = field(default_factory=list)  # href of a link per cell, or None


@dataclass
class ParsedSvg:
    attrs: dict[str, str]
    title: str = ""
    desc: str = ""


class ReportParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: dict[str, ParsedTable] = {}
        self.svgs: list[ParsedSvg] = []
        self.headings: list[tuple[str, str, str]] = []  # (tag, id, text)
        self.urls: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.ids: list[str] = []
        self.tags: dict[str, int] = {}
        self.lang = ""
        self._table: ParsedTable | None = None
        self._in_caption = False
        self._cell: list[str] | None = None
        self._cell_link: str | None = None
        self._row: list[str] | None = None
        self._row_links: list[str | None] | None = None
        self._header_row = False
        self._svg: ParsedSvg | None = None
        self._svg_text: str | None = None
        self._heading: list | None = None

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if "id" in a:
            self.ids.append(a["id"])
        for key in ("href", "src", "xlink:href", "action", "data", "poster", "srcset"):
            if key in a:
                self.urls.append((tag, key, a[key]))
        if tag == "html":
            self.lang = a.get("lang", "")
        if tag == "table":
            self._table = ParsedTable(a.get("id", ""))
        elif tag == "caption" and self._table is not None:
            self._in_caption = True
        elif tag == "tr" and self._table is not None:
            self._row, self._row_links = [], []
        elif tag in ("td", "th") and self._row is not None:
            self._cell, self._cell_link = [], None
        elif tag == "a" and self._cell is not None:
            self._cell_link = a.get("href")
        elif tag == "svg":
            self._svg = ParsedSvg(a)
        elif tag in ("title", "desc") and self._svg is not None:
            self._svg_text = ""
        elif tag in ("h1", "h2", "h3"):
            self._heading = [tag, a.get("id", ""), ""]

    def handle_endtag(self, tag):
        if tag == "caption":
            self._in_caption = False
        elif tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell).strip())
            self._row_links.append(self._cell_link)
            if tag == "th":
                self._header_row = True
            self._cell = None
        elif tag == "tr" and self._row is not None and self._table is not None:
            if self._header_row:
                self._table.headers = self._row
            else:
                self._table.rows.append(self._row)
                self._table.links.append(self._row_links)
            self._row, self._header_row = None, False
        elif tag == "table" and self._table is not None:
            self.tables[self._table.id] = self._table
            self._table = None
        elif tag in ("title", "desc") and self._svg is not None and self._svg_text is not None:
            setattr(self._svg, tag, self._svg_text)
            self._svg_text = None
        elif tag == "svg" and self._svg is not None:
            self.svgs.append(self._svg)
            self._svg = None
        elif tag in ("h1", "h2", "h3") and self._heading is not None:
            self.headings.append(tuple(self._heading))
            self._heading = None

    def handle_data(self, data):
        if self._in_caption and self._table is not None:
            self._table.caption += data
        if self._cell is not None:
            self._cell.append(data)
        if self._svg_text is not None:
            self._svg_text += data
        if self._heading is not None:
            self._heading[2] += data


def parse(text: str) -> ReportParser:
    parser = ReportParser()
    parser.feed(text)
    parser.close()
    return parser
