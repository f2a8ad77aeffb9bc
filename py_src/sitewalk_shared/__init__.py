"""What the agent server and the browser share, one set of pydantic models imported by both.

``contracts``: the tool contracts, the result envelope, the UI catalog, questions, work orders, the
audit record and canonical JSON hashing; ``ui_spec``: the screen spec model, its validation, JSON-patch
lines and inline screens. Pure CPython/Pyodide code: no jinja2, no browser API, nothing of ``sitewalk``
(the browser package) or of ``sitewalk_agent`` (the server's), so the server installs it without them.
"""
