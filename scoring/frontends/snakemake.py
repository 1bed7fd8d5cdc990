"""Snakemake frontend: ``Snakefile``, ``*.smk``.

No tree-sitter grammar for Snakemake is on PyPI. A Snakefile is Python with rule blocks,
so the file is read with Python's own tokenizer, and each Snakemake construct is
rewritten, on its own lines, into a Python expression that parses:

    rule align:                     if __smk_rule__("rule", "align"):
        input: "a.fq", ref="r.fa"       __smk__("input", "a.fq", ref="r.fa")
        conda: "envs/bwa.yaml"          __smk__("conda", "envs/bwa.yaml")
        run:                            if __smk_run__():
            shell("...")                    shell("...")

Every line stays where it was, so the rewritten module is parsed once by ``ast`` and
walked once: Python facts come from the Python parts (``run:`` bodies included), and
each ``__smk__`` call is a ``DirectiveFact`` scoped by its rule. When the rewritten
module does not parse, the directives found by the tokenizer are still reported (with
their source text as value) and ``parse_error`` says where.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import warnings

from scoring.facts import (
    AssignmentFact,
    CallFact,
    CliArgFact,
    CommentFact,
    DefinitionFact,
    DirectiveFact,
    Expr,
    FileFacts,
    FileIOFact,
    HandlerFact,
    ImportFact,
    RandomFact,
    StringFact,
    UrlFact,
    literal_or_expr,
)
from scoring.frontends._common import (
    URL_PATTERN,
    blank_line_numbers,
    count_lines,
    frontend_version,
    redact_bound,
    redact_facts,
    syntax_error_at,
)
from scoring.frontends._credentials import Credentials, with_credentials

LANGUAGE = "snakemake"
VERSION = "1.0.5"   # 1.0.1: facts redacted (_common.redact_facts); 1.0.2: FileFacts.blank_lines (D4); 1.0.3: FileFacts.credentials (C3); a rule's keyword value named like a credential is masked in its DirectiveFact; 1.0.4: handlers as the Python frontend writes them (C4): "..." caught by a bare except, the end line, "empty" swallows and the excerpt of a handler whose body does nothing; 1.0.5: reads of the config dictionary (config["x"], config.get("x")) as CliArgFact kind "config" (S6)

RULE_KEYWORDS = {"rule", "checkpoint"}
HANDLER_BLOCKS = {"onstart", "onsuccess", "onerror"}
GLOBAL_DIRECTIVES = {
    "configfile", "include", "workdir", "localrules", "ruleorder", "wildcard_constraints", "envvars",
    "container", "containerized", "singularity", "conda", "pepfile", "pepschema", "report",
    "scattergather", "inputflags", "outputflags", "storage", "resource_scopes", "module", "pathvars",
}
RULE_DIRECTIVES = {
    "input", "output", "params", "threads", "resources", "priority", "version", "log", "message",
    "benchmark", "conda", "container", "singularity", "containerized", "envmodules",
    "wildcard_constraints", "shadow", "group", "cache", "handover", "default_target", "localrule",
    "retries", "name", "wrapper", "script", "notebook", "shell", "cwl", "template_engine", "pathvars",
}
MODULE_DIRECTIVES = {"snakefile", "config", "skip_validation", "meta_wrapper", "replace_prefix", "prefix"}
PYTHON_BODIES = {"run"}

RANDOM_DRAWS = {"random.random", "random.randint", "random.choice", "random.shuffle", "random.sample",
                "random.uniform", "random.gauss", "numpy.random.rand", "numpy.random.randn",
                "numpy.random.randint", "numpy.random.choice", "numpy.random.shuffle",
                "numpy.random.permutation", "numpy.random.normal", "numpy.random.uniform"}
SEEDS = {"random.seed": "random", "numpy.random.seed": "numpy.random", "torch.manual_seed": "torch"}
ENGINES = {"numpy.random.default_rng", "numpy.random.RandomState", "random.Random"}
READS = {"pandas.read_csv", "pandas.read_table", "pandas.read_excel", "pandas.read_parquet",
         "json.load", "yaml.safe_load", "numpy.load", "numpy.loadtxt", "numpy.genfromtxt"}
LOGGING = {"print", "logging.warning", "logging.error", "logging.exception", "logging.info",
           "logger.warning", "logger.error", "logger.exception", "logger.info", "warnings.warn"}


def extract(data: bytes, path: str) -> FileFacts:
    text = data.decode("utf-8", "replace")
    rewritten = _Rewriter(text)
    rewritten.run()
    facts = _Facts(rewritten)
    module: ast.Module | None = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = ast.parse(rewritten.source())
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        facts.parse_error = syntax_error_at(getattr(exc, "lineno", None) or 1)
        facts.fallback_directives()
    else:
        facts.walk(module)
    if rewritten.error_line is not None and facts.parse_error is None:
        facts.parse_error = syntax_error_at(rewritten.error_line)
    # the rewritten module keeps every line where it was: its bindings (a rule's
    # ``params: password="…"`` is a keyword argument there) are the Snakefile's
    credentials = Credentials()
    credentials.python(text, module if facts.parse_error is None else None)
    return with_credentials(facts.finish(data, text), credentials)


class _Rewriter:
    """Tokenizes the Snakefile once and rewrites its constructs in place."""

    def __init__(self, text: str) -> None:
        self.lines = text.split("\n")
        self.edits: list[tuple[int, int, int, int, str]] = []   # (row, col, end_row, end_col, text) 1-based rows
        self.comments: list[tuple[int, str]] = []
        self.constructs: list[tuple[str, str, int, str]] = []   # (kind, scope, line, raw value)
        self.rules: list[tuple[str, str, int]] = []             # (name, keyword, line)
        self.error_line: int | None = None

    def tokens(self) -> list[tokenize.TokenInfo]:
        collected: list[tokenize.TokenInfo] = []
        reader = io.StringIO("\n".join(self.lines)).readline
        try:
            for token in tokenize.generate_tokens(reader):
                collected.append(token)
        except (tokenize.TokenError, IndentationError, SyntaxError) as exc:
            line = exc.args[1][0] if isinstance(exc, tokenize.TokenError) and len(exc.args) > 1 \
                else getattr(exc, "lineno", None)
            self.error_line = line if isinstance(line, int) else (collected[-1].start[0] if collected else 1)
        return collected

    @staticmethod
    def logical_lines(tokens):
        current: list[tokenize.TokenInfo] = []
        for token in tokens:
            if token.type == tokenize.COMMENT or token.type in (tokenize.NL, tokenize.INDENT, tokenize.DEDENT,
                                                                tokenize.ENCODING):
                continue
            if token.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if current:
                    yield current
                current = []
                continue
            current.append(token)
        if current:
            yield current

    def run(self) -> None:
        tokens = self.tokens()
        self.comments = [(t.start[0], t.string) for t in tokens if t.type == tokenize.COMMENT]
        lines = list(self.logical_lines(tokens))
        # open scopes: (column of the header, kind, name); kind in rule, module, python
        scopes: list[tuple[int, str, str]] = []
        open_value: tuple[int, str, str, list] | None = None       # (column, kind, scope, tokens)
        for logical in lines:
            first = logical[0]
            column = first.start[1]
            if open_value is not None and column > open_value[0]:
                open_value[3].extend(logical)
                continue
            if open_value is not None:
                self.close_value(open_value)
                open_value = None
            while scopes and column <= scopes[-1][0]:
                scopes.pop()
            if scopes and scopes[-1][1] == "python":
                continue
            scope_kind = scopes[-1][1] if scopes else ""
            scope_name = scopes[-1][2] if scopes else ""
            word = first.string if first.type == tokenize.NAME else ""
            second = logical[1] if len(logical) > 1 else None
            if word in RULE_KEYWORDS and scope_kind not in ("rule", "module") and second is not None and (
                    second.string == ":" or (second.type == tokenize.NAME and len(logical) > 2
                                             and logical[2].string == ":")):
                name = second.string if second.type == tokenize.NAME else ""
                colon = logical[1] if second.string == ":" else logical[2]
                self.replace(first.start, colon.end, f'if __smk_rule__("{word}", "{name}"):')
                self.rules.append((name, word, first.start[0]))
                scopes.append((column, "rule", name))
                continue
            if word == "module" and second is not None and second.type == tokenize.NAME and len(logical) > 2 \
                    and logical[2].string == ":" and scope_kind == "":
                self.replace(first.start, logical[2].end, f'if __smk_module__("{second.string}"):')
                scopes.append((column, "module", second.string))
                continue
            if word == "use" and second is not None and second.string == "rule":
                raw = " ".join(t.string for t in logical)
                target = re.search(r"\bas\s+(\S+)", raw)
                name = target.group(1).rstrip(":") if target else ""
                if logical[-1].string == ":":
                    self.replace(first.start, logical[-1].end, f"if __smk_use__({raw[:-1].strip()!r}):")
                    scopes.append((column, "rule", name))
                else:
                    self.replace(first.start, logical[-1].end, f"__smk_use__({raw!r})")
                self.rules.append((name, "use rule", first.start[0]))
                continue
            if word and second is not None and second.string == ":":
                if scope_kind == "rule" and word in PYTHON_BODIES or scope_kind == "" and word in HANDLER_BLOCKS:
                    self.replace(first.start, second.end, f'if __smk_run__("{word}"):')
                    scopes.append((column, "python", scope_name))
                    continue
                allowed = RULE_DIRECTIVES if scope_kind == "rule" else MODULE_DIRECTIVES \
                    if scope_kind == "module" else GLOBAL_DIRECTIVES
                if word in allowed:
                    self.replace(first.start, second.end, f'__smk__("{word}", ')
                    open_value = (column, word, scope_name, logical[2:])
                    continue
        if open_value is not None:
            self.close_value(open_value)

    def close_value(self, value) -> None:
        column, kind, scope, tokens = value
        if tokens:
            last = tokens[-1]
            self.replace(last.end, last.end, ")")
            start, end = tokens[0].start, tokens[-1].end
            raw = self.span(start, end)
            line = tokens[0].start[0]
        else:
            # a directive with no value: close the call on its own line
            raw, line = "", 0
            for edit in reversed(self.edits):
                if edit[4].startswith(f'__smk__("{kind}"'):
                    self.replace((edit[2], edit[3]), (edit[2], edit[3]), ")")
                    line = edit[0]
                    break
        self.constructs.append((kind, scope, line, raw))

    def span(self, start, end) -> str:
        (row, col), (end_row, end_col) = start, end
        if row == end_row:
            return self.lines[row - 1][col:end_col]
        parts = [self.lines[row - 1][col:]] + self.lines[row:end_row - 1] + [self.lines[end_row - 1][:end_col]]
        return "\n".join(parts)

    def replace(self, start, end, text: str) -> None:
        self.edits.append((start[0], start[1], end[0], end[1], text))

    def source(self) -> str:
        lines = list(self.lines)
        # right to left within a line so earlier columns stay valid
        for row, col, end_row, end_col, text in sorted(self.edits, key=lambda e: (e[0], e[1]), reverse=True):
            if row == end_row:
                line = lines[row - 1]
                lines[row - 1] = line[:col] + text + line[end_col:]
        return "\n".join(lines)


def _dotted(node) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def _value(node):
    if isinstance(node, ast.Constant):
        return literal_or_expr(node.value, ast.unparse(node))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, int | float) and not isinstance(node.operand.value, bool):
        return literal_or_expr(-node.operand.value, ast.unparse(node))
    return Expr(ast.unparse(node)[:80])


class _Facts:
    def __init__(self, rewritten: _Rewriter) -> None:
        self.rewritten = rewritten
        self.aliases: dict[str, str] = {}
        self.imports: list[ImportFact] = []
        self.calls: list[CallFact] = []
        self.strings: list[StringFact] = []
        self.definitions: list[DefinitionFact] = []
        self.assignments: list[AssignmentFact] = []
        self.handlers: list[HandlerFact] = []
        self.randoms: list[RandomFact] = []
        self.cli_args: list[CliArgFact] = []
        self.file_io: list[FileIOFact] = []
        self.directives: list[DirectiveFact] = []
        self.parse_error: str | None = None
        self.docstring_nodes: set[int] = set()
        self.rule_docstrings: set[int] = set()     # lines of rules whose body starts with a string

    # ------------------------------------------------------------ ast walk
    def walk(self, module: ast.Module) -> None:
        """One iterative pre-order pass over the module, with each node's ancestors."""
        stack: list[tuple[ast.AST, tuple]] = [(module, ())]
        while stack:
            node, ancestors = stack.pop()
            self.visit(node, ancestors)
            children = list(ast.iter_child_nodes(node))
            inner = ancestors + (node,)
            stack.extend((child, inner) for child in reversed(children))

    def visit(self, node, ancestors) -> None:
        parent = ancestors[-1] if ancestors else None
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                self.docstring_nodes.add(id(body[0].value))
        if isinstance(node, ast.If) and self.is_marker(node.test, "__smk_rule__"):
            self.rule_docstring(node)
        if isinstance(node, ast.Import | ast.ImportFrom):
            self.import_(node, ancestors)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if not any(isinstance(a, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) for a in ancestors):
                self.definitions.append(DefinitionFact(
                    node.name, "class" if isinstance(node, ast.ClassDef) else "function", node.lineno,
                    not node.name.startswith("_"), ast.get_docstring(node) is not None,
                    tuple(ast.unparse(d) for d in node.decorator_list)))
        elif isinstance(node, ast.Call):
            self.call(node, ancestors)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            self.string(node, parent)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                for target in targets:
                    name = _dotted(target) or (ast.unparse(target) if isinstance(target, ast.Subscript) else "")
                    if name:
                        self.assignments.append(AssignmentFact(name, node.lineno, value.value))
        elif isinstance(node, ast.ExceptHandler):
            self.handler(node)
        elif isinstance(node, ast.Attribute) and _dotted(node) == "sys.argv" and isinstance(node.ctx, ast.Load):
            self.cli_args.append(CliArgFact(node.lineno, "sys.argv"))
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "config" \
                and isinstance(node.ctx, ast.Load):
            # a read of the workflow's config dictionary, filled by configfile: or --configfile
            key = node.slice.value if isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str) else ""
            self.cli_args.append(CliArgFact(node.lineno, "config", key))

    @staticmethod
    def is_marker(node, name: str) -> bool:
        return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name

    def rule_docstring(self, node: ast.If) -> None:
        first = node.body[0] if node.body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            self.docstring_nodes.add(id(first.value))
            self.rule_docstrings.add(node.lineno)

    def resolve(self, written: str) -> str:
        head, _, rest = written.partition(".")
        if head in self.aliases:
            return self.aliases[head] + ("." + rest if rest else "")
        return written

    @staticmethod
    def guard(node, ancestors) -> str:
        guard = "none"
        for ancestor in ancestors:
            if isinstance(ancestor, ast.Try):
                return "try"
            if isinstance(ancestor, ast.If):
                test = ast.unparse(ancestor.test)
                if "TYPE_CHECKING" in test:
                    return "type_checking"
                guard = "conditional"
        return guard

    def import_(self, node, ancestors) -> None:
        guard = self.guard(node, ancestors)
        if isinstance(node, ast.Import):
            for alias in node.names:
                self.aliases[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else \
                    alias.name.split(".")[0]
                self.imports.append(ImportFact(alias.name, node.lineno, guard, "import"))
        else:
            module = "." * node.level + (node.module or "")
            for alias in node.names:
                self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}" if module else alias.name
            self.imports.append(ImportFact(module, node.lineno, guard, "from"))

    def string(self, node, parent) -> None:
        docstring = id(node) in self.docstring_nodes
        if self.is_marker(parent, "__smk__") and parent.args and parent.args[0] is node:
            return   # the directive's own name, put there by the rewriting
        if self.is_marker(parent, "__smk_rule__") or self.is_marker(parent, "__smk_use__") \
                or self.is_marker(parent, "__smk_run__") or self.is_marker(parent, "__smk_module__"):
            return
        binding = ""
        if isinstance(parent, ast.keyword):
            binding = parent.arg or ""
        elif isinstance(parent, ast.Assign | ast.AnnAssign):
            target = parent.targets[0] if isinstance(parent, ast.Assign) else parent.target
            binding = _dotted(target) or ast.unparse(target)
        elif isinstance(parent, ast.Dict):
            for key, value in zip(parent.keys, parent.values, strict=True):
                if value is node and isinstance(key, ast.Constant):
                    binding = str(key.value)
        end = getattr(node, "end_lineno", node.lineno) or node.lineno
        self.strings.append(StringFact(node.value, node.lineno, end, binding, docstring))

    def handler(self, node: ast.ExceptHandler) -> None:
        # as the Python frontend writes them: "..." for a bare except (C4 reads both alike)
        caught = "..." if node.type is None else ast.unparse(node.type)
        action = "other"
        statements = node.body
        end = getattr(statements[-1], "end_lineno", None) or statements[-1].lineno
        if all(isinstance(s, (ast.Pass, ast.Continue)) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in statements):
            # the body does nothing (only pass, ..., strings, continue): it swallows the error
            lines = self.rewritten.lines
            excerpt = " ".join(line.strip() for line in lines[node.lineno - 1: min(end, node.lineno + 2)])
            swallowing = (end, "empty", excerpt)
        else:
            swallowing = (0, "", "")
        if all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
               for s in statements):
            action = "pass"
        # the body's own statements decide, so the handler is not walked a second time
        elif any(isinstance(s, ast.Raise) for s in statements):
            action = "reraise"
        elif any(isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
                 and self.resolve(_dotted(s.value.func)) in LOGGING for s in statements):
            action = "log"
        elif isinstance(statements[-1], ast.Return):
            action = "return"
        elif isinstance(statements[-1], ast.Continue):
            action = "continue"
        self.handlers.append(HandlerFact(node.lineno, caught, action, None, *swallowing))

    def call(self, node: ast.Call, ancestors) -> None:
        written = _dotted(node.func)
        if written == "__smk__":
            self.directive(node, ancestors)
            return
        if written.startswith("__smk_"):
            return
        name = self.resolve(written) if written else ""
        line = node.lineno
        args = tuple(_value(a) for a in node.args)
        kwargs = tuple((k.arg or "**", _value(k.value)) for k in node.keywords)
        self.calls.append(CallFact(name, written, line, args, kwargs))
        if name in SEEDS:
            seed = node.args[0] if node.args else None
            source = "none" if seed is None else "time" if "time" in ast.unparse(seed) else \
                "literal" if isinstance(seed, ast.Constant) else "argument"
            self.randoms.append(RandomFact(line, name, SEEDS[name], "seed", source in ("literal", "argument"), source))
        elif name in ENGINES:
            seed = node.args[0] if node.args else None
            source = "entropy" if seed is None else "literal" if isinstance(seed, ast.Constant) else "argument"
            self.randoms.append(RandomFact(line, name, name, "engine", source in ("literal", "argument"), source))
        elif name in RANDOM_DRAWS:
            self.randoms.append(RandomFact(line, name, name.rsplit(".", 1)[0], "draw"))
        if written == "config.get":
            key = args[0] if args and isinstance(args[0], str) else ""
            self.cli_args.append(CliArgFact(line, "config", key))
        if name in ("argparse.ArgumentParser",):
            self.cli_args.append(CliArgFact(line, "argparse"))
        if name == "open" and node.args:
            path = args[0] if isinstance(args[0], str) else ""
            mode_value = args[1] if len(args) > 1 else dict(kwargs).get("mode", "r")
            mode = "unknown" if not isinstance(mode_value, str) else "readwrite" if "+" in mode_value \
                else "write" if mode_value[:1] in "wax" else "read"
            self.file_io.append(FileIOFact(line, mode, path, name))
        elif name in READS or (written.endswith((".to_csv", ".to_parquet", ".savefig")) and node.args):
            path = args[0] if args and isinstance(args[0], str) else ""
            self.file_io.append(FileIOFact(line, "read" if name in READS else "write", path, name))

    def directive(self, node: ast.Call, ancestors) -> None:
        kind = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else ""
        scope = ""
        for ancestor in reversed(ancestors):
            if isinstance(ancestor, ast.If) and isinstance(ancestor.test, ast.Call) and \
                    isinstance(ancestor.test.func, ast.Name) and ancestor.test.func.id in (
                        "__smk_rule__", "__smk_use__", "__smk_module__"):
                test = ancestor.test
                if test.func.id == "__smk_rule__":
                    scope = test.args[1].value
                elif test.func.id == "__smk_module__":
                    scope = test.args[0].value
                else:
                    match = re.search(r"\bas\s+(\S+)", test.args[0].value)
                    scope = match.group(1) if match else ""
                break
        values = [("", v) for v in node.args[1:]] + [(k.arg or "", k.value) for k in node.keywords]
        literals = [(name, v) for name, v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
        if literals:
            for name, value in literals:
                # a value named like a credential (params: password="…") is masked as bound to that name
                text = redact_bound(name, value.value) if name else value.value
                self.directives.append(DirectiveFact(kind, text, value.lineno, scope))
        else:
            text = ", ".join(ast.unparse(v) for v in node.args[1:]) if node.args[1:] else ""
            text = ", ".join(filter(None, [text] + [f"{k.arg}={ast.unparse(k.value)}" if k.arg else
                                                    f"**{ast.unparse(k.value)}" for k in node.keywords]))
            self.directives.append(DirectiveFact(kind, text, node.lineno, scope))
        if kind == "include":
            for _, value in literals:
                self.imports.append(ImportFact(value.value, value.lineno, "none", "include"))

    def fallback_directives(self) -> None:
        for kind, scope, line, raw in self.rewritten.constructs:
            self.directives.append(DirectiveFact(kind, raw.strip(), line, scope))

    # ------------------------------------------------------------ result
    def finish(self, data: bytes, text: str) -> FileFacts:
        comments = self.comment_blocks()
        comment_ends = {c.line_end for c in comments}
        rules = [DefinitionFact(name, "rule" if keyword == "rule" else keyword, line, True,
                                line in self.rule_docstrings or (line - 1) in comment_ends)
                 for name, keyword, line in self.rewritten.rules]
        urls = [UrlFact(match.group(0).rstrip(".,;:"), s.line_start + offset)
                for s in self.strings if not s.docstring
                for offset, chunk in enumerate(s.value.split("\n")) for match in URL_PATTERN.finditer(chunk)]
        return redact_facts(FileFacts(
            language=LANGUAGE, frontend="snakemake", frontend_version=frontend_version(VERSION),
            imports=tuple(self.imports), calls=tuple(self.calls), strings=tuple(self.strings),
            comments=tuple(comments), definitions=tuple(sorted(rules + self.definitions, key=lambda d: d.line)),
            assignments=tuple(self.assignments), handlers=tuple(self.handlers), randoms=tuple(self.randoms),
            cli_args=tuple(self.cli_args), file_io=tuple(self.file_io), urls=tuple(urls),
            directives=tuple(self.directives), parse_error=self.parse_error, lines=count_lines(data),
            blank_lines=blank_line_numbers(text),
        ))

    def comment_blocks(self) -> list[CommentFact]:
        blocks: list[CommentFact] = []
        lines = self.rewritten.lines
        for line, body in self.rewritten.comments:
            whole_line = lines[line - 1].lstrip().startswith("#")
            if blocks and whole_line and blocks[-1].line_end == line - 1 and \
                    lines[line - 2].lstrip().startswith("#"):
                previous = blocks[-1]
                blocks[-1] = CommentFact(previous.line_start, line, previous.text + "\n" + body, False)
            else:
                blocks.append(CommentFact(line, line, body, False))
        return blocks
