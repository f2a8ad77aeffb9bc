"""The import graph of Python packages, read from their source (ast), not by importing them.

Every `import` / `from ... import` counts, wherever it sits (module level, inside a function, under
`if`), relative ones resolved against the importing module; `importlib.import_module("x")` and
`__import__("x")` with a literal name count too. Imports under `if TYPE_CHECKING:` are left out by
default: they never run, so they cannot form a cycle at run time. With `type_only=True` they count too:
two modules that name each other's types still depend on each other (the reader, mypy, a move), and a
circle hidden under TYPE_CHECKING is a circle. For `from p import name`, the edge goes to the module
`p.name` when it exists, else to `p`. Used by test_import_graph.py.
"""

from __future__ import annotations

import ast
import graphlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "BROWSER_MODULES", "Import", "browser_imports", "find_cycle", "import_graph", "imports_of", "layer_violations",
    "modules_under", "package_graph", "private_uses", "read_layers", "unit_of",
]

# Top-level names that exist only in the browser (Pyodide).
BROWSER_MODULES = frozenset({"js", "pyodide", "pyodide_js", "_pyodide", "_pyodide_core"})


@dataclass(frozen=True)
class Import:
    """One import statement: what it names (absolute, dotted) and where it is."""

    module: str  # the importing module
    target: str  # the absolute dotted name imported (`p.name` for `from p import name`)
    base: str  # the module part (`p` for `from p import name`, the name itself for `import x`)
    line: int


def modules_under(root: Path, packages: list[str]) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is_package) for every .py file of these packages under `root`."""
    found: dict[str, tuple[Path, bool]] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts.pop()
            found[".".join(parts)] = (path, is_package)
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _runtime_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Every node below `node`, except the bodies of `if TYPE_CHECKING:` (their `else` runs)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.If) and _is_type_checking(child.test):
            for other in child.orelse:
                yield other
                yield from _runtime_nodes(other)
            continue
        yield child
        yield from _runtime_nodes(child)


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    """The absolute name of a relative import `from .{level}name import ...` made in `module`."""
    if level == 0:
        return name or ""
    parts = module.split(".") if is_package else module.split(".")[:-1]
    if level - 1 > len(parts) - 1:
        raise ImportError(f"{module}: relative import beyond the top-level package")
    parts = parts[: len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _literal_import_call(node: ast.AST) -> str | None:
    """The name in `importlib.import_module("x")` / `import_module("x")` / `__import__("x")`."""
    if not isinstance(node, ast.Call) or not node.args:
        return None
    func = node.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
    first = node.args[0]
    if called in ("import_module", "__import__") and isinstance(first, ast.Constant) and isinstance(first.value, str):
        return first.value
    return None


def imports_of(module: str, path: Path, is_package: bool, type_only: bool = False) -> list[Import]:
    """Every import the module's source makes at run time, and with `type_only` those under
    `if TYPE_CHECKING:` too (see the module docstring)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: list[Import] = []
    for node in (ast.walk(tree) if type_only else _runtime_nodes(tree)):
        if isinstance(node, ast.Import):
            found.extend(Import(module, alias.name, alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, is_package, node.level, node.module)
            found.extend(Import(module, f"{base}.{alias.name}" if alias.name != "*" else base, base, node.lineno)
                         for alias in node.names)
        elif (name := _literal_import_call(node)) is not None:
            found.append(Import(module, name, name, getattr(node, "lineno", 0)))
    return found


def _known(name: str, modules: dict[str, tuple[Path, bool]]) -> str | None:
    """The longest prefix of the dotted name that is one of the modules, if any."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def import_graph(root: Path, packages: list[str], type_only: bool = False) -> dict[str, set[str]]:
    """Module -> the modules of these packages it imports (`type_only`: counting TYPE_CHECKING imports)."""
    modules = modules_under(root, packages)
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, (path, is_package) in modules.items():
        for imp in imports_of(name, path, is_package, type_only):
            target = _known(imp.target, modules) or _known(imp.base, modules)
            if target is not None and target != name:
                graph[name].add(target)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle (`[a, b, ..., a]`), or None when the graph is acyclic (stdlib graphlib)."""
    try:
        graphlib.TopologicalSorter(graph).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return None


def unit_of(module: str, split: frozenset[str]) -> str:
    """The package a module counts for in the layer order: `sitewalk.bridge.dom` -> `sitewalk.bridge`
    for a package in `split` (its subpackages and top-level modules are the units), else the top-level
    package itself (`sitewalk_agent.audit.context` -> `sitewalk_agent`)."""
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] in split else parts[0]


