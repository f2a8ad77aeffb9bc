"""Tracing on the agent server (issue 27): the server's own spans, and the device's spans it receives and exports."""
