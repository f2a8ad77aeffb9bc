"""The import closure's reading of a source (sitewalk_build/import_closure.py runs inside Pyodide, but its
AST pass is plain Python): what it counts as imported decides what the boot archives carry."""

from __future__ import annotations

import ast

from sitewalk_build.import_closure import _codecs_named, _imported_names

SOURCE = '''
import typing
from typing import TYPE_CHECKING
import json
if TYPE_CHECKING:
    from .networks import AnyUrl
    import email
else:
    import decimal
if typing.TYPE_CHECKING:
    import zoneinfo
    "x".encode("cp1252")

def later():
    from ._internal import _fields
    return b"".decode("latin-1")
'''


def test_imports_under_type_checking_are_not_counted_and_the_rest_is():
    found = _imported_names(ast.parse(SOURCE), "pydantic")
    assert {"typing", "json", "decimal", "pydantic._internal", "pydantic._internal._fields"} <= found
    assert not {"pydantic.networks", "pydantic.networks.AnyUrl", "email", "zoneinfo"} & found


def test_codecs_under_type_checking_are_not_counted():
    assert _codecs_named(ast.parse(SOURCE)) == {"latin-1"}
