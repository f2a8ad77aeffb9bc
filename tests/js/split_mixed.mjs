// Split mixed text + JSONL streams with @json-render/core's createMixedStreamParser, fed in 7-char
// chunks; one JSON line per file on stdout: {"file", "texts", "patches"}.
//   node tests/js/split_mixed.mjs MESSAGE.txt...
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { createMixedStreamParser } from "@json-render/core";

for (const file of process.argv.slice(2)) {
  const out = { file: basename(file), texts: [], patches: [] };
  const parser = createMixedStreamParser({
    onText: (text) => out.texts.push(text),
    onPatch: (patch) => out.patches.push(patch),
  });
  const text = readFileSync(file, "utf8");
  for (let i = 0; i < text.length; i += 7) parser.push(text.slice(i, i + 7));
  parser.flush();
  process.stdout.write(JSON.stringify(out) + "\n");
}
