// Sitewalk boot script (ES module, no inline script needed).
//
// Contract with the Python app (py_src/sitewalk/app.py):
//   boot.js loads every package of the lock, then calls
//       await sitewalk.app.main({"agentServerUrl": str, "baseUrl": str})
//   main() renders into <main id="app">, calls window.sitewalkShell.showApp()
//   when it likes (boot.js calls it after main returns otherwise), and must
//   return once the first screen is interactive: it must not wait for the agent
//   server (long-running work goes into asyncio tasks). Reaching the agent
//   server, and the "server unreachable" screen, are the app's business, using
//   window.sitewalkShell:
//       setProgress(fraction, text)   progress bar and status text
//       showError(message, detail?)   the error screen (hides boot and app)
//       hideError()                   back to the app (or the boot screen)
//       onRetry(fn) -> unsubscribe    Retry calls fn instead of reloading
//       showApp()                     hide the boot screen, show #app
//   Timings (performance.now(), ms since navigation start) are recorded on
//   window.__sitewalkBoot = {start, configRead, pyodideReady, packagesLoaded,
//   appStarting, appStarted}; document.body.dataset.ready = "1" when interactive.

const boot = (window.__sitewalkBoot = { start: performance.now() });
const SITE = new URL("./", import.meta.url); // the site root, also under a sub-path
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- the shell
const retryHandlers = new Set();
let bootFailed = false;
let creep = null;

function stopCreep() {
  if (creep !== null) clearInterval(creep);
  creep = null;
}

const shell = {
  setProgress(fraction, text) {
    const bar = $("boot-progress");
    if (bar && typeof fraction === "number" && Number.isFinite(fraction)) {
      bar.value = Math.max(bar.value, Math.min(1, Math.max(0, fraction)));
    }
    if (text !== undefined && text !== null) $("boot-status").textContent = String(text);
  },
  showError(message, detail) {
    stopCreep();
    $("boot").hidden = true;
    $("app").hidden = true;
    $("boot-error-message").textContent = String(message ?? "Something went wrong.");
    const pre = $("boot-error-detail");
    const text = detail === undefined || detail === null ? "" : String(detail);
    pre.textContent = text;
    pre.hidden = !text;
    $("boot-error").hidden = false;
    $("boot-retry").focus({ preventScroll: true });
  },
  hideError() {
    $("boot-error").hidden = true;
    if (boot.appStarting !== undefined) $("app").hidden = false;
    else $("boot").hidden = false;
  },
  onRetry(fn) {
    // A PyProxy passed from Python is borrowed for the call only: keep a copy.
    const keep = fn && typeof fn.copy === "function" ? fn.copy() : fn;
    retryHandlers.add(keep);
    return () => {
      retryHandlers.delete(keep);
      if (keep && typeof keep.destroy === "function") keep.destroy();
    };
  },
  showApp() {
    stopCreep();
    $("boot").hidden = true;
    $("boot").setAttribute("aria-busy", "false");
    $("boot-error").hidden = true;
    $("app").hidden = false;
  },
};
window.sitewalkShell = shell;

$("boot-retry").addEventListener("click", async () => {
  if (bootFailed || retryHandlers.size === 0) {
    location.reload();
    return;
  }
  shell.hideError();
  for (const fn of [...retryHandlers]) {
    try {
      await fn();
    } catch (err) {
      shell.showError(errorMessage(err), errorDetail(err));
      return;
    }
  }
});

function errorMessage(err) {
  if (err && typeof err === "object" && "message" in err) return String(err.message).split("\n")[0];
  return String(err);
}
function errorDetail(err) {
  if (err && typeof err === "object") return err.stack || err.message || "";
  return "";
}

// Creep the bar while a stage gives no progress of its own.
function creepTowards(target, text) {
  stopCreep();
  shell.setProgress(undefined, text);
  creep = setInterval(() => {
    const bar = $("boot-progress");
    bar.value = bar.value + (target - bar.value) * 0.05;
  }, 100);
}

