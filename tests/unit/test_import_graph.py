"""Static checks of py_src's imports: no cycles anywhere, packages in the one layer order written in
docs/architecture.md (nothing imports sideways or up), and only `sitewalk.bridge` touches the browser.

The checker (import_graph.py) reads the source; it is tried first on tiny synthetic packages, so a
check that stopped seeing cycles or browser imports would fail here rather than pass everywhere.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from import_graph import (
    browser_imports,
    find_cycle,
    import_graph,
    imports_of,
    layer_violations,
    package_graph,
    private_uses,
    read_layers,
)

ROOT = Path(__file__).resolve().parents[2]
PY_SRC = ROOT / "py_src"
PACKAGES = ["sitewalk_shared", "sitewalk", "sitewalk_agent"]
# their subpackages and top-level modules are the layer order's units (sitewalk_agent is one)
SPLIT = frozenset({"sitewalk", "sitewalk_shared"})


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


# --- the checker, on synthetic packages ---------------------------------------------------------


def test_a_cycle_through_a_function_level_relative_import_is_found(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "def f():\n    from .b import g\n    return g\n",
        "pkg/b.py": "from . import a\n",
        "pkg/c.py": "import pkg.a\n",
    })
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.a"] == {"pkg.b"} and graph["pkg.b"] == {"pkg.a"} and graph["pkg.c"] == {"pkg.a"}
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1] and set(cycle) == {"pkg.a", "pkg.b"}


def test_a_longer_cycle_across_subpackages_with_parent_relative_imports_is_found(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/one/__init__.py": "from .x import X\n",
        "pkg/one/x.py": "from ..two.y import Y\nX = 1\n",
        "pkg/two/__init__.py": "",
        "pkg/two/y.py": "import importlib\nY = importlib.import_module('pkg.three')\n",
        "pkg/three.py": "from pkg.one import x\n",
    })
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.one"] == {"pkg.one.x"}
    cycle = find_cycle(graph)
    assert cycle is not None and set(cycle) == {"pkg.one.x", "pkg.three", "pkg.two.y"}


def test_an_acyclic_package_and_type_checking_imports_give_no_cycle(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "from .a import A\n",
        "pkg/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\nA = 1\n",
        "pkg/b.py": "from .a import A\nimport json\n",
    })
    graph = import_graph(tmp_path, ["pkg"])
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": set(), "pkg.b": {"pkg.a"}}
    assert find_cycle(graph) is None


def test_a_circle_only_through_type_checking_imports_is_found_when_type_only_imports_count(tmp_path):
    # the shape the timeline views had: the panel imports the edit view, which names the panel's type
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/panel.py": "from .edit import start\n",
        "pkg/edit.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .panel import Panel\n"
                       "def start(): ...\n",
        "pkg/other.py": "import typing\nif typing.TYPE_CHECKING:\n    from pkg import panel\n",
    })
    assert find_cycle(import_graph(tmp_path, ["pkg"])) is None  # at run time there is none
    graph = import_graph(tmp_path, ["pkg"], type_only=True)
    assert graph["pkg.edit"] == {"pkg.panel"} and graph["pkg.other"] == {"pkg.panel"}
    cycle = find_cycle(graph)
    assert cycle is not None and set(cycle) == {"pkg.panel", "pkg.edit"}
    assert cycle_message(cycle) == f"import cycle: {' -> '.join(cycle)}"


def test_a_relative_import_beyond_the_top_package_is_an_error(tmp_path):
    write(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from ... import nothing\n"})
    with pytest.raises(ImportError, match="beyond the top-level package"):
        imports_of("pkg.a", tmp_path / "pkg" / "a.py", False)


def test_browser_imports_are_found_anywhere_outside_the_allowed_package(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/bridge/__init__.py": "import js\nfrom pyodide.ffi import create_proxy\n",
        "pkg/view.py": "def f():\n    from js import document\n    return document\n",
        "pkg/net.py": "import sys\nif 'x' in sys.modules:\n    import pyodide.http\n",
        "pkg/sneaky.py": "__import__('js')\n",
        "pkg/clean.py": "import json\nfrom .bridge import x\n",
    })
    found = {(imp.module, imp.base) for imp in browser_imports(tmp_path, ["pkg"], allowed="pkg.bridge")}
    assert found == {("pkg.view", "js"), ("pkg.net", "pyodide.http"), ("pkg.sneaky", "js")}


def test_private_names_of_a_package_and_its_js_used_from_outside_it_are_found(tmp_path):
    write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/bridge/__init__.py": "def _or_none(x):\n    return x\n",
        "pkg/bridge/dom.py": "def _node():\n    pass\ndef node():\n    return _node()\n",
        "pkg/bridge/_core.py": "",
        "pkg/app/__init__.py": "from .. import bridge\nfrom ..bridge import dom\n"
                               "bridge._or_none(1)\ndom._node()\ndom.node()\nbridge.__name__\n",
        "pkg/app/other.py": "import pkg.bridge.dom as d\nd._node()\nd.node()\n",
        "pkg/app/third.py": "from pkg.bridge._core import x\nfrom pkg.bridge.dom import _node, node\n",
        "pkg/app/fourth.py": "from .. import bridge\nbridge.dom.js.document.createElement('p')\n",
    })
    assert private_uses(tmp_path, ["pkg"], "pkg.bridge") == [
        ("pkg.app", "pkg.bridge._or_none"), ("pkg.app", "pkg.bridge.dom._node"),
        ("pkg.app.fourth", "pkg.bridge.dom.js"), ("pkg.app.fourth", "pkg.bridge.dom.js.document"),
        ("pkg.app.fourth", "pkg.bridge.dom.js.document.createElement"),
        ("pkg.app.other", "pkg.bridge.dom._node"),
        ("pkg.app.third", "pkg.bridge._core.x"), ("pkg.app.third", "pkg.bridge.dom._node"),
    ]


LAYERED = {
    "pkg/__init__.py": "",
    "pkg/bridge/__init__.py": "from ..base import T\n",
    "pkg/base.py": "T = 1\n",
    "pkg/ui/__init__.py": "from pkg.bridge import x\n",
    "pkg/app/__init__.py": "from ..ui import y\nfrom ..bridge import z\n",
    "other/__init__.py": "from pkg.base import T\n",
}
LAYERS = [["pkg", "pkg.base"], ["pkg.bridge", "other"], ["pkg.ui"], ["pkg.app"]]


def test_packages_that_import_only_downward_keep_the_layer_order(tmp_path):
    graph = package_graph(import_graph(write(tmp_path, LAYERED), ["pkg", "other"]), frozenset({"pkg"}))
    assert graph == {"pkg": set(), "pkg.base": set(), "pkg.bridge": {"pkg.base"}, "pkg.ui": {"pkg.bridge"},
                     "pkg.app": {"pkg.ui", "pkg.bridge"}, "other": {"pkg.base"}}
    assert layer_violations(graph, LAYERS) == []


def test_an_upward_import_from_inside_a_function_breaks_the_layer_order(tmp_path):
    files = dict(LAYERED, **{"pkg/bridge/dom.py": "def f():\n    from ..ui.trusted import H\n    return H\n",
                             "pkg/ui/trusted.py": "H = 1\n"})
    graph = package_graph(import_graph(write(tmp_path, files), ["pkg", "other"]), frozenset({"pkg"}))
    assert layer_violations(graph, LAYERS) == ["pkg.bridge imports pkg.ui, a higher layer"]


def test_a_cycle_between_packages_breaks_the_layer_order_even_without_a_module_cycle(tmp_path):
    # bridge.fetch -> app.errors and app.client -> bridge.fetch: no module cycle, a package one.
    files = dict(LAYERED, **{"pkg/bridge/fetch.py": "from pkg.app.errors import E\n", "pkg/app/errors.py": "E = 1\n",
                             "pkg/app/client.py": "from ..bridge.fetch import F\n"})
    modules = import_graph(write(tmp_path, files), ["pkg", "other"])
    assert find_cycle(modules) is None
    assert layer_violations(package_graph(modules, frozenset({"pkg"})), LAYERS) == [
        "pkg.bridge imports pkg.app, a higher layer"]


def test_peers_importing_each_other_and_packages_missing_from_the_order_are_violations(tmp_path):
    files = dict(LAYERED, **{"other/x.py": "import pkg.bridge\n", "pkg/extra.py": ""})
    graph = package_graph(import_graph(write(tmp_path, files), ["pkg", "other"]), frozenset({"pkg"}))
    assert layer_violations(graph, LAYERS + [["pkg.gone"]]) == [
        "pkg.extra: not in the layer order", "pkg.gone: in the layer order but no such package",
        "other imports pkg.bridge, a peer"]


def test_the_layer_order_is_read_from_the_first_block_under_its_heading():
    text = ("# A\n```text\n1. no\n```\n## Layer order\n\nLowest first.\n\n"
            "```text\n1. a, b\n\n2. c\n```\n```x\n9. z\n```\n")
    assert read_layers(text) == [["a", "b"], ["c"]]


# --- the project --------------------------------------------------------------------------------


def cycle_message(cycle: list[str] | None) -> str:
    return f"import cycle: {' -> '.join(cycle)}" if cycle else "no import cycle"


def test_py_src_has_no_import_cycle():
    graph = import_graph(PY_SRC, PACKAGES)
    assert {"sitewalk.bridge.fetch", "sitewalk_agent.graph", "sitewalk_shared.ui_spec.validate"} <= graph.keys()
    cycle = find_cycle(graph)
    assert cycle is None, cycle_message(cycle)


def test_py_src_has_no_import_cycle_even_through_type_checking_imports():
    """No circle anywhere in py_src, not even one that only names types (no exception is allowed)."""
    graph = import_graph(PY_SRC, PACKAGES, type_only=True)
    assert "sitewalk.timeline" in graph["sitewalk.app.timeline.controls"]  # a type-only import, seen
    cycle = find_cycle(graph)
    assert cycle is None, cycle_message(cycle)


def test_py_src_packages_keep_the_layer_order_of_the_architecture_doc():
    layers = read_layers((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    floor = next(index for index, layer in enumerate(layers) if "sitewalk.base" in layer)
    # Under the browser's floor only the shared models, which the agent stands on too; the bridge above it.
    assert {name for layer in layers[:floor] for name in layer} == {
        "sitewalk_shared", "sitewalk_shared.errors", "sitewalk_shared.contracts", "sitewalk_shared.ui_spec"}
    assert "sitewalk_agent" in layers[floor] and layers[floor + 1] == ["sitewalk.bridge"]
    assert layers[-1] == ["sitewalk.app"]
    graph = package_graph(import_graph(PY_SRC, PACKAGES), SPLIT)
    assert {"sitewalk.bridge", "sitewalk.session", "sitewalk_agent", "sitewalk_shared.contracts"} <= graph.keys()
    assert layer_violations(graph, layers) == []


def test_the_shared_models_import_neither_side_and_the_agent_nothing_of_the_browser():
    graph = package_graph(import_graph(PY_SRC, PACKAGES), SPLIT)
    assert graph["sitewalk_shared.ui_spec"] == {"sitewalk_shared.contracts"}  # the graph sees shared imports
    shared = {unit: targets for unit, targets in graph.items() if unit.startswith("sitewalk_shared")}
    assert all(target.startswith("sitewalk_shared") for targets in shared.values() for target in targets)
    assert graph["sitewalk_agent"] and all(target.startswith("sitewalk_shared") for target in graph["sitewalk_agent"])


def test_of_sitewalk_the_bridge_imports_only_the_base():
    graph = package_graph(import_graph(PY_SRC, PACKAGES), SPLIT)
    assert {target for target in graph["sitewalk.bridge"] if target.startswith("sitewalk")} == {"sitewalk.base"}


def test_only_the_bridge_imports_js_or_pyodide():
    assert browser_imports(PY_SRC, PACKAGES, allowed="sitewalk.bridge") == []


def test_the_bridge_does_import_the_browser_so_the_check_above_sees_it():
    inside = browser_imports(PY_SRC, PACKAGES, allowed="sitewalk.bridge_nothing")
    assert {imp.module for imp in inside} >= {"sitewalk.bridge.dom", "sitewalk.bridge.fetch",
                                              "sitewalk.bridge.storage", "sitewalk.bridge.tasks"}
    assert all(imp.module.startswith("sitewalk.bridge.") for imp in inside)


def test_the_app_alone_hands_the_browser_transport_in():
    graph = import_graph(PY_SRC, PACKAGES)
    choosers = {name for name, targets in graph.items() if "sitewalk.bridge.fetch" in targets}
    assert choosers == {"sitewalk.app"}
    assert not {target for target in graph["sitewalk.bridge.fetch"] if not target.startswith("sitewalk.base")}


def test_no_module_outside_the_bridge_uses_its_private_names_or_reaches_js_through_it():
    assert private_uses(PY_SRC, PACKAGES, "sitewalk.bridge") == []
