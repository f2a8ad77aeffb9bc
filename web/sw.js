// Sitewalk service worker: precaches the whole bundle, serves it cache-first.
// Only the files of the manifest are answered from the cache; every other
// request (the agent server above all) goes to the network untouched and is
// never cached. build.py writes the manifest and its version between the markers.
// MANIFEST.lazy: files of the site fetched only when needed (the rest of the stdlib): never
// precached, stored the first time the page fetches them, then answered from the cache (offline too).
// A file fetched at run time is stored only when its bytes match its integrity in the manifest: a
// tampered or corrupt download still reaches the page (whose finder refuses it) but is never kept.
const MANIFEST = /*__PRECACHE__*/{"version": "dev", "files": [], "lazy": [], "integrity": {}}/*__END__*/;
const PREFIX = "sitewalk-";
const CACHE = PREFIX + MANIFEST.version;
const SCOPE = new URL("./", self.location.href); // the directory of sw.js = site root
const KEYS = new Set([...MANIFEST.files, ...(MANIFEST.lazy || [])].map((f) => new URL(f, SCOPE).href));
const INDEX = SCOPE.href;
const INTEGRITY = new Map(Object.entries(MANIFEST.integrity || {}).map(([f, sri]) => [new URL(f, SCOPE).href, sri]));

self.addEventListener("install", (event) => {
  event.waitUntil(
    (async () => {
      const cache = await caches.open(CACHE);
      // "no-cache" revalidates against the HTTP cache (cheap 304s) so nothing stale is stored;
      // the integrity of each file makes a corrupt or mixed-version download fail the install.
      const integrity = MANIFEST.integrity || {};
      await cache.addAll(
        MANIFEST.files.map((f) => new Request(new URL(f, SCOPE), { cache: "no-cache", integrity: integrity[f] || "" })),
      );
      await self.skipWaiting();
    })(),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    (async () => {
      for (const name of await caches.keys()) {
        if (name.startsWith(PREFIX) && name !== CACHE) await caches.delete(name);
      }
      await self.clients.claim();
    })(),
  );
});

function cacheKey(request) {
  const url = new URL(request.url);
  if (url.origin !== SCOPE.origin || !url.pathname.startsWith(SCOPE.pathname)) return null;
  const key = url.origin + url.pathname; // query strings (e.g. ?server=) do not matter
  if (request.mode === "navigate" && (key === INDEX || key === INDEX + "index.html")) return INDEX;
  return KEYS.has(key) ? key : null;
}

// Whether a response's bytes are the build's: its sha256 against the manifest's integrity, when it has one.
async function asBuilt(key, response) {
  const expected = INTEGRITY.get(key);
  if (!expected) return true;
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", await response.arrayBuffer()));
  return expected === "sha256-" + btoa(String.fromCharCode(...digest));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const key = cacheKey(request);
  if (key === null) return; // not ours: straight to the network
  event.respondWith(
    (async () => {
      const cache = await caches.open(CACHE);
      const hit = await cache.match(key);
      if (hit) return hit;
      const response = await fetch(request);
      if (response.ok && response.type === "basic" && (await asBuilt(key, response.clone()))) {
        await cache.put(key, response.clone());
      }
      return response;
    })(),
  );
});
