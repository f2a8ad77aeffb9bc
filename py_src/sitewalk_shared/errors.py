"""`SitewalkError`: the one base of every exception class Sitewalk defines, browser and server alike.

`except SitewalkError` catches any error of Sitewalk and nothing of Python or of a library. Each error
keeps the built-in type it had beside this base (a refusal of bad input is still a `ValueError`, an
unreachable server a `ConnectionError`), so every `except` written before catches what it did. The
typed codes the wire and the screen carry stay what they were: data where one class carries many
(`code` of a refusal, of a tool failure, of a position error) and a subclass per code where callers
catch them apart (the HTTP statuses, the timeline's refusals). It lives in the lowest layer, so both
sides, and the browser's floor `sitewalk.base`, can import it.
"""

from __future__ import annotations

__all__ = ["SitewalkError"]


class SitewalkError(Exception):
    """Base of every exception class of Sitewalk (py_src); tests/unit/test_error_base.py checks each."""
