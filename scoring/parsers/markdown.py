"""Structure of prose documents (README, DATA.md, INSTALL): headings, code, prose, links.

Markdown is parsed with markdown-it-py (CommonMark), so headings inside code fences,
``# comments`` in code blocks and ``(#anchor)`` links are never mistaken for headings.
reStructuredText gets a small structural reader (section titles, literal blocks,
``code-block`` directives); plain text is read as Markdown. All line numbers are
1-based lines of the source document.

A line of prose whose text starts with a shell prompt (``$ `` or ``% ``), once list and
blockquote markers are set aside, is a command line wherever it stands: in a list item,
a blockquote or a plain-text README (METRICS.md §0.2.10). Those lines are
``Document.prompt_lines``; the lines of code blocks never are.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field, replace
from functools import cached_property

from markdown_it import MarkdownIt

URL_RE = re.compile(r"""(?:https?|ftp)://[^\s<>"'`)\]]+""")
_WORD_RE = re.compile(r"[^\W_](?:[\w'’.-]*\w)?", re.UNICODE)
_MD_IMAGE_RE = re.compile(r"!\[[^\]\n]*\]\(\s*<?([^)\s>]+)")
_HTML_HEADING_RE = re.compile(r"<h([1-6])\b[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)
_TAG_RE = re.compile(r"<[^>]+>")
_INFO_LANGUAGE_RE = re.compile(r"\s*\{?\s*\.?([A-Za-z][\w+#-]*)")


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(frozen=True)
class CodeBlock:
    text: str
    line_start: int      # first line of the code itself
    line_end: int
    info: str = ""       # fence info string / directive language
    kind: str = "fence"  # fence | indented | rst
    # the lines the block occupies, its fences included (0: those of the code itself)
    block_start: int = 0
    block_end: int = 0

    @property
    def span(self) -> tuple[int, int]:
        """(first, last) line of the block as written: a fence's opening and closing lines
        are in it."""
        return (self.block_start or self.line_start, self.block_end or self.line_end)

    def lines(self) -> list[tuple[int, str]]:
        return [(self.line_start + i, line) for i, line in enumerate(self.text.splitlines())]

    @property
    def language(self) -> str:
        """The block's language as its info string names it, lower-case (```` ```{r
        eval=FALSE} ```` → ``r``, ``.. code-block:: MATLAB`` → ``matlab``); "" when it
        names none."""
        match = _INFO_LANGUAGE_RE.match(self.info)
        return match.group(1).lower() if match else ""


@dataclass(frozen=True)
class InlineCode:
    text: str
    line: int


@dataclass(frozen=True)
class PromptLine:
    """A prose line that is a console command: ``text`` keeps its prompt (``$ make``)."""

    text: str
    line: int


@dataclass(frozen=True)
class Paragraph:
    """Rendered prose (inline code and URLs removed) of one block, with its first line."""

    text: str
    line_start: int
    line_end: int


@dataclass(frozen=True)
class Link:
    url: str
    line: int
    text: str = ""
    is_image: bool = False
    in_badge: bool = False   # an image link, or a link whose content is an image


@dataclass
class Section:
    heading: Heading
    line_start: int
    line_end: int
    paragraphs: list[Paragraph]
    code_blocks: list[CodeBlock]

    @property
    def words(self) -> int:
        return sum(count_words(p.text) for p in self.paragraphs)


@dataclass
class Document:
    """The parsed structure of one prose document."""

    path: str
    line_count: int
    headings: list[Heading] = field(default_factory=list)
    code_blocks: list[CodeBlock] = field(default_factory=list)
    inline_code: list[InlineCode] = field(default_factory=list)
    paragraphs: list[Paragraph] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    raw_lines: list[str] = field(default_factory=list)
    prompt_lines: list[PromptLine] = field(default_factory=list)
    # lines of code blocks (fences and directives included) and HTML blocks: never prose
    verbatim_lines: list[int] = field(default_factory=list, repr=False)
    # Markdown images (``![x](figures/chart.png)``) inside an HTML comment block: no link a
    # reader follows, but the file is still the document's figure (S4, §0.2.18)
    commented_images: list[Link] = field(default_factory=list, repr=False)

    @cached_property
    def sections(self) -> list[Section]:
        """Each heading's section runs to the next heading of the same or higher level."""
        result = []
        for i, heading in enumerate(self.headings):
            end = self.line_count
            for later in self.headings[i + 1:]:
                if later.level <= heading.level:
                    end = later.line - 1
                    break
            result.append(
                Section(
                    heading=heading,
                    line_start=heading.line,
                    line_end=end,
                    paragraphs=[p for p in self.paragraphs if heading.line < p.line_start <= end],
                    code_blocks=[c for c in self.code_blocks if heading.line < c.line_start <= end],
                )
            )
        return result

    def section_of(self, line: int) -> Section | None:
        """The innermost section containing ``line``."""
        best = None
        for section in self.sections:
            if section.line_start <= line <= section.line_end:
                if best is None or section.heading.level >= best.heading.level:
                    best = section
        return best

    @property
    def prose_words(self) -> int:
        return sum(count_words(p.text) for p in self.paragraphs)

    def code_lines(self) -> list[tuple[int, str, CodeBlock | None]]:
        """Every line of every code block, and every inline code span, with its line."""
        lines: list[tuple[int, str, CodeBlock | None]] = []
        for block in self.code_blocks:
            lines.extend((n, text, block) for n, text in block.lines())
        lines.extend((c.line, c.text, None) for c in self.inline_code)
        return lines

    def command_lines(self) -> list[tuple[int, str, CodeBlock | None]]:
        """:meth:`code_lines`, then the prompt lines of the prose (§0.2.10)."""
        return self.code_lines() + [(p.line, p.text, None) for p in self.prompt_lines if "`" not in p.text]


def count_words(text: str) -> int:
    return len(_WORD_RE.findall(URL_RE.sub(" ", text)))


def parse_document(text: str, path: str) -> Document:
    lower = path.lower()
    if lower.endswith((".rst", ".rest")):
        doc = parse_rst(text, path)
    else:
        doc = parse_markdown(_plain_text_headings(text) if _is_plain_text(lower) else text, path)
    doc.prompt_lines = _prompt_lines(doc)
    return doc


def _is_plain_text(lower_path: str) -> bool:
    """A plain-text document: ``.txt`` or no suffix (``README``, ``INSTALL``)."""
    name = lower_path.rsplit("/", 1)[-1]
    return name.endswith(".txt") or "." not in name


# A plain-text document marks its sections by a line in capitals ("DATA FORMATTING
# STANDARDS", "INSTALLATION:") standing on its own after a blank line: a short noun
# phrase of at least one word of two letters, no sentence punctuation inside.
_CAPITALS_HEADING = re.compile(r"[A-Z][A-Z0-9 &/()'\-]*[A-Z0-9)]:?")


def _plain_text_headings(text: str) -> str:
    """``text`` with the capital-letter heading lines of a plain-text document written as
    Markdown headings (``## DATA FORMATTING STANDARDS``), so its sections are sections;
    line numbers are unchanged."""
    lines = text.split("\n")
    changed = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if not stripped or (index and lines[index - 1].strip()):
            continue
        words = stripped.rstrip(":").split()
        if 1 <= len(words) <= 8 and _CAPITALS_HEADING.fullmatch(stripped) \
                and any(sum(c.isalpha() for c in word) >= 2 for word in words):
            lines[index] = "## " + stripped.rstrip(":")
            changed = True
    return "\n".join(lines) if changed else text


# list item and blockquote markers in front of a line's text: `- `, `* `, `+ `, `1. `,
# `2) `, `> ` (nested: `> - `)
_LINE_MARKERS = re.compile(r"^(?:\s*(?:>|[-*+](?=\s)|\d{1,9}[.)](?=\s)))+\s*")
_SHELL_PROMPT = re.compile(r"^[$%]\s+\S")


def _prompt_lines(doc: Document) -> list[PromptLine]:
    """The prose lines that start with a shell prompt (§0.2.10), outside code blocks and
    HTML blocks."""
    covered: set[int] = set(doc.verbatim_lines)
    found: list[PromptLine] = []
    for number, raw in enumerate(doc.raw_lines, start=1):
        if number in covered or "$" not in raw and "%" not in raw:
            continue
        text = _LINE_MARKERS.sub("", raw, count=1).strip()
        if _SHELL_PROMPT.match(text):
            found.append(PromptLine(text, number))
    return found


_MD = MarkdownIt("commonmark")


def parse_markdown(text: str, path: str) -> Document:
    lines = text.splitlines()
    doc = Document(path=path, line_count=len(lines), raw_lines=lines)
    tokens = _MD.parse(text)
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok.type == "heading_open" and tok.map:
            inline = tokens[i + 1]
            doc.headings.append(Heading(int(tok.tag[1]), _inline_plain(inline).strip(), tok.map[0] + 1))
            _collect_inline(doc, inline, tok.map[0] + 1, prose=False)
            i += 3
            continue
        if tok.type in ("fence", "code_block", "html_block") and tok.map:
            doc.verbatim_lines.extend(range(tok.map[0] + 1, tok.map[1] + 1))
        if tok.type in ("fence", "code_block") and tok.map:
            first = tok.map[0] + (2 if tok.type == "fence" else 1)
            body = tok.content.rstrip("\n")
            doc.code_blocks.append(
                CodeBlock(
                    text=body,
                    line_start=first,
                    line_end=first + max(body.count("\n"), 0),
                    info=(tok.info or "").strip(),
                    kind="fence" if tok.type == "fence" else "indented",
                    block_start=tok.map[0] + 1,
                    block_end=max(tok.map[1], tok.map[0] + 1),
                )
            )
        elif tok.type == "inline" and tok.map:
            _collect_inline(doc, tok, tok.map[0] + 1, prose=True, line_end=tok.map[1])
        elif tok.type == "html_block" and tok.map:
            _collect_html(doc, tok.content, tok.map[0] + 1)
            if tok.content.lstrip().startswith("<!--"):
                doc.commented_images += [
                    Link(m.group(1), tok.map[0] + 1 + tok.content.count("\n", 0, m.start()), is_image=True)
                    for m in _MD_IMAGE_RE.finditer(tok.content)]
        i += 1
    return doc


def _inline_plain(inline) -> str:
    parts = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _collect_inline(doc: Document, inline, line: int, *, prose: bool, line_end: int | None = None) -> None:
    parts: list[str] = []
    current_line = line
    # (index in doc.links, href) of each open link: its target is written after its text,
    # on the line where the link closes
    link_stack: list[tuple[int, str]] = []
    children = inline.children or []
    for idx, child in enumerate(children):
        if child.type in ("softbreak", "hardbreak"):
            current_line += 1
            parts.append(" ")
        elif child.type == "text":
            parts.append(child.content)
            for match in URL_RE.finditer(child.content):
                doc.links.append(Link(match.group(0), current_line))
        elif child.type == "code_inline":
            doc.inline_code.append(InlineCode(child.content, current_line))
        elif child.type == "link_open":
            href = child.attrGet("href") or ""
            has_image = any(c.type == "image" for c in children[idx + 1:_link_close(children, idx)])
            doc.links.append(Link(href, current_line, is_image=False, in_badge=has_image))
            link_stack.append((len(doc.links) - 1, href))
        elif child.type == "link_close" and link_stack:
            index, _ = link_stack.pop()
            if doc.links[index].line != current_line:
                doc.links[index] = replace(doc.links[index], line=current_line)
        elif child.type == "image":
            # An image's alt text may break lines; its source follows the alt text.
            current_line += sum(1 for c in child.children or [] if c.type in ("softbreak", "hardbreak"))
            src = child.attrGet("src") or ""
            doc.links.append(Link(src, current_line, text=child.content, is_image=True, in_badge=True))
        elif child.type == "html_inline":
            _collect_html(doc, child.content, current_line)
    if prose:
        text = URL_RE.sub(" ", "".join(parts)).strip()
        if text:
            doc.paragraphs.append(Paragraph(text, line, line_end or current_line))


def _link_close(children, start: int) -> int:
    depth = 0
    for j in range(start, len(children)):
        if children[j].type == "link_open":
            depth += 1
        elif children[j].type == "link_close":
            depth -= 1
            if depth == 0:
                return j
    return len(children)


def _collect_html(doc: Document, html: str, line: int) -> None:
    for match in _HTML_HEADING_RE.finditer(html):
        offset = html.count("\n", 0, match.start())
        text = " ".join(_TAG_RE.sub(" ", match.group(2)).split())
        doc.headings.append(Heading(int(match.group(1)), text, line + offset))
    for match in re.finditer(r"""(?:href|src)\s*=\s*["']([^"']+)["']""", html, re.IGNORECASE):
        offset = html.count("\n", 0, match.start())
        is_img = html[max(0, match.start() - 200):match.start()].lower().rfind("<img") > html[
            max(0, match.start() - 200):match.start()
        ].lower().rfind(">")
        doc.links.append(Link(match.group(1), line + offset, is_image=is_img, in_badge=is_img))
    doc.headings.sort(key=lambda h: h.line)


# --- reStructuredText -------------------------------------------------------------

_RST_ADORNMENT = re.compile(r"^([=\-`:'\"~^_*+#<>.])\1{2,}\s*$")
_RST_DIRECTIVE_CODE = re.compile(r"^\s*\.\.\s+(?:code-block|code|sourcecode)::\s*(\S*)", re.IGNORECASE)
_RST_LINK = re.compile(r"`[^`<]*<([^>]+)>`_")


def parse_rst(text: str, path: str) -> Document:
    lines = text.splitlines()
    doc = Document(path=path, line_count=len(lines), raw_lines=lines)
    levels: list[str] = []
    para: list[str] = []
    para_start = 0
    i = 0

    def flush(end: int) -> None:
        nonlocal para
        if para:
            joined = " ".join(s.strip() for s in para)
            # where each of the paragraph's lines starts in the joined text: a link or an
            # inline literal is reported at the line it is written on
            starts, offset = [], 0
            for piece in para:
                starts.append(offset)
                offset += len(piece.strip()) + 1

            def line_at(position: int) -> int:
                return para_start + bisect_right(starts, position) - 1

            for match in URL_RE.finditer(joined):
                doc.links.append(Link(match.group(0), line_at(match.start())))
            for match in _RST_LINK.finditer(joined):
                doc.links.append(Link(match.group(1), line_at(match.start(1))))
            for match in re.finditer(r"``([^`]+)``", joined):
                doc.inline_code.append(InlineCode(match.group(1), line_at(match.start(1))))
            prose = URL_RE.sub(" ", re.sub(r"``[^`]+``", " ", joined)).strip()
            if prose:
                doc.paragraphs.append(Paragraph(prose, para_start, end))
        para = []

    while i < len(lines):
        line = lines[i]
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        # Title with underline (optionally overline).
        if line.strip() and not line.startswith(" ") and _RST_ADORNMENT.match(nxt) and len(nxt.rstrip()) >= len(line.rstrip()):
            flush(i)
            char = nxt.strip()[0]
            over = i > 0 and _RST_ADORNMENT.match(lines[i - 1] or "") is not None
            key = char + ("o" if over else "")
            if key not in levels:
                levels.append(key)
            doc.headings.append(Heading(levels.index(key) + 1, line.strip(), i + 1))
            i += 2
            continue
        if _RST_ADORNMENT.match(line) and i + 2 < len(lines) and _RST_ADORNMENT.match(lines[i + 2]):
            i += 1  # overline: the title line is handled next iteration
            continue
        directive = _RST_DIRECTIVE_CODE.match(line)
        ends_literal = line.rstrip().endswith("::") and not line.strip().startswith("..")
        if directive or ends_literal:
            if ends_literal:
                para.append(line.rstrip()[:-1])
            flush(i + 1)
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].lstrip().startswith(":")) and directive:
                j += 1
            while j < len(lines) and not lines[j].strip():
                j += 1
            start = j
            indent = None
            body: list[str] = []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith((" ", "\t"))):
                if lines[j].strip():
                    cur = len(lines[j]) - len(lines[j].lstrip())
                    indent = cur if indent is None else min(indent, cur)
                body.append(lines[j])
                j += 1
            if body and indent is not None:
                while body and not body[-1].strip():
                    body.pop()
                dedented = "\n".join(b[indent:] for b in body)
                doc.code_blocks.append(
                    CodeBlock(dedented, start + 1, start + len(body), info=directive.group(1) if directive else "", kind="rst")
                )
                doc.verbatim_lines.extend(range(i + 1, start + len(body) + 1))
            i = j
            continue
        if not line.strip():
            flush(i)
        else:
            if not para:
                para_start = i + 1
            para.append(line)
        i += 1
    flush(len(lines))
    return doc
