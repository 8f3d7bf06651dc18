"""How the code is laid out, in figures (docs/ARCHITECTURE.md, "Figures"): each app's share of the
application's code, imports against the apps' direction, and imports inside functions that do
not say why.

    .venv/bin/python benchmarks/architecture.py [ROOT ...]

ROOT: a checkout (default: this one); several are printed side by side (a `git worktree` of an
older commit gives the figures before a change). Code is counted in lines that are neither blank
nor only a comment, of the apps' Python files and config/'s, without migrations and without the
demo data's builder scripts (fixtures/).
"""

from __future__ import annotations

import argparse
import ast
from pathlib import Path

APPS = ["classifiers", "triage", "automation", "kernels_ci", "releases"]


def python_files(root: Path, app: str, *, migrations: bool = False):
    for path in sorted((root / app).rglob("*.py")):
        if "fixtures" in path.parts or (not migrations and "migrations" in path.parts):
            continue
        yield path


def code_lines(path: Path) -> int:
    return sum(
        1
        for line in path.read_text().splitlines()
        if line.strip() and not line.strip().startswith("#")
    )


def imports(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module.partition(".")[0]


def unexplained_function_imports(path: Path) -> int:
    text = path.read_text()
    lines, found = text.splitlines(), set()
    for function in ast.walk(ast.parse(text)):
        if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            for node in ast.walk(function):
                if isinstance(node, ast.Import | ast.ImportFrom) and not explained(
                    lines, node.lineno
                ):
                    found.add(node.lineno)
    return len(found)


def explained(lines: list[str], lineno: int) -> bool:
    """A comment on the import's line, or above the block of imports (blank lines between groups
    included) it belongs to."""
    if "#" in lines[lineno - 1]:
        return True
    above = lineno - 2
    while above >= 0 and (
        not lines[above].strip() or lines[above].strip().startswith(("import ", "from "))
    ):
        above -= 1
    return above >= 0 and lines[above].strip().startswith("#")


def figures(root: Path) -> dict:
    apps = [app for app in APPS if (root / app).is_dir()]
    lines = {app: sum(map(code_lines, python_files(root, app))) for app in [*apps, "config"]}
    back = 0
    for app in apps:
        later = set(apps[apps.index(app) + 1 :])
        for path in python_files(root, app, migrations=True):
            back += sum(1 for package in imports(ast.parse(path.read_text())) if package in later)
    inside = {
        app: sum(map(unexplained_function_imports, python_files(root, app)))
        for app in [*apps, "config"]
    }
    return {"lines": lines, "back_imports": back, "imports_inside_functions": inside}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("roots", nargs="*", type=Path, default=[Path(__file__).parent.parent])
    options = parser.parse_args()
    for root in options.roots:
        found = figures(root)
        total = sum(found["lines"].values())
        print(f"{root}: {total:,} lines of application code")
        for app, count in found["lines"].items():
            print(f"  {app:<12} {count:>6,}  {count / total:6.1%}")
        print(f"  imports against the apps' direction: {found['back_imports']}")
        inside = found["imports_inside_functions"]
        print(f"  imports inside functions without a why: {sum(inside.values())} {inside}")


if __name__ == "__main__":
    main()
