// Sitewalk boot script (ES module, no inline script needed).
//
// Contract with the Python app (py_src/sitewalk/app/__init__.py):
//   boot.js puts the bundle's archive of pure packages on sys.path and loads
//   the wheels of the lock (native code, the app's own package), then calls
//       await sitewalk.app.main({"agentServerUrl": str, "assistantId": str, "baseUrl": str,
//                                "builtFor": str | None, "connectSrc": [str] | None,
//                                "stallParam": str | None, "streamStallSeconds": as written | None,
//                                "stuckParam": str | None, "stuckSeconds": as written | None,
//                                "serviceWorkerUrl": str, "traces": bool,
//                                ...every other key of config.json, as written})
//   (readConfig below: ?server=, ?assistant=, ?stall=, ?stuck= win over config.json; docs/operating.md
//   has the table of every setting.)
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
//       adoptPolicy(policy)           the page's one Trusted Types policy, made by the app
//                                     (bridge/dom.py); boot.js registers sw.js with it
//   Timings (performance.now(), ms since navigation start) are recorded on
//   window.__sitewalkBoot = {start, configRead, pyodideReady, packagesLoaded,
//   appStarting, appStarted, seenInspections}; document.body.dataset.ready = "1" when interactive.

const boot = (window.__sitewalkBoot = { start: performance.now() });
const SITE = new URL("./", import.meta.url); // the site root, also under a sub-path
const SERVICE_WORKER = new URL("sw.js", SITE);
const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- the shell
const retryHandlers = new Set();
let bootFailed = false;
let creep = null;
let trustedPolicy = null; // the page's one Trusted Types policy (see serviceWorkerScript)

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
  adoptPolicy(policy) {
    trustedPolicy = policy;
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
  // The assistant (graph) id is configuration too: config.json, or ?assistant= at run time.
  const assistantId = new URLSearchParams(location.search).get("assistant") || cfg.assistantId || "inspection";
  // How long a stream that has heartbeated may stay silent before it counts as dropped (seconds;
  // ?stall= for a quick test of a dead connection) or config.json's streamStallSeconds, passed as given:
  // the app checks them and says what is wrong (session/stuck_limits.py), a ?stall=soon as much as a -3.
  const stallParam = new URLSearchParams(location.search).get("stall");
  // builtFor and connectSrc: the server the site was built for and the CSP's connect-src, so the app
  // can name a ?server= the browser would block instead of reporting it unreachable.
  // How long a silent run may last before it is called stuck: ?stuck= or config.json's stuckSeconds,
  // passed as given: the app checks them and says what is wrong (session/stuck_limits.py).
  const stuckParam = new URLSearchParams(location.search).get("stuck");
  return { ...cfg, agentServerUrl: url.href.replace(/\/+$/, ""), assistantId,
           stallParam, streamStallSeconds: cfg.streamStallSeconds ?? null, stuckParam, stuckSeconds: cfg.stuckSeconds ?? null,
           baseUrl: SITE.href, builtFor: cfg.agentServerUrl ?? null, traces: cfg.traces === true,
           connectSrc: Array.isArray(cfg.connectSrc) ? cfg.connectSrc : null };
}

function canonical(name) {
  return String(name).toLowerCase().replace(/[-_.]+/g, "-");
}

// ---------------------------------------------------------------- boot
// The pure packages come as one archive that Python imports from in place
// (zipimport): fetched with subresource integrity while Python starts,
// written to the file system and put on sys.path, never unpacked. Their
// dist-info (small) comes in a second archive, unpacked into site-packages.
async function fetchVerified(file, integrity, what) {
  let resp;
  try {
    resp = await fetch(new URL(file, SITE), { integrity });
  } catch (err) {
    // A file that does not match its integrity rejects like a network failure: ask once more
    // without it to tell the inspector which of the two it was.
    const tampered = await reachable(new URL(file, SITE));
    const failure = loadError(what, `${file}: ${tampered ? INTEGRITY_FAILED : errorMessage(err)} (expected ${integrity})`);
    if (tampered) failure.message += ` ${file}: ${INTEGRITY_FAILED}.`;
    throw failure;
  }
  if (!resp.ok) throw loadError(what, `${file}: HTTP ${resp.status}`);
  return new Uint8Array(await resp.arrayBuffer());
}

function fetchArchive(archive) {
  const what = `${archive.file} (${archive.packages.join(", ")})`;
  const both = Promise.all([
    fetchVerified(archive.file, archive.integrity, what),
    fetchVerified(archive.metadata, archive.metadataIntegrity, `${archive.metadata} (${archive.packages.join(", ")})`),
  ]);
  both.catch(() => {}); // awaited once Python is up; no "unhandled rejection" meanwhile
  return both;
}

const INTEGRITY_FAILED = "integrity check failed: the file does not match the hash this site was built with";

// Whether a plain fetch (no integrity, no cache) of the file succeeds: then a failed verified
// fetch means the bytes differ from the build's, not that the network failed.
async function reachable(url) {
  try {
    return (await fetch(url, { cache: "no-store" })).ok;
  } catch {
    return false;
  }
}

