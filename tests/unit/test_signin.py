"""Signing in (sitewalk.signin) and the client's bearer token (agentserver.client), on a scripted transport.

The real servers' side (the whoami graph, 401s, two inspectors) is tests/durable/test_auth.py.
"""

from __future__ import annotations

import asyncio
import json

import pytest
from fake_agent_server import BASE_URL, OFFLINE, FakeTransport, sse
from memory_storage import DictStorage

from sitewalk.agentserver import AgentServerClient, Forbidden, NotFound, Unauthorized, error_for_status
from sitewalk.signin import (
    SETTING,
    Identity,
    SignIn,
    SignInUnavailable,
    TokenInvalid,
    TokenRefused,
    check_token,
)

TOKEN = "ana-token-0123456789abcdef"
ANA = {"identity": "ana", "display_name": "Ana Ortiz", "authenticated": True}
REFUSED = (401, {"detail": "sign in: Authorization: Bearer <token>"})
KEY = SETTING + BASE_URL




def signed(fake: FakeTransport,
           settings: DictStorage | None = None) -> tuple[AgentServerClient, SignIn, DictStorage]:
    client = AgentServerClient(BASE_URL, transport=fake)
    settings = settings or DictStorage()
    return client, SignIn(client, settings), settings


def test_statuses_401_and_403_are_typed():
    assert isinstance(error_for_status(401, {"detail": "x"}), Unauthorized)
    assert isinstance(error_for_status(403, None), Forbidden)
    assert isinstance(error_for_status(404, None), NotFound)
    # Aegra words its refusals {"error", "message"}: the message is what the error says
    assert "sign in" in str(error_for_status(401, {"error": "unauthorized", "message": "sign in"}))


@pytest.mark.parametrize("text, why", [
    ("", "Enter your sign-in token"), ("   ", "Enter your sign-in token"),
    ("two words-0123456789", "no spaces"), ("tökén-0123456789abcdef", "only letters"),
    ("a" * 5000, "longer than"), ("abc=def", "only letters"),
])
def test_a_text_that_cannot_be_a_token_is_refused_before_anything_is_sent(text, why):
    fake = FakeTransport()
    _, signin, settings = signed(fake)
    with pytest.raises(TokenInvalid, match=why):
        asyncio.run(signin.sign_in(text))
    assert fake.requests == [] and settings.data == {}


def test_check_token_keeps_a_bearer_token_as_it_is():
    jwt = "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhbmEifQ.c2lnbmF0dXJl-_=="
    assert check_token(f"  {jwt}\n") == jwt


def test_the_server_names_who_signed_in_and_every_request_carries_the_token():
    fake = FakeTransport().on("POST", "/runs/wait", (200, ANA)).on("POST", "/threads/search", (200, []))
    fake.on("POST", "/threads/t1/runs/stream", sse(("metadata", {"run_id": "r1"})))
    client, signin, settings = signed(fake)

    async def go() -> Identity:
        identity = await signin.sign_in(f" {TOKEN} ")
        await client.threads.search()
        [part async for part in client.runs.stream("t1", "inspection", input={})]
        return identity

    assert asyncio.run(go()) == Identity("ana", "Ana Ortiz") == signin.identity
    [asked] = fake.sent("POST", "/runs/wait")
    assert asked.json == {"assistant_id": "whoami", "input": {}}  # the server says who: nothing is claimed
    assert all(r.headers["Authorization"] == f"Bearer {TOKEN}" for r in fake.requests)
    assert json.loads(settings.data[KEY]) == {"token": TOKEN, "identity": "ana", "display_name": "Ana Ortiz"}
    assert signin.owner() == "ana"


def test_a_refused_token_is_a_typed_error_and_is_not_kept():
    fake = FakeTransport().on("POST", "/runs/wait", REFUSED).on("POST", "/threads/search", (200, []))
    client, signin, settings = signed(fake)
    seen: list[Unauthorized] = []
    client.on_unauthorized = seen.append
    with pytest.raises(TokenRefused, match="wrong, expired or revoked"):
        asyncio.run(signin.sign_in(TOKEN))
    assert len(seen) == 1 and isinstance(seen[0], Unauthorized)  # the app's form hears of every 401
    assert settings.data == {} and signin.identity is None
    asyncio.run(client.threads.search())
    assert "Authorization" not in fake.requests[-1].headers  # forgotten: sent no more


@pytest.mark.parametrize("answer, why", [
    ((200, {"identity": "", "display_name": "", "authenticated": False}), "has no sign-in"),
    ((404, {"detail": "assistant whoami not found"}), "Could not sign in"),
    ((200, None), "did not say who you are"),
    (OFFLINE, "Could not sign in"),
])
def test_a_server_that_cannot_say_who_keeps_nothing(answer, why):
    fake = FakeTransport().on("POST", "/runs/wait", answer)
    _, signin, settings = signed(fake)
    with pytest.raises(SignInUnavailable, match=why):
        asyncio.run(signin.sign_in(TOKEN))
    assert settings.data == {} and signin.identity is None


