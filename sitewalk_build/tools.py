"""The programs the build runs besides Python (node and npm), found on PATH or named in one line.

The build downloads the Pyodide core with ``npm pack`` and runs Pyodide under ``node`` (the app's stdlib
imports, the bytecode). ``./sw serve``, ``./sw build``, ``./sw test`` and ``./sw bench`` install Debian's
nodejs and npm when they are missing; someone running build.py directly on a machine without them gets a
MissingToolError naming the program and how to install it, not a FileNotFoundError's traceback.
"""

from __future__ import annotations

import shutil

from sitewalk_build.errors import BuildError

INSTALL_HINT = "./sw build installs Debian's nodejs and npm, or: apt-get install nodejs npm"


class MissingToolError(BuildError):
    """A program the build runs (node, npm) is not on PATH."""

    def __init__(self, program: str, purpose: str) -> None:
        super().__init__(f"{program} not found on PATH: the build needs it {purpose} ({INSTALL_HINT})")
        self.program = program


def require(program: str, purpose: str) -> str:
    """The path of ``program`` on PATH; MissingToolError saying ``purpose`` when there is none."""
    found = shutil.which(program)
    if not found:
        raise MissingToolError(program, purpose)
    return found
