"""`POST /sitewalk/device-spans`: where the browser sends the spans it made (issue 27), on either server.

langgraph.json names this module's `app` as the server's custom HTTP app (`http.app`): `langgraph dev`
takes a Starlette or FastAPI app, Aegra a FastAPI app, and both put their CORS middleware over it, so the
page reaches it as it reaches the rest of the API (the CSP's connect-src already names the server).

Why a route of its own and not the spans riding in the resume: a resume value is written into the
thread's checkpoints and read by the graph; the spans must reach neither the state nor the model's
context, only the trace. Here they go straight to the exporter.

Who may send: the route asks the server itself for the batch's thread (`GET /threads/{id}`) with the
caller's own `Authorization`, so the same rules as every other thread request decide (`sitewalk_agent.auth`:
another inspector's token gets 404, a missing one 401), and `read_batch` requires every span to be in that
thread's inspection trace: nobody can put spans into a trace whose thread they cannot read. The answer is
`{"exported": n, "duplicates": m}`; a refused batch gets `{"error": code, "message", "issues"}` and a 4xx.
"""

from __future__ import annotations

import json

import httpx
from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse

from sitewalk_shared.contracts.device_trace import ROUTE

from .device_spans import MAX_BODY_BYTES, DeviceSpanExporter, DeviceSpansRefused, read_batch
from .setup import ensure_installed

__all__ = ["ROUTE", "app"]

# No docs or OpenAPI routes of its own: they would shadow the agent server's.
app = FastAPI(title="Sitewalk device spans", docs_url=None, redoc_url=None, openapi_url=None)
exporter = DeviceSpanExporter()


@app.post(ROUTE)
async def receive_device_spans(request: Request) -> JSONResponse:
    raw = await request.body()
    if len(raw) > MAX_BODY_BYTES:
        return _refused(413, DeviceSpansRefused("body_too_large", f"a batch is at most {MAX_BODY_BYTES} bytes"))
    try:
        batch = read_batch(json.loads(raw))
    except ValueError as exc:  # DeviceSpansRefused is a ValueError too
        refusal = exc if isinstance(exc, DeviceSpansRefused) else DeviceSpansRefused("malformed_batch", "not JSON")
        return _refused(422 if refusal.code != "malformed_batch" else 400, refusal)
    status = await _thread_status(request, batch.thread_id)
    if status != 200:
        code = "unauthorized" if status == 401 else "thread_not_found"
        return _refused(401 if status == 401 else 404, DeviceSpansRefused(code, "no such thread of yours"))
    ensure_installed()  # the server's provider, made global (tracing off: none, and the API drops the spans)
    result = exporter.export(batch)
    return JSONResponse({"exported": result.exported, "duplicates": result.duplicates})


async def _thread_status(request: Request, thread_id: str) -> int:
    """The status this server answers the caller for `GET /threads/{thread_id}` (200: the caller may read it)."""
    headers = {"Authorization": request.headers["authorization"]} if "authorization" in request.headers else {}
    async with httpx.AsyncClient(base_url=_own_url(request), timeout=10.0) as client:
        response = await client.get(f"/threads/{thread_id}", headers=headers)
    return response.status_code


def _own_url(request: Request) -> str:
    """This server's own address, as it listens (not the Host header a caller or a proxy chose)."""
    host, port = request.scope.get("server") or ("127.0.0.1", 80)
    if host in ("0.0.0.0", "", None):
        host = "127.0.0.1"
    elif host == "::":
        host = "::1"
    return f"http://[{host}]:{port}" if ":" in str(host) else f"http://{host}:{port}"


def _refused(status: int, refusal: DeviceSpansRefused) -> JSONResponse:
    return JSONResponse(refusal.body(), status_code=status)
