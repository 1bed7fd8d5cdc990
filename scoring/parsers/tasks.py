"""Make-like task files: Makefile/makefile/GNUmakefile, justfile, Taskfile.yml, invoke's
``tasks.py`` and doit's ``dodo.py`` (METRICS.md §0.1.14), as targets with recipes.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from .python import parse_source

MAKE_NAMES = ("makefile", "gnumakefile")
MAKE_LIKE_NAMES = ("makefile", "gnumakefile", "justfile", "taskfile.yml", "taskfile.yaml", "tasks.py", "dodo.py")

_MAKE_RULE = re.compile(r"^(?P<targets>[A-Za-z0-9_.%/${}()\-][^:=#]*?)\s*::?(?!=)(?P<prereq>[^=#]*)(?:#.*)?$")
_JUST_RULE = re.compile(r"^@?(?P<name>[A-Za-z_][\w-]*)(?:\s+[^:]*)?\s*:(?!=)(?P<deps>.*)$")


@dataclass
class Target:
    name: str
    line: int
    recipe: list[tuple[int, str]] = field(default_factory=list)   # (line, command text)
    # the targets it depends on, in order: Make prerequisites (`install: devready`),
    # just dependencies, Taskfile `deps:`
    prerequisites: list[str] = field(default_factory=list)
    # Make prerequisites written with a variable (`all: $(PROG)`), each expanded through
    # the file's plain assignments (`PROG = bwa`) into its words; one that does not
    # expand to plain words (a function such as `$(patsubst …)`, an undefined variable)
    # is kept as written, `$` and all
    variable_prerequisites: list[str] = field(default_factory=list)
    # the Makefile's plain variable assignments (name -> value as written), shared by its
    # targets: :meth:`expand` reads them
    variables: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    def expand(self, text: str) -> str:
        """``text`` with each ``$(NAME)``/``${NAME}`` of a variable the file assigns plainly
        replaced by its value (recursively, a few levels); the others stay as written."""
        return expand_variables(text, self.variables)


def is_make_like(name: str) -> bool:
    return name.lower() in MAKE_LIKE_NAMES


def parse_task_file(name: str, text: str) -> list[Target]:
    """Targets of the task file called ``name`` (base name decides the dialect)."""
    lower = name.lower()
    if lower in MAKE_NAMES:
        return parse_makefile(text)
    if lower == "justfile":
        return parse_justfile(text)
    if lower in ("taskfile.yml", "taskfile.yaml"):
        return parse_taskfile(text)
    if lower in ("tasks.py", "dodo.py"):
        return parse_python_tasks(text, doit=lower == "dodo.py")
    return []


# `NAME = value`, `NAME := value`, `NAME ?= value`, `NAME += value` (also after
# `override`/`export`), outside recipes
_MAKE_ASSIGNMENT = re.compile(r"^(?:(?:override|export)\s+)*(?P<name>[A-Za-z_][\w.-]*)\s*(?P<op>::?=|:::=|\?=|\+=|=)"
                              r"\s*(?P<value>.*?)\s*$")
_MAKE_REFERENCE = re.compile(r"\$(?:\(([A-Za-z_][\w.-]*)\)|\{([A-Za-z_][\w.-]*)\})")
_EXPANSION_DEPTH = 5


def expand_variables(text: str, variables: dict[str, str]) -> str:
    """``text`` with the references to ``variables`` replaced by their values."""
    for _ in range(_EXPANSION_DEPTH):
        if "$" not in text:
            break
        expanded = _MAKE_REFERENCE.sub(lambda m: variables.get(m.group(1) or m.group(2), m.group(0)), text)
        if expanded == text:
            break
        text = expanded
    return text


def make_variables(lines: list[str]) -> dict[str, str]:
    """The plain assignments of a Makefile (the first `?=`, the last `=`/`:=`, `+=`
    appended), comments removed; recipe lines and conditionals' bodies alike."""
    variables: dict[str, str] = {}
    index = 0
    while index < len(lines):
        raw = lines[index]
        index += 1
        while raw.endswith("\\") and index < len(lines):
            raw = raw[:-1] + " " + lines[index].strip()
            index += 1
        if raw.startswith("\t"):
            continue
        match = _MAKE_ASSIGNMENT.match(raw.split("#", 1)[0].strip())
        if match is None:
            continue
        name, op, value = match.group("name"), match.group("op"), match.group("value")
        if op == "?=":
            variables.setdefault(name, value)
        elif op == "+=":
            variables[name] = f"{variables[name]} {value}".strip() if name in variables else value
        else:
            variables[name] = value
    return variables


def _expanded_words(word: str, variables: dict[str, str]) -> list[str]:
    """The words a prerequisite written with a variable stands for, or ``[word]`` when it
    does not expand to plain words."""
    expanded = expand_variables(word, variables)
    return [word] if "$" in expanded else expanded.split()