def package_graph(graph: dict[str, set[str]], split: frozenset[str]) -> dict[str, set[str]]:
    """The module graph folded onto units (see `unit_of`): unit -> the other units it imports."""
    folded: dict[str, set[str]] = {}
    for module, targets in graph.items():
        unit = unit_of(module, split)
        folded.setdefault(unit, set()).update(unit_of(t, split) for t in targets)
        folded[unit].discard(unit)
    return folded


def read_layers(markdown: str, heading: str = "## Layer order") -> list[list[str]]:
    """The layer order written under `heading`: the first fenced block after it, a layer a line,
    lowest first, as `N. name, name` (the number is for the reader)."""
    after = markdown.split(heading, 1)[1]
    block = after.split("```", 2)[1]
    lines = [line.strip() for line in block.splitlines()[1:] if line.strip()]
    return [[name.strip() for name in line.split(".", 1)[1].split(",") if name.strip()] for line in lines]


def layer_violations(graph: dict[str, set[str]], layers: list[list[str]]) -> list[str]:
    """Every import between units that the order forbids: a unit imports only units of lower layers
    (not its peers, not above), so no cycle between units can exist. Units missing from the order,
    and names in the order that are no unit, are violations too."""
    level = {name: index for index, layer in enumerate(layers) for name in layer}
    found = [f"{unit}: not in the layer order" for unit in sorted(graph) if unit not in level]
    found += [f"{name}: in the layer order but no such package" for name in sorted(level) if name not in graph]
    for unit in sorted(graph):
        for target in sorted(graph[unit]):
            if unit in level and target in level and level[target] >= level[unit]:
                where = "a peer" if level[target] == level[unit] else "a higher layer"
                found.append(f"{unit} imports {target}, {where}")
    return found


def browser_imports(root: Path, packages: list[str], allowed: str) -> list[Import]:
    """Imports of a browser-only module (`BROWSER_MODULES`) made outside the package `allowed`."""
    found: list[Import] = []
    for name, (path, is_package) in modules_under(root, packages).items():
        if name == allowed or name.startswith(allowed + "."):
            continue
        found.extend(imp for imp in imports_of(name, path, is_package)
                     if imp.base.split(".")[0] in BROWSER_MODULES)
    return found


def _private_part(dotted: str, package: str) -> bool:
    """Whether a name inside `package` passes through a private part (`p.bridge.dom._x`) or the
    browser module the package imported (`p.bridge.js.document`)."""
    if not (dotted == package or dotted.startswith(package + ".")):
        return False
    rest = dotted[len(package):].split(".")
    return any((part.startswith("_") and not part.startswith("__")) or part in BROWSER_MODULES for part in rest)


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


def private_uses(root: Path, packages: list[str], package: str) -> list[tuple[str, str]]:
    """(module, name) for each private name of `package` (a `_name` in it, or the `js` it imported)
    used from outside it: imported (`from p.bridge import _x`, `from p.bridge._mod import y`) or
    reached as an attribute of a name bound to it (`bridge._x`, `dom._y`, `bridge.js.document`)."""
    found: list[tuple[str, str]] = []
    for name, (path, is_package) in modules_under(root, packages).items():
        if name == package or name.startswith(package + "."):
            continue
        bound: dict[str, str] = {}  # local name -> the dotted name it stands for
        for imp in imports_of(name, path, is_package):
            if _private_part(imp.target, package):
                found.append((name, imp.target))
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(name, is_package, node.level, node.module)
                bound.update({alias.asname or alias.name: f"{base}.{alias.name}" for alias in node.names})
            elif isinstance(node, ast.Import):
                bound.update({alias.asname or alias.name.split(".")[0]: alias.asname and alias.name
                              or alias.name.split(".")[0] for alias in node.names})
        for node in ast.walk(tree):
            dotted = _dotted(node) if isinstance(node, ast.Attribute) else None
            if dotted is None:
                continue
            head, _, tail = dotted.partition(".")
            full = f"{bound.get(head, head)}.{tail}"
            if _private_part(full, package):
                found.append((name, full))
    return sorted(set(found))
