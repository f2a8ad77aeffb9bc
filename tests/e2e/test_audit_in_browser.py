"""The audit trail in the app: after an inspection the panel lists the server's records, checked against the
head the thread's state committed, and the export downloads JSON whose chain verifies (with the same check
`python -m sitewalk_agent.audit verify` uses)."""

from __future__ import annotations

import json
import uuid

import httpx

from sitewalk_shared.contracts.audit import HEAD_KEY, verify_chain

DRAFT = {"site": "Pier 4, north berth", "inspector": "Ana Ruiz", "findings": ["Loose bolt"], "risk": "high"}


def test_the_trail_of_an_inspection_is_shown_and_exported_as_json_that_verifies(app, tmp_path):
    inspection = f"inspection-81-{uuid.uuid4().hex[:8]}"
    app.open()
    page = app.page
    app.seed_draft(inspection, DRAFT)
    app.start(inspection, note="script: confirm")
    page.locator("#sw-screen [data-sw-id='confirm']").click()
    page.wait_for_selector("#sw-status:has-text('create_work_order: done')")

    page.locator("#sw-audit-load").click()
    page.wait_for_selector("#sw-audit-verdict[data-chain='whole']")
    rows = page.locator("#sw-audit-records li")
    # compared with the head the thread's state committed: here the last record, the press
    committed = page.locator("#sw-audit-verdict").get_attribute("data-committed")
    assert committed == rows.last.get_attribute("data-seq")
    verdict = page.locator("#sw-audit-verdict").inner_text()
    assert f"step {committed} as the thread's checkpoints committed it" in verdict
    tools = rows.locator(".sw-audit-tool").all_inner_texts()
    assert "read_local_draft" in tools and "create_work_order" in tools
    assert "Ana Ruiz (unauthenticated)" in rows.last.locator(".sw-audit-reviewer").inner_text()
    app.screenshot("audit-trail")

    with page.expect_download() as info:
        page.locator("#sw-audit-export").click()
    path = tmp_path / "trail.json"
    info.value.save_as(path)
    assert info.value.suggested_filename.startswith(f"audit-{inspection}")
    exported = json.loads(path.read_text(encoding="utf-8"))
    assert exported["chain"] == "whole" and len(exported["records"]) == rows.count()
    items = [(f"{r['seq']:08d}-{r['hash'][:12]}", r) for r in exported["records"]] + [(HEAD_KEY, exported["head"])]
    assert verify_chain(items) is None
    # ... and it is what the server holds, record for record
    served = httpx.post(f"{app.server_url}/store/items/search",
                        json={"namespace_prefix": exported["namespace"], "limit": 100}).json()["items"]
    assert sorted(i["value"]["hash"] for i in served if i["key"] != HEAD_KEY) == \
        sorted(r["hash"] for r in exported["records"])
