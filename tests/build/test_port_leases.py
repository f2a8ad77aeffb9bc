"""Ports for the servers the project starts (sitewalk_build.ports): a port handed to one caller is never handed
to another while its lease holds, even when the kernel offers it twice; a server is never started on a port
something already listens on; a durable part whose readiness was answered by another process is refused."""

from __future__ import annotations

import os
import socket
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from sitewalk_build import ports
from sitewalk_build.agent_server import start_agent_server
from sitewalk_build.durable_process import DurableError, Part, wait_ready
from sitewalk_build.errors import AgentServerStartError


@pytest.fixture
def leases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "leases"
    monkeypatch.setenv("SITEWALK_PORT_LEASES", str(folder))
    return folder


def kernel_offers(monkeypatch: pytest.MonkeyPatch, *offered: int) -> None:
    """The kernel's pick, replaced by these ports in turn (as two workers asking at once may be offered one)."""
    queue: Iterator[int] = iter(offered)
    monkeypatch.setattr(ports, "_kernel_free_port", lambda host: next(queue))


@pytest.fixture
def listening() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_a_port_the_kernel_offers_twice_goes_to_the_first_caller_only(leases, monkeypatch):
    kernel_offers(monkeypatch, 41001, 41001, 41003)
    assert ports.free_port() == 41001
    assert ports.free_port() == 41003
    assert sorted(p.name for p in leases.iterdir()) == ["41001", "41003"]


def test_a_lease_taken_by_another_process_is_respected(leases, monkeypatch):
    leases.mkdir()
    (leases / "41001").touch()  # another worker's lease, as its free_port left it
    kernel_offers(monkeypatch, 41001, 41002)
    assert ports.free_port() == 41002


def test_a_lease_past_its_time_is_taken_over(leases, monkeypatch):
    leases.mkdir()
    old = leases / "41001"
    old.touch()
    then = time.time() - ports.LEASE_SECONDS - 5
    os.utime(old, (then, then))
    kernel_offers(monkeypatch, 41001)
    assert ports.free_port() == 41001
    assert time.time() - old.stat().st_mtime < 60  # the lease is fresh again: it is this caller's now
    assert [p.name for p in leases.iterdir()] == ["41001"]  # nothing of the stale one is left


def test_when_every_offered_port_is_leased_the_error_says_so(leases, monkeypatch):
    leases.mkdir()
    (leases / "41001").touch()
    kernel_offers(monkeypatch, *[41001] * ports.ATTEMPTS)
    with pytest.raises(AgentServerStartError, match="leased"):
        ports.free_port()


def test_the_real_kernel_ports_are_leased_and_distinct(leases):
    taken = [ports.free_port() for _ in range(20)]
    assert len(set(taken)) == 20
    assert {p.name for p in leases.iterdir()} == {str(p) for p in taken}


def test_a_port_something_listens_on_is_refused(listening):
    assert not ports.port_free(listening)
    with pytest.raises(AgentServerStartError, match="another process listens"):
        ports.ensure_port_free(listening, who="the agent server")


def test_the_agent_server_is_not_started_on_a_port_another_server_answers_on(listening):
    with pytest.raises(AgentServerStartError, match=f"127.0.0.1:{listening}: another process listens"):
        start_agent_server(listening, timeout=5)


def test_a_durable_part_that_died_is_refused_even_when_its_port_answered(tmp_path):
    part = Part("aegra-1", [sys.executable, "-c", "raise SystemExit(3)"], tmp_path / "aegra-1.log")
    part.start()
    assert part.process is not None
    part.process.wait(30)
    with pytest.raises(DurableError, match="exited with code 3"):
        wait_ready(part, lambda: True, "answer on GET /health", 5)  # the answer came from someone else
