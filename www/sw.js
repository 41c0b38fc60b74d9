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
  "warplab_worker_mt.js",
  "warplab_worker_mt_bg.wasm",
  // The JS snippets of the threaded build (wasm-bindgen-rayon's pool helper),
  // whose paths carry a hash: `cargo xtask dist` lists them here.
  ..."__WARPLAB_SNIPPETS__".split(",").filter((path) => path.length > 0),
];

// The headers that make the page cross-origin isolated, so the worker may
// share its wasm memory with its threads (worker.js picks the threaded build
// then). A static host that cannot send them (GitHub Pages) gets them from
// here, from the second visit on, once this worker controls the page.
const ISOLATION = { "Cross-Origin-Opener-Policy": "same-origin", "Cross-Origin-Embedder-Policy": "require-corp" };

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
  event.respondWith(cacheFirst(request).then(isolated));
});

// `response` with the isolation headers added (an opaque or redirected answer
// is passed on as it is).
function isolated(response) {
  if (response.status === 0 || response.headers.get("Cross-Origin-Embedder-Policy")) return response;
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(ISOLATION)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

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
