"""The one kind of HTML the app writes into the page, and the gate its Trusted Types policy keeps.

The site's CSP enforces Trusted Types (`require-trusted-types-for 'script'`, one policy name):
the browser refuses a plain string in innerHTML. The app's one policy (`bridge/dom.py`) lets
through only `TemplateHtml`, which only `ui/render.py` makes from the app's own autoescaped jinja2
templates. It is a `Markup`: joined with a plain string, the string is escaped, so it stays
template output plus escaped text. The policy's `createHTML` itself accepts nothing but the one
string `set_html` is writing at that moment (`PolicyGate`): page script that got hold of the policy
could not turn its own string into HTML with it. The policy's one script URL is the site's service
worker (boot.js registers it; `register` is a Trusted Types sink too).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from markupsafe import Markup

from sitewalk_shared.errors import SitewalkError

__all__ = ["POLICY_NAME", "PolicyGate", "TemplateHtml", "UntrustedHtml"]

# The name the CSP's `trusted-types` directive allows (sitewalk_build/policy.py writes the same).
POLICY_NAME = "sitewalk"


class TemplateHtml(Markup):
    """HTML rendered from the app's own templates (made by `ui/render.py` only)."""

    __slots__ = ()


class UntrustedHtml(SitewalkError, TypeError):
    """HTML that is not the app's own template output was about to be written into the page."""


class PolicyGate:
    """The checks behind the policy: createHTML passes only the string being written right now,
    createScriptURL only the script URLs named here."""

    def __init__(self, script_urls: tuple[str, ...] = ()) -> None:
        self._pending: str | None = None
        self.script_urls = script_urls

    @contextmanager
    def admit(self, html: TemplateHtml) -> Iterator[str]:
        """Within the block, `create_html` accepts this (and only this) text."""
        if not isinstance(html, TemplateHtml):
            raise UntrustedHtml(f"only the app's template output may be written as HTML, not {type(html).__name__}")
        self._pending = text = str(html)
        try:
            yield text
        finally:
            self._pending = None

    def create_html(self, value: str, *_args: object) -> str:
        """The policy's createHTML: the admitted text as it is, anything else refused."""
        if self._pending is None or value != self._pending:
            raise UntrustedHtml("Sitewalk's HTML policy accepts only the app's own template output")
        return value

    def create_script_url(self, value: str, *_args: object) -> str:
        """The policy's createScriptURL: one of the named script URLs, nothing else."""
        if value not in self.script_urls:
            raise UntrustedHtml(f"Sitewalk's policy vouches for no script at {value}")
        return value
