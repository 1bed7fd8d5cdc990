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


def parse_makefile(text: str) -> list[Target]:
    targets: list[Target] = []
    current: list[Target] = []
    lines = text.splitlines()
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
            needed = [p for p in prereq.split(";", 1)[0].replace("|", " ").split() if not p.startswith("$")]
            current = [Target(n, number, prerequisites=list(needed)) for n in names]
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
