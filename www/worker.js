// Bootstrap of warplab's Web Worker (an ES-module worker spawned by the page as
// ./worker.js). Initialising the wasm module runs the worker binary's main,
// which registers the lab reactor; gloo-worker holds the page's messages until
// then. The wasm file is found relative to this script.
import init from "./warplab_worker.js";

await init();
