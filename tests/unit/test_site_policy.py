"""The app's check of a `?server=` against the site's connect-src (sitewalk/site_policy.py)."""

from __future__ import annotations

import pytest

from sitewalk.site_policy import ServerNotAllowed, allows, check_server
from sitewalk_build.policy import connect_sources

SITE = "https://site.example.test/field/"
DEPLOYED = connect_sources("https://agent.example.test/api")
DEVELOPMENT = connect_sources("http://127.0.0.1:2024")


@pytest.mark.parametrize("server", ["https://agent.example.test/api", "https://agent.example.test:443/",
                                    "https://AGENT.example.test/threads", "https://site.example.test/agent"])
def test_the_built_for_server_and_the_site_itself_are_allowed(server):
    check_server(server, DEPLOYED, "https://agent.example.test/api", SITE)


@pytest.mark.parametrize("server", ["https://agent.example.test:8443", "http://agent.example.test",
                                    "https://evil.example.test", "https://agent.example.test.evil.test",
                                    "http://127.0.0.1:2024"])
def test_anything_else_is_named_with_what_the_site_was_built_for(server):
    with pytest.raises(ServerNotAllowed) as caught:
        check_server(server, DEPLOYED, "https://agent.example.test/api", SITE)
    assert str(caught.value).startswith("This site is not allowed to connect to ")
    assert str(caught.value).endswith("; it was built for https://agent.example.test/api")
    assert "connect-src 'self' https://agent.example.test only" in caught.value.detail


def test_the_message_names_the_servers_origin_not_its_path():
    with pytest.raises(ServerNotAllowed, match="connect to http://192.0.2.10:8123; it was built for"):
        check_server("http://192.0.2.10:8123/api/v1?x=1", DEVELOPMENT, "http://127.0.0.1:2024", SITE)


def test_a_development_build_allows_loopback_on_any_port_and_nothing_else():
    for server in ("http://127.0.0.1:2024", "http://127.0.0.1:39111", "http://localhost:8123"):
        check_server(server, DEVELOPMENT, "http://127.0.0.1:2024", "http://127.0.0.1:8000/")
    with pytest.raises(ServerNotAllowed):
        check_server("http://10.0.0.5:2024", DEVELOPMENT, "http://127.0.0.1:2024", "http://127.0.0.1:8000/")


def test_csp_matching_rules_for_the_other_source_forms():
    assert allows("https:", "https://any.example.test", SITE) and not allows("https:", "http://a.test", SITE)
    assert allows("http://a.test", "https://a.test", SITE)  # the secure upgrade of http is allowed
    assert not allows("https://a.test", "http://a.test", SITE)  # not the other way round
    assert allows("*.example.test", "https://x.example.test", SITE)  # no scheme: the site's
    assert not allows("*.example.test", "https://example.test", SITE)
    assert allows("http://[::1]:*", "http://[::1]:9000", SITE)
    assert not allows("'none'", "https://site.example.test", SITE)


def test_without_a_list_there_is_nothing_to_check():
    check_server("https://anywhere.example.test", None, "", SITE)  # an older config.json
