"""The floor under everything, the bridge included: pure types that the bridge and the layers above
it share, so the bridge never imports upward.

`server_errors` (the agent-server client's errors) and `response_body` are used by both transports
(httpx in `agentserver`, `fetch` in `bridge`); `trusted` is the one kind of HTML the bridge writes;
`device_errors` are what the bridge's platform APIs raise; `device_storage` is the device's key-value
store as the pure code sees it (the bridge's localStorage keeps it); `seconds` is the one rule for a number of
seconds given as configuration (the app checks its run limits with it, the build what it writes).
This package imports nothing of Sitewalk and no browser module; the layer order is in docs/architecture.md.
"""
