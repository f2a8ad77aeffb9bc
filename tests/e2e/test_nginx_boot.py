"""The app boots in Chromium from docs/deploy.md's nginx block: under /sitewalk/, over HTTPS, precompressed.

The block is run as the page writes it (tests/nginx_site.py; a throwaway certificate, which the browser
context is told to accept). The boot needs every type right (index.html, the scripts, pyodide's .mjs and
.wasm) and the CSP of the built index.html; the large files come as their .br siblings.
Skipped without Debian's nginx and its brotli module.
"""

from __future__ import annotations

import pytest
from conftest_helpers import wait_until_ready
from nginx_site import NGINX_READY, SUB_PATH, nginx_site

import build

pytestmark = [pytest.mark.skipif(not NGINX_READY, reason="nginx with the brotli_static module is not installed"),
              pytest.mark.browser_context_args(ignore_https_errors=True)]


def test_the_app_boots_from_the_nginx_block_of_the_deploy_page(page, agent_server, watch, tmp_path):
    with nginx_site(build.ensure_built(), tmp_path) as site_url:
        watch.allow(site_url)
        page.goto(build.app_url(site_url, agent_server))
        wait_until_ready(page)
        assert page.url.startswith(site_url) and SUB_PATH in page.url
        wasm = [r.response() for r in watch.requests if r.url.split("?")[0].endswith("/pyodide.asm.wasm")]
        assert wasm and wasm[0] is not None
        assert wasm[0].headers.get("content-encoding") == "br"
        assert wasm[0].headers.get("content-type") == "application/wasm"
