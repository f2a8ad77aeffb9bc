"""Constants and helpers shared by the e2e fixtures and tests (conftest.py itself is not importable by name)."""

BOOT_TIMEOUT_MS = 120_000
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def poll(page, expression: str, timeout_s: float = 120.0, interval_s: float = 0.2) -> None:
    """Wait until a JS expression is true. page.wait_for_function evaluates strings, which the
    site's CSP (no unsafe-eval) forbids; page.evaluate runs through the devtools protocol."""
    import time

    deadline = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        if time.monotonic() > deadline:
            raise TimeoutError(f"not true after {timeout_s:g} s: {expression}")
        time.sleep(interval_s)