// Why wheels that loadPackage could not install failed: the lock names each one's file.
async function whyNotLoaded(missing) {
  try {
    const lock = await (await fetch(new URL("pyodide-lock.json", SITE))).json();
    const files = Object.values(lock.packages)
      .filter((entry) => missing.includes(canonical(entry.name)))
      .map((entry) => entry.file_name);
    const tampered = [];
    for (const file of files) if (await reachable(new URL(file, SITE))) tampered.push(file);
    return tampered.length ? `${tampered.join(", ")}: ${INTEGRITY_FAILED}` : "";
  } catch {
    return "";
  }
}

// The rest of the stdlib (bundle.stdlibRest) and of the pure packages (bundle.sitePackagesRest): each
// boot archive holds what the app imports; a module outside it is fetched the first time an import needs
// it (so are the app's modules only a setting turns on, bundle.appRest: device tracing), by a finder the stdlib's boot archive carries (sitewalk_build/lazy_stdlib.py), one per rest archive.
// An import cannot await, so the finder fetches synchronously; the finder checks the sha256 of the bytes
// (bytes that differ are refused with RestArchiveTampered, an ImportError, and neither written nor kept).
// A synchronous request may bypass the service worker, so the page keeps the archive in the worker's
// cache itself once the finder has checked it (keepRest), and the next boot writes it from there to the
// file system before Python needs it (offline too).
const restCache = () => caches.open(`sitewalk-${boot.version}`);

function keepRest(url, bytes) {
  if (!("caches" in window)) return;
  const headers = { "Content-Type": "application/zip" };
  restCache()
    .then((cache) => cache.put(new URL(url, SITE).href, new Response(bytes, { headers })))
    .catch((err) => console.warn(`Sitewalk: ${url} was not kept`, err));
}

async function keptRest(rest) {
  if (!rest || !("caches" in window)) return null;
  try {
    const hit = await (await restCache()).match(new URL(rest.file, SITE).href);
    return hit ? new Uint8Array(await hit.arrayBuffer()) : null;
  } catch {
    return null;
  }
}

function fetchBytesSync(url) {
  const xhr = new XMLHttpRequest();
  xhr.open("GET", new URL(url, SITE).href, false);
  xhr.overrideMimeType("text/plain; charset=x-user-defined"); // bytes as chars 0-255 (synchronous: no arraybuffer)
  xhr.send(null);
  if (xhr.status !== 200) throw new Error(`${url}: HTTP ${xhr.status}`);
  const text = xhr.responseText;
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i) & 0xff;
  return bytes;
}

async function installRest(pyodide, rest, keptPromise) {
  const kept = await keptPromise;
  if (kept) pyodide.FS.writeFile(rest.path, kept); // the finder checks its sha256 before using it
  const finder = pyodide.pyimport(rest.finder);
  try {
    finder.install(rest.file, rest.sha256, rest.path, rest.modules, fetchBytesSync, keepRest).destroy();
  } finally {
    finder.destroy();
  }
}

// ---------------------------------------------------------------- the list as last read
// The app keeps each list of inspections it draws (sitewalk/ui/seen_inspections.py); this draws it at first
// paint, long before Python is up on a phone. Each row is the build's row template (rendered from the app's
// own inspections.j2) with its "@sw:..." placeholders swapped for the row's values, in one pass, as attribute
// values and text (never as markup). Its buttons wait for the app, which draws the list anew once read.
const SEEN_KEY = "sitewalk:inspections-seen";
const PLACEHOLDERS = /@sw:[a-z-]+/g;

function seenRecord(server) {
  let seen;
  try {
    seen = JSON.parse(localStorage.getItem(SEEN_KEY) ?? "null");
  } catch (err) {
    console.warn("Sitewalk: the list of inspections kept on this device is unreadable; it is read anew", err);
    return null;
  }
  const rowsOk = Array.isArray(seen?.rows) && seen.rows.every((row) => row !== null && typeof row === "object");
  const ours = seen?.v === 1 && seen.server === server && typeof seen.readAt === "string";
  return ours && rowsOk && seen.rows.length ? seen : null;
}

function seenRow(template, fields) {
  const fill = (text) => text.replace(PLACEHOLDERS, (name) => (name in fields ? String(fields[name]) : name));
  const row = template.content.firstElementChild.cloneNode(true);
  for (const el of [row, ...row.querySelectorAll("*")]) {
    for (const attr of el.attributes) attr.value = fill(attr.value);
    for (const node of el.childNodes) if (node.nodeType === Node.TEXT_NODE) node.data = fill(node.data);
    if (el.localName === "button") el.disabled = true;
  }
  return row;
}

