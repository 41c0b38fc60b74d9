// warplab's service worker: the app keeps working offline once it has been
// opened. It is registered by index.html with a relative URL, so its scope is
// the page's directory and the app works under any sub-path.
//
// On install it caches the app shell; every same-origin GET is then answered
// from the cache first, and from the network otherwise (a successful answer,
// such as a sample trace's file, is cached on the way, so a trace opened once
// opens offline too). The cache's name carries the build id that
// `cargo xtask dist` writes in place of the placeholder below (a hash of the
// built files), so each build installs a fresh cache and drops the old ones.
const BUILD = "__WARPLAB_BUILD_ID__";
const CACHE = `warplab-${BUILD}`;

// The app shell, relative to this script (and so to the page).
const SHELL = [
  "./",
  "index.html",
  "style.css",
  "favicon.svg",
  "worker.js",
  "editor.js",
  "warplab_app.js",
  "warplab_app_bg.wasm",
  "warplab_worker.js",
  "warplab_worker_bg.wasm",
];

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("warplab-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || !url.protocol.startsWith("http") || url.origin !== self.location.origin) return;
  event.respondWith(cacheFirst(request));
});

async function cacheFirst(request) {
  const cache = await caches.open(CACHE);
  const cached = await cache.match(request, { ignoreSearch: true });
  if (cached) return cached;
  const response = await fetch(request);
  // Whole answers only: a partial (206) or failed one is passed on uncached.
  if (response.status === 200 && response.type === "basic") {
    await cache.put(request, response.clone());
  }
  return response;
}
