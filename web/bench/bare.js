// Baseline for the boot benchmark: plain loadPyodide with the same lock and
// the same packages, nothing else. window.__bare.done = performance.now().
const bare = (window.__bare = { start: performance.now() });
const SITE = new URL("../", import.meta.url);
try {
  const { default: bundle } = await import("../bundle.mjs");
  const { loadPyodide } = await import("../pyodide/pyodide.mjs");
  const errors = [];
  const pyodide = await loadPyodide({
    indexURL: new URL("pyodide/", SITE).href,
    lockFileURL: new URL("pyodide-lock.json", SITE).href,
    packageBaseUrl: SITE.href,
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
