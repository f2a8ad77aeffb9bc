// Baseline for the boot benchmark: plain loadPyodide with the same lock and
// the same packages as shipped (the core's stdlib and the wheels as
// downloaded, without the build's bytecode), nothing else.
// window.__bare = {start, pyodideReady, done} (performance.now()).
const bare = (window.__bare = { start: performance.now() });
const HERE = new URL("./", import.meta.url);
try {
  const { default: bundle } = await import("../bundle.mjs");
  const { loadPyodide } = await import("../pyodide/pyodide.mjs");
  const errors = [];
  const pyodide = await loadPyodide({
    indexURL: new URL("../pyodide/", HERE).href,
    stdLibURL: new URL("python_stdlib.zip", HERE).href,
    lockFileURL: new URL("pyodide-lock.json", HERE).href,
    packageBaseUrl: HERE.href,
  });
  bare.pyodideReady = performance.now();
  await pyodide.loadPackage(bundle.packages, { errorCallback: (m) => errors.push(m), messageCallback: () => {} });
  if (errors.length) throw new Error(errors.join("\n"));
  bare.done = performance.now();
  document.getElementById("status").textContent = `done in ${Math.round(bare.done)} ms`;
} catch (err) {
  bare.error = String(err && err.message ? err.message : err);
  document.getElementById("status").textContent = bare.error;
}
