"""The site's connect-src lists the configured agent server only (sitewalk_build.policy)."""

from __future__ import annotations

from sitewalk_build.policy import connect_sources, csp


def _connect_src(policy: str) -> list[str]:
    [directive] = [d.strip() for d in policy.split(";") if d.strip().startswith("connect-src ")]
    return directive.split()[1:]


def test_a_deployed_build_may_reach_its_server_and_nothing_else():
    sources = _connect_src(csp("https://agent.example.test/api"))
    assert sources == ["'self'", "https://agent.example.test"]
    assert "https:" not in sources and not any(s.endswith(":*") for s in sources)


def test_a_lan_build_lists_its_plain_http_server():
    assert connect_sources("http://10.0.0.5:8123") == ["'self'", "http://10.0.0.5:8123"]


def test_a_development_build_allows_loopback_on_any_port_only():
    sources = connect_sources("http://127.0.0.1:2024")
    assert set(sources) == {"'self'", "http://127.0.0.1:2024", "http://127.0.0.1:*", "http://localhost:*"}
    assert "https:" not in sources
