"""Every exception class of py_src subclasses `SitewalkError` (sitewalk_shared/errors.py), and keeps the
built-in type it had, so `except SitewalkError` catches any of them and older `except`s still match.

The classes are found by importing every module of py_src in a fresh interpreter (the bridge's browser
modules `js` and `pyodide` are stood in for by empty modules, only so that the bridge imports).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PY_SRC = ROOT / "py_src"

# Prints {"module.Class": [the names of its MRO]} for every exception class a module of py_src defines.
WALK = textwrap.dedent("""
    import importlib, json, sys, types
    from pathlib import Path

    class Browser(types.ModuleType):  # stands in for js / pyodide: any name is a class or a function
        def __getattr__(self, name):
            if name.startswith("__"):
                raise AttributeError(name)
            return type(name, (Exception,), {}) if name[:1].isupper() else (lambda *args, **kwargs: None)

    for name in ("js", "pyodide", "pyodide.ffi"):
        sys.modules[name] = Browser(name)
    root = Path(sys.argv[1])
    sys.path.insert(0, str(root))
    found = {}
    for module in json.loads(sys.argv[2]):
        for obj in vars(importlib.import_module(module)).values():
            if isinstance(obj, type) and issubclass(obj, BaseException) and obj.__module__ == module:
                found[f"{module}.{obj.__qualname__}"] = [cls.__name__ for cls in obj.__mro__]
    print(json.dumps(found))
""")


def modules(root: Path) -> list[str]:
    """Every module under root but `__main__` (running it is a command; it defines no class, checked)."""
    names = []
    for path in sorted(root.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        if path.name == "__main__.py":
            assert not any(isinstance(n, ast.ClassDef) for n in ast.walk(ast.parse(path.read_text()))), path
            continue
        names.append(".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__"))
    return names


def exception_classes(root: Path) -> dict[str, list[str]]:
    done = subprocess.run([sys.executable, "-c", WALK, str(root), json.dumps(modules(root))],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_walk_finds_the_exception_classes_of_a_package_even_behind_a_browser_import(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("class Top(ValueError):\n    pass\n")
    (package / "sub" / "__init__.py").write_text("")
    (package / "sub" / "dom.py").write_text("import js\nfrom pyodide.ffi import JsException\n"
                                             "class Deep(Exception):\n    pass\nclass NotAnError:\n    pass\n")
    (package / "__main__.py").write_text("raise SystemExit('a command: never run by the walk')\n")
    assert exception_classes(tmp_path) == {"pkg.Top": ["Top", "ValueError", "Exception", "BaseException", "object"],
                                           "pkg.sub.dom.Deep": ["Deep", "Exception", "BaseException", "object"]}


def test_every_exception_class_of_py_src_is_a_sitewalk_error():
    found = exception_classes(PY_SRC)
    assert len(found) >= 45  # browser, server and shared: the walk saw them all
    for name in ("sitewalk.base.server_errors.NotFound", "sitewalk.timeline.errors.ReplayWouldBeDeclined",
                 "sitewalk_agent.workorders.db.WorkOrderNotFound", "sitewalk_shared.contracts.questions.InvalidAnswer",
                 "sitewalk_shared.errors.SitewalkError"):
        assert name in found, name
    assert [name for name, mro in found.items() if "SitewalkError" not in mro] == []


def test_each_error_keeps_the_built_in_type_it_had():
    from sitewalk.base.device_errors import StorageError
    from sitewalk.base.server_errors import ServerUnreachable
    from sitewalk.session.refusals import Refused
    from sitewalk.timeline.errors import TimelineError
    from sitewalk_agent.audit.store_lock import AuditLockTimeout
    from sitewalk_shared.errors import SitewalkError

    assert issubclass(Refused, ValueError) and issubclass(TimelineError, ValueError)
    assert issubclass(StorageError, OSError) and issubclass(AuditLockTimeout, RuntimeError)
    unreachable = ServerUnreachable("http://127.0.0.1:1", "refused")
    assert isinstance(unreachable, ConnectionError) and isinstance(unreachable, SitewalkError)
    assert str(unreachable) == "agent server unreachable at http://127.0.0.1:1: refused"
    refused = Refused("stale_revision", "the args changed", interrupt_id="i-1")
    assert (refused.code, refused.interrupt_id, str(refused)) == ("stale_revision", "i-1",
                                                                  "stale_revision: the args changed")
