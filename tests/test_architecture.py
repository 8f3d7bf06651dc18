"""The layout docs/ARCHITECTURE.md describes, checked from the source: dependencies between the
apps point one way, and an import inside a function says why it is there."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings

from benchmarks.architecture import explained

ROOT = Path(settings.BASE_DIR)
# Each app imports only the apps before it (config is the project: settings, URLs, wiring).
LAYERS = ["classifiers", "triage", "automation", "kernels_ci", "releases"]


def modules(app: str, *, migrations: bool = True):
    for path in sorted((ROOT / app).rglob("*.py")):
        if "fixtures" in path.parts or (not migrations and "migrations" in path.parts):
            continue
        yield path, ast.parse(path.read_text(), filename=str(path))


def imported(tree: ast.AST):
    """(line, top-level package) of every import in a module, also inside functions."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name.partition(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module.partition(".")[0]


def back_imports(app: str) -> list[str]:
    later = set(LAYERS[LAYERS.index(app) + 1 :])
    return [
        f"{path.relative_to(ROOT)}:{line} imports {package}"
        for path, tree in modules(app)
        for line, package in imported(tree)
        if package in later
    ]


def imports_inside_functions(app: str) -> list[str]:
    """Imports inside a function without a comment on the line or the line above saying why."""
    found = []
    for path, tree in modules(app, migrations=False):
        lines = path.read_text().splitlines()
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom):
                    continue
                if not explained(lines, node.lineno):
                    line = lines[node.lineno - 1].strip()
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {line}")
    return sorted(set(found))


@pytest.mark.parametrize("app", LAYERS)
def test_an_app_never_imports_the_apps_after_it(app):
    assert back_imports(app) == []


def test_the_check_finds_a_back_import(tmp_path, monkeypatch):
    (tmp_path / "triage").mkdir()
    (tmp_path / "triage" / "leaky.py").write_text(
        "def panel():\n    from automation.outbox import services\n"
    )
    monkeypatch.setattr("tests.test_architecture.ROOT", tmp_path)
    assert back_imports("triage") == ["triage/leaky.py:2 imports automation"]


@pytest.mark.parametrize("app", [*LAYERS, "config"])
def test_an_import_inside_a_function_says_why(app):
    assert imports_inside_functions(app) == []
