"""The layout a newcomer relies on: the harvester takes from the scorer only what a tree is
(``scoring.trees``), that subpackage stands on its own, the application's modules and the
detectors import one another without cycles, and each detector has a module of its own."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("harvester", "scoring", "exporters", "reproscore", "rubrics")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (at any depth of its code: imports
    inside functions count, they are cycles all the same)."""
    paths = {_module_name(p): p for package in PACKAGES for p in (ROOT / package).rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                for alias in node.names:
                    # `from package import submodule` imports the submodule, not a cycle.
                    submodule = f"{source}.{alias.name}"
                    imported.add(submodule if submodule in paths else source)
        graph[module] = {name for name in imported if name in paths and name != module}
    return graph


def test_the_harvester_imports_nothing_of_scoring_but_its_trees():
    graph = import_graph()
    outside = {
        (module, target)
        for module, targets in graph.items() if module.startswith("harvester")
        for target in targets if target.startswith("scoring") and not target.startswith("scoring.trees")
    }
    assert outside == set()
    assert any(t.startswith("scoring.trees") for m, ts in graph.items() if m.startswith("harvester") for t in ts)


def test_scoring_trees_stands_on_its_own():
    graph = import_graph()
    outside = {
        (module, target)
        for module, targets in graph.items() if module.startswith("scoring.trees")
        for target in targets if not target.startswith("scoring.trees")
    }
    assert outside == set()


def test_the_application_modules_import_one_another_without_cycles():
    graph = import_graph()

    def reachable(start: str) -> set[str]:
        seen, stack = set(), [start]
        while stack:
            for target in graph.get(stack.pop(), ()):
                if target not in seen:
                    seen.add(target)
                    stack.append(target)
        return seen

    cycles = sorted(
        (module, target)
        for module, targets in graph.items() if module.startswith(("reproscore", "scoring.detectors"))
        for target in targets if module in reachable(target)
    )
    assert cycles == []


def test_each_detector_lives_in_a_module_of_its_own_named_by_its_metric_id():
    """``scoring/detectors/<category>/<metric_id>.py`` holds the one ``@detector`` of that
    metric; the category's ``__init__.py`` and ``_common.py`` (helpers several of its
    detectors share) register none."""
    from scoring.detectors import CATEGORY_MODULES
    from scoring.registry import load_detectors

    registry = load_detectors()
    for metric_id, det in registry.items():
        assert det.module == f"{CATEGORY_MODULES[det.category]}.{metric_id}", metric_id
        assert (ROOT / det.module.replace(".", "/")).with_suffix(".py").is_file(), metric_id

    def registrations(path: Path) -> list[str]:
        return [
            decorator.args[0].value
            for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.FunctionDef)
            for decorator in node.decorator_list
            if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "detector"
        ]

    detectors = ROOT / "scoring" / "detectors"
    found = {}
    for path in sorted(detectors.rglob("*.py")):
        registered = registrations(path)
        if path.parent == detectors or path.name.startswith("_"):
            assert registered == [], path
        else:
            assert registered == [path.stem], path
            found[path.stem] = path.parent.name
    assert found == {m: CATEGORY_MODULES[d.category].rpartition(".")[2] for m, d in registry.items()}
