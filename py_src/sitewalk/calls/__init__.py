"""The one tool-call pipeline (pure; no browser imports): a run stream's `messages` events read once
(`run_stream`), arguments assembled per call (`assembly`), the lifecycle (`lifecycle`), a call's words
(`words`), and the read-only views rendering gets (`view`)."""
