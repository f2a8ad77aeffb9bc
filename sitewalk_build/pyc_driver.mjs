// Runs pyc_compiler.py inside the bundle's own Pyodide under node (see precompile.py).
// argv: <core dir> <job file> <compiler file>; the host file system is mounted at /host.
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
py.mountNodeFS("/host", "/");
py.runPython(readFileSync(compiler, "utf8"));
py.globals.get("run")("/host" + job);