async function showSeenInspections(configPromise) {
  const config = await configPromise;
  const list = $("sw-inspections");
  const template = $("sw-inspection-row");
  const caption = $("sw-inspections-seen");
  const seen = seenRecord(config.agentServerUrl);
  if (!seen || !list || !template || !caption || boot.appStarting !== undefined) return;
  list.replaceChildren(...seen.rows.map((fields) => seenRow(template, fields)));
  // The time as the rows give theirs (sitewalk.inspections.Inspection.updated_text), to the minute.
  const readAt = seen.readAt.slice(0, 16).replace("T", " ");
  caption.textContent = `As last read ${readAt}: opened once Sitewalk has read them again.`;
  caption.hidden = false;
  boot.seenInspections = performance.now();
}

function loadError(what, detail) {
  const err = new Error(`Could not load ${what}.`);
  err.stack = detail;
  return err;
}

async function start() {
  shell.setProgress(0.02, "Loading…");
  const configPromise = readConfig();
  showSeenInspections(configPromise).catch((err) => console.warn("Sitewalk: the list last read is not shown", err));
  const { default: bundle } = await import("./bundle.mjs");
  boot.version = bundle.version;
  const archive = bundle.archive;
  const archivePromise = fetchArchive(archive);
  const rests = [bundle.stdlibRest, bundle.sitePackagesRest, bundle.appRest].filter(Boolean);
  const keptRests = rests.map(keptRest);
  const { loadPyodide } = await import("./pyodide/pyodide.mjs");

  creepTowards(0.6, "Starting Python…");
  const pyodide = await loadPyodide({
    indexURL: new URL("pyodide/", SITE).href,
    lockFileURL: new URL("pyodide-lock.json", SITE).href,
    packageBaseUrl: SITE.href,
  });
  boot.pyodideReady = performance.now();
  window.__sitewalkPyodide = pyodide;
  for (const [i, rest] of rests.entries()) await installRest(pyodide, rest, keptRests[i]);

  const names = bundle.wheels;
  const total = names.length + archive.packages.length;
  const errors = [];
  let loaded = 0;
  const progress = () =>
    shell.setProgress(0.6 + (0.3 * loaded) / total, `Loading packages (${loaded}/${total})…`);
  stopCreep();
  progress();
  const wheelsLoaded = pyodide.loadPackage(names, {
    checkIntegrity: true,
    messageCallback(msg) {
      const m = /^Loaded (.*)$/.exec(String(msg));
      if (m) {
        loaded += m[1].split(",").filter((s) => s.trim()).length;
        progress();
      }
    },
    errorCallback(msg) {
      errors.push(String(msg));
      console.error("Sitewalk:", msg);
    },
  });
  // The archive goes on sys.path while loadPackage still fetches; Python imports nothing
  // from it until the app module is imported below.
  const [code, metadata] = await archivePromise;
  pyodide.FS.writeFile(archive.path, code);
  pyodide.unpackArchive(metadata, "zip", { extractDir: archive.sitePackages });
  pyodide.runPython(`import sys\nsys.path.append(${JSON.stringify(archive.path)})`);
  loaded += archive.packages.length;
  progress();
  await wheelsLoaded;
  const have = new Set(Object.keys(pyodide.loadedPackages).map(canonical));
  const missing = names.filter((n) => !have.has(canonical(n)));
  if (errors.length || missing.length) {
    const which = missing.length ? missing.join(", ") : "a package";
    const integrity = await whyNotLoaded(missing.map(canonical));
    const err = loadError(which, [integrity, ...errors].filter(Boolean).join("\n") || `Not loaded: ${which}`);
    if (integrity) err.message += ` ${integrity}.`;
    throw err;
  }
  boot.packagesLoaded = performance.now();

  const config = await configPromise;
  boot.configRead = performance.now();
  shell.setProgress(0.92, "Starting Sitewalk…");
  const app = pyodide.pyimport(bundle.entry);
  const pyConfig = pyodide.toPy({
    agentServerUrl: config.agentServerUrl, assistantId: config.assistantId, baseUrl: config.baseUrl,
    stallParam: config.stallParam, streamStallSeconds: config.streamStallSeconds,
    stuckParam: config.stuckParam, stuckSeconds: config.stuckSeconds,
    builtFor: config.builtFor, connectSrc: config.connectSrc, serviceWorkerUrl: SERVICE_WORKER.href,
    traces: config.traces,
  });
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

// The CSP enforces Trusted Types, and `register` takes a TrustedScriptURL. The page may make one
// policy (its name is in the CSP): the app makes it and hands it over (adoptPolicy). When the app
// never started (a failed boot), boot.js makes it under the same name, vouching for sw.js only.
function serviceWorkerScript() {
  if (!window.trustedTypes) return SERVICE_WORKER.href;
  if (trustedPolicy === null) {
    trustedPolicy = trustedTypes.createPolicy("sitewalk", {
      createScriptURL(url) {
        if (url !== SERVICE_WORKER.href) throw new TypeError(`Sitewalk's policy vouches for no script at ${url}`);
        return url;
      },
    });
  }
  return trustedPolicy.createScriptURL(SERVICE_WORKER.href);
}

function registerServiceWorker() {
  if (!("serviceWorker" in navigator)) return;
  Promise.resolve()
    .then(() => navigator.serviceWorker.register(serviceWorkerScript(), { scope: SITE.pathname }))
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
