"""The PNG icons of the web app manifest, drawn from web/icon.svg by headless Chromium.

    python -m sitewalk_build.icons      # writes web/icon-192.png and web/icon-512.png

Run once when icon.svg changes and commit the PNGs (the build does not draw them: it needs no
browser). Chromium renders the SVG at each size with a transparent background; the PNGs carry
no timestamps, so the same Chromium gives the same bytes.
"""

from __future__ import annotations

import base64
import sys
from pathlib import Path

from sitewalk_build.browser import chromium_launch_args
from sitewalk_build.paths import WEB

SIZES = (192, 512)


def draw_icons(svg: Path = WEB / "icon.svg", out_dir: Path = WEB) -> list[Path]:
    """Render ``svg`` to ``icon-<size>.png`` in ``out_dir`` for every size; return the files."""
    from playwright.sync_api import sync_playwright

    data = "data:image/svg+xml;base64," + base64.b64encode(svg.read_bytes()).decode()
    written = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(**chromium_launch_args())
        try:
            for size in SIZES:
                page = browser.new_page(viewport={"width": size, "height": size}, device_scale_factor=1)
                page.set_content(f'<img src="{data}" width="{size}" height="{size}" style="display:block">'
                                 '<style>html,body{margin:0;background:transparent}</style>')
                page.wait_for_function("document.images[0].complete")
                out = out_dir / f"icon-{size}.png"
                out.write_bytes(page.screenshot(omit_background=True))
                written.append(out)
                page.close()
        finally:
            browser.close()
    return written


if __name__ == "__main__":
    for path in draw_icons():
        print(path.relative_to(WEB.parent), file=sys.stderr)
