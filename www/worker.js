// Bootstrap of warplab's Web Worker (an ES-module worker spawned by the page as
// ./worker.js). Initialising the wasm module runs the worker binary's main,
// which registers the lab reactor; gloo-worker holds the page's messages until
// then. The wasm file is found relative to this script.
//
// Two builds of the worker ship side by side. Where the page is cross-origin
// isolated (COOP/COEP headers, from the server or from sw.js), shared wasm
// memory is allowed and the threaded build (warplab_worker_mt) runs the SMs on
// a pool of Web Workers; elsewhere, or if it cannot load, the single-thread
// build runs. The results are the same; only the speed differs.
const threaded = self.crossOriginIsolated === true && typeof SharedArrayBuffer === "function";

async function start(module) {
  const { default: init } = await import(module);
  await init();
}

if (threaded) {
  try {
    await start("./warplab_worker_mt.js");
  } catch (error) {
    console.warn("warplab: the threaded worker did not load, using one thread:", error);
    await start("./warplab_worker.js");
  }
} else {
  await start("./warplab_worker.js");
}