def parse_makefile(text: str) -> list[Target]:
    targets: list[Target] = []
    current: list[Target] = []
    lines = text.splitlines()
    variables = make_variables(lines)
    i = 0
    while i < len(lines):
        raw = lines[i]
        number = i + 1
        # Join continuation lines.
        while raw.endswith("\\") and i + 1 < len(lines):
            i += 1
            raw = raw[:-1] + " " + lines[i].strip()
        i += 1
        if raw.startswith("\t"):
            if current:
                command = raw.strip().lstrip("@-+").strip()
                if command:
                    for target in current:
                        target.recipe.append((number, command))
            continue
        if not raw.strip() or raw.lstrip().startswith("#"):
            continue
        match = _MAKE_RULE.match(raw)
        if match and not raw.startswith((" ", "export ", "define ", "ifeq", "ifneq", "ifdef", "ifndef", "include ")):
            names = [t for t in match.group("targets").split() if not t.startswith(".")]
            prereq = match.group("prereq")
            # `install: devready | order-only`: normal and order-only prerequisites alike
            written = prereq.split(";", 1)[0].replace("|", " ").split()
            needed = [p for p in written if not p.startswith("$")]
            through = [w for p in written if p.startswith("$") for w in _expanded_words(p, variables)]
            current = [Target(n, number, prerequisites=list(needed), variable_prerequisites=list(through),
                              variables=variables) for n in names]
            targets.extend(current)
            # A recipe on the rule line after ';'
            if ";" in prereq:
                command = prereq.split(";", 1)[1].strip()
                for target in current:
                    target.recipe.append((number, command))
        else:
            current = []
    return targets


def parse_justfile(text: str) -> list[Target]:
    targets: list[Target] = []
    current: Target | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        if raw[:1] in (" ", "\t"):
            if current and raw.strip() and not raw.strip().startswith("#"):
                current.recipe.append((number, raw.strip().lstrip("@-").strip()))
            continue
        match = _JUST_RULE.match(raw.strip()) if raw.strip() and not raw.startswith(("#", "set ", "export ", "alias ")) else None
        if match and ":=" not in raw:
            # `install: build (test "x")`: a dependency is a name, or a parenthesised call of one
            written = re.sub(r"\"[^\"]*\"|'[^']*'", " ", match.group("deps").split("&&", 1)[0])
            deps = [call or bare for call, bare in re.findall(r"\(\s*([A-Za-z_][\w-]*)[^)]*\)|([A-Za-z_][\w-]*)", written)]
            current = Target(match.group("name"), number, prerequisites=deps)
            targets.append(current)
        else:
            current = None
    return targets


def parse_taskfile(text: str) -> list[Target]:
    import yaml

    from scoring.parsers.yamlfile import safe_load

    try:
        data = safe_load(text)
    except yaml.YAMLError:
        return []
    tasks = data.get("tasks") if isinstance(data, dict) else None
    if not isinstance(tasks, dict):
        return []
    lines = text.splitlines()
    targets = []
    for name, body in tasks.items():
        line = next((n for n, text in enumerate(lines, start=1) if re.match(rf"^\s+{re.escape(str(name))}\s*:", text)), 1)
        target = Target(str(name), line)
        deps = body.get("deps", []) if isinstance(body, dict) else []
        for dep in deps if isinstance(deps, list) else []:
            task = dep if isinstance(dep, str) else dep.get("task") if isinstance(dep, dict) else None
            if isinstance(task, str):
                target.prerequisites.append(task)
        cmds = body.get("cmds", []) if isinstance(body, dict) else body if isinstance(body, list) else []
        for cmd in cmds or []:
            command = cmd if isinstance(cmd, str) else cmd.get("cmd") if isinstance(cmd, dict) else None
            if isinstance(command, str):
                cline = next((n for n, text in enumerate(lines, start=1) if command.strip() and command.strip().splitlines()[0] in text), line)
                target.recipe.append((cline, command.strip()))
        targets.append(target)
    return targets


def parse_python_tasks(text: str, *, doit: bool) -> list[Target]:
    """invoke ``@task`` functions (recipes: ``c.run("…")`` strings) or doit ``task_*``
    functions (recipes: string actions)."""
    try:
        tree = parse_source(text)
    except (SyntaxError, ValueError):
        return []
    targets = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        if doit:
            if not node.name.startswith("task_"):
                continue
            name = node.name[len("task_"):]
        else:
            decorated = any(
                (isinstance(d, ast.Name) and d.id == "task")
                or (isinstance(d, ast.Call) and isinstance(d.func, ast.Name) and d.func.id == "task")
                or (isinstance(d, ast.Attribute) and d.attr == "task")
                for d in node.decorator_list
            )
            if not decorated:
                continue
            name = node.name.replace("_", "-")
        target = Target(name, node.lineno)
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and sub is not _docstring(node):
                if " " in sub.value.strip() or re.match(r"^[\w./-]+$", sub.value.strip()):
                    target.recipe.append((sub.lineno, sub.value.strip()))
        targets.append(target)
    return targets


def _docstring(node: ast.FunctionDef):
    if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
        return node.body[0].value
    return None