def test_a_401_on_a_stream_reaches_the_hook_too():
    fake = FakeTransport().on("POST", "/threads/t1/runs/stream", error_for_status(*REFUSED))
    client, _, _ = signed(fake)
    seen: list[Unauthorized] = []
    client.on_unauthorized = seen.append

    async def go() -> None:
        [part async for part in client.runs.stream("t1", "inspection", input={})]

    with pytest.raises(Unauthorized):
        asyncio.run(go())
    assert len(seen) == 1



class SignedInMeanwhile(FakeTransport):
    """A transport whose answer comes after the inspector signed in: the request went without the token."""

    def __init__(self, client_box: list[AgentServerClient], answer: tuple[int, object]) -> None:
        super().__init__()
        self.client_box, self.answer = client_box, answer

    async def request(self, method, url, json=None, headers=None):
        sent = dict(headers or {})
        self.client_box[0].set_token(TOKEN)  # the sign-in lands while this request is on its way
        await asyncio.sleep(0)
        return self.answer if "Authorization" not in sent else (200, [])


def test_a_401_for_a_request_sent_before_the_sign_in_does_not_forget_the_new_token():
    """Boot lists the inspections without a token; the inspector signs in; the list's 401 arrives after.
    It refused no token the inspector has now: the form is not asked again, the token is kept."""
    box: list[AgentServerClient] = []
    client = AgentServerClient(BASE_URL, transport=SignedInMeanwhile(box, REFUSED))
    box.append(client)
    seen: list[Unauthorized] = []
    client.on_unauthorized = seen.append
    with pytest.raises(Unauthorized):  # its caller still hears of it
        asyncio.run(client.threads.search())
    assert seen == []
    assert client._http.headers["Authorization"] == f"Bearer {TOKEN}"
    # the control: a 401 for the token held now is told, as before
    client._http.transport = FakeTransport().on("POST", "/threads/search", REFUSED)
    with pytest.raises(Unauthorized):
        asyncio.run(client.threads.search())
    assert len(seen) == 1

def test_a_kept_sign_in_is_restored_for_its_server_only_and_sign_out_forgets_it():
    kept = json.dumps({"token": TOKEN, "identity": "ana", "display_name": "Ana Ortiz"})
    fake = FakeTransport().on("POST", "/threads/search", (200, []))
    client, signin, settings = signed(fake, DictStorage({KEY: kept, SETTING + "http://other.test": "x"}))
    assert signin.restore() == Identity("ana", "Ana Ortiz")
    asyncio.run(client.threads.search())
    assert fake.requests[-1].headers["Authorization"] == f"Bearer {TOKEN}"
    signin.forget()
    assert KEY not in settings.data and signin.identity is None and signin.owner() is None
    asyncio.run(client.threads.search())
    assert "Authorization" not in fake.requests[-1].headers


@pytest.mark.parametrize("kept", ["not json", json.dumps({"token": "has space", "identity": "a", "display_name": "A"}),
                                  json.dumps({"identity": "ana"}), json.dumps(["x"])])
def test_a_damaged_kept_sign_in_starts_signed_out(kept):
    _, signin, settings = signed(FakeTransport(), DictStorage({KEY: kept}))
    assert signin.restore() is None and KEY not in settings.data


@pytest.mark.parametrize("owner, namespace", [("ana", "users.ana.sitewalk.work_orders"),
                                              (None, "users.anonymous.sitewalk.work_orders")])
def test_the_restore_preview_reads_the_work_order_mirror_of_the_signed_in_inspector(owner, namespace):
    from fake_agent_server import RecordingView, counted_registry

    from sitewalk.session import DeviceHooks, InspectionSession
    from sitewalk.session.travel import TimeTravel

    mirror = {"key": "work-order:inspection-42:risk-1", "id": "WO-1", "status": "open"}
    fake = FakeTransport().on("GET", "/store/items", (200, {"value": mirror}))
    client = AgentServerClient(BASE_URL, transport=fake)
    session = InspectionSession(client, counted_registry()[0], RecordingView(),
                                device_hooks=DeviceHooks(owner=lambda: owner))
    session._on("t1")  # the thread on screen (as a start or a reopen makes it)
    assert session.parts is not None and session.parts.thread.owner == owner
    assert asyncio.run(TimeTravel(session.client, session.parts).work_order(mirror["key"])) == mirror
    [asked] = fake.sent("GET", "/store/items")
    assert f"namespace={namespace}&" in asked.query.replace("%2E", ".")
