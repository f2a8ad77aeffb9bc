// Judge spec files with @json-render/core's validateSpec; one JSON line per file on stdout:
// {"file", "valid", "codes", "error"}. A spec that makes validateSpec throw counts as invalid.
//   node tests/js/validate_specs.mjs SPEC.json...
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { validateSpec } from "@json-render/core";

for (const file of process.argv.slice(2)) {
  const out = { file: basename(file), valid: false, codes: [], error: null };
  try {
    const spec = JSON.parse(readFileSync(file, "utf8"));
    const result = validateSpec(spec, { checkOrphans: true });
    out.valid = result.valid;
    out.codes = result.issues.map((i) => `${i.severity}:${i.code}`);
  } catch (err) {
    out.error = String(err && err.message ? err.message : err);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}
