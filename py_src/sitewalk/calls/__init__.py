"""Streamed tool calls: their lifecycle and the assembly of their arguments (pure; no browser imports)."""
