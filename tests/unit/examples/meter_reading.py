"""The example catalog component `MeterReading`: its props model, and its template put in the registry.

In the product the model goes in `py_src/sitewalk_shared/contracts/catalog.py` with an entry in `CATALOG`
(and in `ACCEPTS_CHILDREN` if it holds children), and the template in `py_src/sitewalk/ui/templates/`
as `MeterReading.j2` (`sitewalk.ui.render.REGISTRY` names `<type>.j2` for every catalog entry).
`in_catalog()` makes the same three additions for the length of a `with` block, so the example runs
through the real `validate_spec` and `render_spec` without changing the product's catalog.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

from jinja2 import ChoiceLoader, FileSystemLoader
from pydantic import Field

from sitewalk.ui import render
from sitewalk_shared.contracts.catalog import CATALOG, _Props  # _Props: closed (extra="forbid")


class MeterReadingProps(_Props):
    """One reading of a gauge or meter on site, with its unit and whether it is in range. Use it for
    a measured value the inspector read (a pressure, a temperature, a voltage); the status picks the colour."""

    label: str = Field(min_length=1, max_length=60, description="What was measured, e.g. 'Boiler pressure'.")
    value: float = Field(allow_inf_nan=False, description="The reading, a number.")
    unit: Literal["kPa", "bar", "°C", "V", "A"] = Field(description="The unit of the reading (allowlist).")
    status: Literal["normal", "warning", "alarm"] = Field(
        default="normal", description="Whether the reading is in range (design token).")


@contextmanager
def in_catalog() -> Iterator[None]:
    """`MeterReading` in the catalog, the registry and the template search path, for one block."""
    env = render._env
    loader = env.loader
    assert loader is not None
    CATALOG["MeterReading"] = MeterReadingProps
    render.REGISTRY["MeterReading"] = "MeterReading.j2"
    env.loader = ChoiceLoader([loader, FileSystemLoader(str(Path(__file__).parent))])
    try:
        yield
    finally:
        env.loader = loader
        del render.REGISTRY["MeterReading"], CATALOG["MeterReading"]
