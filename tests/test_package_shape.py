"""The package's shape, as docs/architecture.md promises it: no module past ~500 lines, and no
circle of imports between its modules, imports inside functions included (a lazy import is
still a dependency: it only moves the moment it is paid).

The imports are read from the source with :mod:`ast`, not by importing anything.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "workbench"
#: the most lines one module may have (docs/architecture.md: "a module stays under 500 lines")
MAX_LINES = 500


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Dotted module name -> file, for every .py of the package (a package is its __init__)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The package's modules that ``name`` imports anywhere in its file: ``from .x import y`` names
    the submodule ``x.y`` where there is one, else ``x`` itself."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            base = base[:len(base) - node.level + 1] if node.level else []
            stem = ".".join(base + ([node.module] if node.module else []))
            targets = [f"{stem}.{a.name}" if f"{stem}.{a.name}" in modules else stem for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in modules:   # "workbench.ui.query.parse" -> "workbench.ui.query"
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def circles(modules: dict[str, Path]) -> list[list[str]]:
    """The groups of modules that import each other in a loop (strongly connected, more than one)."""
    graph = {name: _imports(name, path, modules) for name, path in modules.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:   # Tarjan's algorithm; the package is a few hundred modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for v in graph:
        if v not in index:
            visit(v)
    return out


def test_no_module_is_longer_than_the_limit():
    long = {str(p.relative_to(PACKAGE.parent)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}, f"split these along their seams (at most {MAX_LINES} lines each): {long}"


def test_no_circle_of_imports_between_the_packages_modules():
    assert circles(_modules()) == []


@pytest.mark.parametrize("files, circle", [
    # a lazy import inside a function closes the loop as well as one at the top
    ({"a.py": "from .b import run\n", "b.py": "def run():\n    from .a import x\n"}, ["pkg.a", "pkg.b"]),
    ({"a.py": "from . import b\n", "b.py": "import pkg.c\n", "c.py": "from .a import y\n"}, ["pkg.a", "pkg.b", "pkg.c"]),
    ({"sub/__init__.py": "from .d import z\n", "sub/d.py": "from ..a import q\n", "a.py": "from .sub import z\n"},
     ["pkg.a", "pkg.sub", "pkg.sub.d"]),
])
def test_the_circle_finder_sees_a_circle(tmp_path, files, circle):
    root = tmp_path / "pkg"
    for name, text in {"__init__.py": "", **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert circles(_modules(root)) == [circle]
    # and no circle once the loop is cut
    first = next(iter(files))
    (root / first).write_text("")
    assert circles(_modules(root)) == []