// ---------------------------------------------------------------- config
async function readConfig() {
  let cfg = {};
  try {
    const resp = await fetch(new URL("config.json", SITE));
    if (resp.ok) cfg = await resp.json();
  } catch (err) {
    console.warn("Sitewalk: config.json unreadable, using defaults", err);
  }
  const param = new URLSearchParams(location.search).get("server");
  const raw = param || cfg.agentServerUrl;
  if (!raw) throw new Error("No agent server configured (config.json or ?server=).");
  let url;
  try {
    url = new URL(raw, location.href);
  } catch {
    throw new Error(`The agent server URL is not valid: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new Error(`The agent server URL must be http(s): ${raw}`);
  }
  return { ...cfg, agentServerUrl: url.href.replace(/\/+$/, ""), baseUrl: SITE.href };
}

function canonical(name) {
  return String(name).toLowerCase().replace(/[-_.]+/g, "-");
}

// ---------------------------------------------------------------- boot
async function start() {
  shell.setProgress(0.02, "Loading…");
  const configPromise = readConfig();
  const { default: bundle } = await import("./bundle.mjs");
  boot.version = bundle.version;
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");

  creepTowards(0.6, "Starting Python…");
  const pyodide = await loadPyodide({
    indexURL: new URL("pyodide/", SITE).href,
    lockFileURL: new URL("pyodide-lock.json", SITE).href,
    packageBaseUrl: SITE.href,
  });
  boot.pyodideReady = performance.now();
  window.__sitewalkPyodide = pyodide;

  const names = bundle.packages;
  const errors = [];
  let loaded = 0;
  stopCreep();
  shell.setProgress(0.6, `Loading packages (0/${names.length})…`);
  await pyodide.loadPackage(names, {
    checkIntegrity: true,
    messageCallback(msg) {
      const m = /^Loaded (.*)$/.exec(String(msg));
      if (m) {
        loaded += m[1].split(",").filter((s) => s.trim()).length;
        shell.setProgress(0.6 + (0.3 * loaded) / names.length, `Loading packages (${loaded}/${names.length})…`);
      }
    },
    errorCallback(msg) {
      errors.push(String(msg));
      console.error("Sitewalk:", msg);
    },
  });
  const have = new Set(Object.keys(pyodide.loadedPackages).map(canonical));
  const missing = names.filter((n) => !have.has(canonical(n)));
  if (errors.length || missing.length) {
    const which = missing.length ? missing.join(", ") : "a package";
    const err = new Error(`Could not load ${which}.`);
    err.stack = errors.join("\n") || `Not loaded: ${which}`;
    throw err;
  }
  boot.packagesLoaded = performance.now();

  const config = await configPromise;
  boot.configRead = performance.now();
  shell.setProgress(0.92, "Starting Sitewalk…");
  const app = pyodide.pyimport(bundle.entry);
  const pyConfig = pyodide.toPy({ agentServerUrl: config.agentServerUrl, baseUrl: config.baseUrl });
  boot.appStarting = performance.now();
  try {
    await app.main(pyConfig);
  } finally {
    pyConfig.destroy();
    app.destroy();
  }
  boot.appStarted = performance.now();
  shell.setProgress(1, "Ready");
  if ($("boot-error").hidden) shell.showApp();
  document.body.dataset.ready = "1";
}

function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker
    .register(new URL("sw.js", SITE), { scope: SITE.pathname })
    .catch((err) => console.warn("Sitewalk: service worker not registered", err));
}

const watchdog = setTimeout(() => {
  if (boot.appStarted === undefined && !bootFailed) {
    shell.setProgress(undefined, "Still loading… (slow connection?)");
  }
}, 30000);

start()
  .then(registerServiceWorker)
  .catch((err) => {
    bootFailed = true;
    boot.error = errorMessage(err);
    console.error("Sitewalk boot failed:", err);
    shell.showError(errorMessage(err), errorDetail(err));
    // Even a failed boot may have been caused by the network: cache for next time.
    registerServiceWorker();
  })
  .finally(() => clearTimeout(watchdog));
