// Runs a Python file (pyc_compiler.py, import_closure.py) inside the bundle's own Pyodide under node.
// argv: <core dir> <job file> <compiler file>; the host file system is mounted at /host.
// A job may name wheels to install with Pyodide's own loadPackage (`load`) and archives to unpack
// with its unpackArchive (`unpackArchives`: [{file, dir}]), as boot.js does: the closure run then
// counts what Pyodide's Python side imports to install them.
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

const [coreDir, job, compiler] = process.argv.slice(-3);
const { loadPyodide } = await import(pathToFileURL(coreDir + "/pyodide.mjs").href);
const py = await loadPyodide({
  indexURL: coreDir + "/",
  lockFileURL: coreDir + "/pyodide-lock.json",
  stdout: () => {},
  stderr: (s) => console.error(s),
});
const spec = JSON.parse(readFileSync(job, "utf8"));
if (spec.load?.length) {
  const errors = [];
  await py.loadPackage(spec.load, { messageCallback: () => {}, errorCallback: (m) => errors.push(m) });
  if (errors.length) throw new Error(`loadPackage: ${errors.join("\n")}`);
}
for (const { file, dir } of spec.unpackArchives ?? []) {
  py.unpackArchive(new Uint8Array(readFileSync(file)), "zip", { extractDir: dir }); // a Uint8Array, as boot.js
}
py.mountNodeFS("/host", "/");
// What Python had imported before the script's own imports: the closure run counts no module that only
// the script itself needed.
py.globals.set("PRELOADED", py.runPython("import sys\nsorted(sys.modules)"));
py.runPython(readFileSync(compiler, "utf8"));
py.globals.get("run")("/host" + job);
