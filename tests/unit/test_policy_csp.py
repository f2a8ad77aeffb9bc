"""The site's CSP (sitewalk_build.policy): connect-src lists the configured agent server only, and
Trusted Types are enforced with the app's one policy name."""

from __future__ import annotations

import json

from sitewalk.base.trusted import POLICY_NAME
from sitewalk_build.policy import TRUSTED_TYPES_POLICY, connect_sources, csp, scan_dist


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


def _directives(policy: str) -> dict[str, list[str]]:
    parts = [d.split() for d in policy.split(";") if d.strip()]
    return {p[0]: p[1:] for p in parts}


def test_trusted_types_are_enforced_with_the_apps_one_policy():
    directives = _directives(csp("https://agent.example.test"))
    assert directives["require-trusted-types-for"] == ["'script'"]
    assert directives["trusted-types"] == [TRUSTED_TYPES_POLICY]  # one name, no 'allow-duplicates'
    assert TRUSTED_TYPES_POLICY == POLICY_NAME  # the name the app's policy is created under (bridge/dom.py)


def test_the_rest_of_the_policy_still_allows_no_eval_and_no_inline_script():
    directives = _directives(csp("http://127.0.0.1:2024"))
    assert directives["script-src"] == ["'self'", "'wasm-unsafe-eval'"]
    assert directives["object-src"] == ["'none'"] and directives["default-src"] == ["'self'"]


def test_the_config_lists_the_same_connect_sources_and_the_scan_accepts_them(tmp_path):
    server = "https://agent.example.test/api"
    config = {"agentServerUrl": server, "connectSrc": connect_sources(server)}
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert scan_dist(tmp_path, server) == []
    config["connectSrc"].append("https://elsewhere.example.test")  # not what the CSP says: reported
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert scan_dist(tmp_path, server) == ["config.json: https://elsewhere.example.test"]
