// Compile JSON-patch line streams with @json-render/core's compileSpecStream from the empty spec;
// one JSON line per file on stdout: {"file", "spec", "error"}.
//   node tests/js/compile_streams.mjs STREAM.jsonl...
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { compileSpecStream } from "@json-render/core";

for (const file of process.argv.slice(2)) {
  const out = { file: basename(file), spec: null, error: null };
  try {
    out.spec = compileSpecStream(readFileSync(file, "utf8"), { root: "", elements: {} });
  } catch (err) {
    out.error = String(err && err.message ? err.message : err);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
