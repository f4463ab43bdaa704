// The "In this browser (llama.cpp)" provider's bridge to @wllama/wllama (npm, copied beside this
// file into dist/wllama/ by scripts/finish_dist.py). The app loads this module only when that
// provider is chosen, by adding a <script type=module> (script-src 'self'); it is never part
// of the first visit. It moves bytes and nothing else: what to send and how to read the answer
// is decided in Rust (crates/core/src/providers/in_browser.rs, src/web/in_browser.rs).
import { CacheManager, Wllama, WllamaAbortError } from './wllama.js';
import { OwnEngine } from './own/client.js';

const WASM = new URL('./wllama.wasm', import.meta.url).href;
// The same llama.cpp release built for browsers without JSPI or Memory64 (@wllama/wllama-compat:
// Asyncify, 32-bit memory), from this site, never a CDN. It is also the faster build on the CPU
// (docs/performance.md), so it runs wherever the files fit in its 4 GiB of memory.
const MEMORY32 = {
  wasm: new URL('./compat/wllama.wasm', import.meta.url).href,
  worker: new URL('./compat/wllama.js', import.meta.url).href,
};
// The largest model and projector together that the Memory32 build is given: its whole address
// space is 4 GiB, which must also hold the context, the compute buffers and the image. The
// Rust side's sentences use the same figure (providers::in_browser::MEMORY32_MAX_BYTES).
const MEMORY32_MAX_BYTES = 2.5e9;
// Our own build (own/: llama.cpp built here, no GPU) takes 1.8-2.4x less time per evaluation
// than wllama's builds (docs/performance.md's table); where the page is cross-origin isolated
// its threaded build (own/mt/) runs on as many threads as wllama's would.
// llama.cpp's own log lines (its default, INFO: a few lines per load and per request), the
// last few kept so that a load it refuses can say why; the Rust side tells "out of memory"
// from a bad file by them.
const engineLines = [];
// llama.cpp's lines that say where the weights went (the Rust side reads them:
// providers/in_browser/placement.rs), kept whole for the load in progress, at every level:
// wllama passes "offloaded 31/31 layers to GPU" and the buffers' sizes on at debug level.
// The model's shape too (print_info: n_embd, n_layer): Automatic's check of the GPU against the
// CPU draws its tolerance from it (providers/in_browser/gpu_check.rs).
const placement = /buffer size|layers to GPU|ggml_webgpu|using .* backend|print_info: n_(embd|layer) /i;
const placed = [];
function place(...args) {
  const line = args.map(String).join(' ').trim();
  if (placement.test(line) && placed.length < 100) placed.push(line);
  return line;
}
function keep(...args) {
  engineLines.push(place(...args));
  if (engineLines.length > 40) engineLines.shift();
}
// Debug lines count only for the placement, never for the reasons a load failed.
const quiet = { debug: place, log: keep, warn: keep, error: keep };
let judge = null; // { w, name, vision, threads, multithread, backend, gpuError, lines }

// What the browser offers for the GPU path, read once: WebGPU, its adapter, the adapter's
// features and its own name (the Rust side decides what to ask the engine for).
let gpuSeen = null;
async function gpuProbe() {
  if (gpuSeen) return gpuSeen;
  const out = { api: false, adapter: false, features: [], vendor: '', architecture: '', device: '' };
  try {
    if (navigator.gpu) {
      out.api = true;
      const a = await navigator.gpu.requestAdapter();
      if (a) {
        out.adapter = true;
        out.features = [...a.features];
        const info = a.info || {};
        out.vendor = String(info.vendor || '');
        out.architecture = String(info.architecture || '');
        out.device = String(info.device || '');
      }
    }
  } catch (e) {
    // requestAdapter may throw where WebGPU is blocked: no adapter.
  }
  gpuSeen = out;
  return out;
}


// Where downloaded models are kept: wllama's default, the Origin Private File System, where
// the browser offers it; otherwise (WebKit's automation sessions, some private windows) in this
// page's memory for the visit, so the judge still runs and the panel says nothing is kept.
const keepsFiles = !!(navigator.storage && navigator.storage.getDirectory);
const inMemory = new Map();
const memoryBackend = {
  isSupported: () => true,
  read: async (key) => inMemory.get(key) || null,
  write: async (key, stream) => { inMemory.set(key, await new Response(stream).blob()); },
  getSize: async (key) => (inMemory.has(key) ? inMemory.get(key).size : -1),
  list: async () => [...inMemory].map(([key, blob]) => ({ key, size: blob.size })),
  delete: async (key) => { inMemory.delete(key); },
};
const cache = keepsFiles ? new CacheManager() : new CacheManager([memoryBackend]);

// An engine of the chosen build: 'ours', 'memory32' or 'memory64'. wllama itself picks the
// Memory32 build only where JSPI or Memory64 is missing (and never in Firefox); we pick it by
// speed too, so its choice of resources is replaced by ours, on this instance only.
function fresh(build) {
  if (build === 'ours') return new OwnEngine(quiet);
  const w = new Wllama({ default: WASM }, { logger: quiet, cacheManager: cache });
  w.setCompat(null); // never fetch the compatibility build from a CDN
  if (build === 'memory32') {
    w.getWorkerResources = () => ({ wasmPath: MEMORY32.wasm, jsPath: MEMORY32.worker, compat: true });
  }
  return w;
}

const isFirefox = () => /firefox/i.test(navigator.userAgent || '');

// Which build loads `bytes` of files with or without the GPU, and why: { build, why } where
// `why` is a word the Rust side phrases (providers/in_browser/mod.rs, build_sentence), or
// { build: null, why: 'too-large' } when no build here can hold the files.
// `globalThis.hjEngineBuild` ('ours', 'memory32' or 'memory64') forces one, for the benchmark
// and the comparison of builds.
// `ours`: whether this site serves our own build (oursServed).
function chooseBuild(bytes, gpu, ours) {
  const can64 = lacks64().length === 0;
  const forced = globalThis.hjEngineBuild;
  if (forced === 'ours' && ours && bytes <= MEMORY32_MAX_BYTES) return { build: 'ours', why: 'forced' };
  if (forced === 'memory64' && can64) return { build: 'memory64', why: 'forced' };
  if (forced === 'memory32') return { build: 'memory32', why: 'forced' };
  if (bytes > MEMORY32_MAX_BYTES) return can64 ? { build: 'memory64', why: 'large' } : { build: null, why: 'too-large' };
  if (!gpu) return ours ? { build: 'ours', why: 'fastest' } : { build: 'memory32', why: 'not-built' };
  // wllama's author measured its Memory32 build's WebGPU path as far slower in Firefox.
  if (gpu && isFirefox() && can64) return { build: 'memory64', why: 'firefox-gpu' };
  // Our build has no GPU path.
  return { build: 'memory32', why: 'gpu' };
}

// Whether this site serves our own build: a first scripts/serve.sh finishes the site before it
// (issue 59) and adds it minutes later, so a "no" is asked again at the next load.
let oursHere = false;
async function oursServed() {
  if (!oursHere) {
    oursHere = await fetch(new URL('./own/engine.wasm', import.meta.url), { method: 'HEAD', cache: 'no-store' })
      .then((r) => r.ok, () => false);
  }
  return oursHere;
}

function hasMemory64() {
  try {
    new WebAssembly.Memory({ address: 'i64', initial: BigInt(1) });
    return true;
  } catch (e) {
    return false;
  }
}

// What this browser lacks for the Memory64 build (names, for the Rust side to phrase).
function lacks64() {
  const out = [];
  if (typeof WebAssembly.Suspending !== 'function') out.push('jspi');
  if (!hasMemory64()) out.push('memory64');
  return out;
}

// What this browser lacks for any build: then nothing is downloaded.
function missing() {
  const out = [];
  if (typeof WebAssembly !== 'object') out.push('webassembly');
  if (typeof Worker !== 'function') out.push('workers');
  return out;
}

function threadsWanted() {
  if (!globalThis.crossOriginIsolated) return 1;
  return Math.max(1, Math.min(8, navigator.hardwareConcurrency || 1));
}

// The file's first bytes: its magic, and the GGUF header's first keys (the quantization).
async function head(blob) {
  return new Uint8Array(await blob.slice(0, 262144).arrayBuffer());
}

// `what` went wrong, with the engine's last lines that say why. An engine that aborts says
// only "(ABORT)"; llama.cpp printed the reason (a buffer it could not allocate, a file it could
// not read) just before, and the Rust side tells "out of memory" from a bad file by it.
function said(what) {
  if (what === 'abort' || what.startsWith('worker-failed:')) return what;
  const why = engineLines
    .filter((l) => !l.startsWith('Stack trace') && /fail|alloc|memory|invalid|error|assert/i.test(l))
    .slice(-4)
    .map((l) => (l.length > 240 ? l.slice(0, 240) + '…' : l))
    .join(' | ');
  return why ? what.trim() + ': ' + why : what;
}

function message(e) {
  if (e instanceof WllamaAbortError || (e && e.name === 'AbortError')) return 'abort';
  if (typeof Event === 'function' && e instanceof Event) return 'worker-failed:' + (e.message || e.type);
  return String((e && e.message) || e);
}

// Loads a model. `source` is { url, mmprojUrl } or { files: [model, projector?] };
// `progress(phase, fraction)` hears 'downloading' and 'loading'; `check(name, head, size)`
// returns '' or the sentence refusing a file; `gpu` says whether to offer the engine WebGPU
// (the engine's default, every layer) or keep it on the CPU (`n_gpu_layers: 0`). A GPU load
// that fails is tried again on the CPU, and the failure is kept for the status line. `batch`
// (0: the engine's default) is the prompt batch on the GPU, which the Rust side chooses from the
// adapter's measured speed so that one step ends well inside llama.cpp's WebGPU queue wait.
// Resolves to the model's facts.
async function load(source, progress, check, gpu, batch) {
  // Never download (and cache) a model this browser cannot run: the page checks first, and so
  // does the bridge.
  const lacking = missing();
  if (lacking.length) throw new Error('unsupported:' + lacking.join(','));
  if (judge) {
    const old = judge;
    judge = null;
    await old.w.exit().catch(() => {});
  }
  let blobs;
  let name;
  // What decides the engine's answers besides the request: which files (by URL, or by name,
  // size and date when picked) and the number of threads (their kernels round differently).
  let identity;
  if (source.files) {
    blobs = source.files;
    name = source.files[0].name || 'model.gguf';
    identity = 'files:' + source.files.map((f) => `${f.name}:${f.size}:${f.lastModified}`).join('|');
  } else {
    identity = 'url:' + source.url + '|' + (source.mmprojUrl || '');
    progress('downloading', 0);
    const src = source.mmprojUrl ? { url: source.url, mmprojUrl: source.mmprojUrl } : { url: source.url };
    // wllama's getModelOrDownload finds a kept model by its URL alone, projector or not: the
    // same model with another projector (or none) came back with the one kept before. A kept
    // model is taken only with the same projector; otherwise what is missing is downloaded.
    const manager = fresh().modelManager;
    const kept = (await manager.getModels())
      .find((m) => m.url === src.url && (m.mmprojUrl || '') === (src.mmprojUrl || ''));
    if (kept) progress('downloading', 1);
    const model = kept || await manager.downloadModel(src, {
      progressCallback: ({ loaded, total }) => progress('downloading', total > 0 ? loaded / total : 0),
    });
    blobs = await model.open();
    name = decodeURIComponent(new URL(source.url).pathname.split('/').pop() || 'model.gguf');
  }
  for (const [i, blob] of blobs.entries()) {
    // The slot a file came from, so a projector given as the model (or the reverse) is refused
    // by name: picked files are [model, projector]. Downloaded files come back in wllama's order
    // (the projector is not last): without a projector URL every one is the model's (its
    // shards), with one no file is told apart.
    const slot = source.files ? (i === 0 ? 'model' : 'projector') : source.mmprojUrl ? '' : 'model';
    const label = source.files ? slot : ('downloaded ' + slot).trim();
    const refusal = check(label, await head(blob), blob.size);
    if (refusal) throw new Error('refused:' + refusal);
  }
  const bytes = blobs.reduce((n, b) => n + b.size, 0);
  const ours = await oursServed();
  const chosen = (onGpu) => {
    const c = chooseBuild(bytes, onGpu, ours);
    if (!c.build) throw new Error('too-large:' + bytes);
    return c;
  };
  progress('loading', 0);
  const threads = threadsWanted();
  let build = chosen(gpu);
  let gpuError = '';
  let lines = [];
  const start = async (engine, onGpu) => {
    engineLines.length = 0;
    placed.length = 0;
    const params = { n_ctx: 4096, n_threads: threads, seed: 1 };
    if (!onGpu) params.n_gpu_layers = 0;
    if (onGpu && batch > 0) params.n_batch = params.n_ubatch = batch;
    try {
      await engine.loadModel(blobs, params);
    } catch (e) {
      throw new Error(said(message(e)));
    }
    lines = placed.slice();
  };
  let w2 = fresh(build.build);
  if (gpu) {
    try {
      await start(w2, true);
      if (!w2.getLoadedContextInfo().success) throw new Error('the engine loaded nothing on the GPU');
    } catch (e) {
      gpuError = message(e);
      await w2.exit().catch(() => {});
      build = chosen(false);
      w2 = fresh(build.build);
    }
  }
  if (!gpu || gpuError) await start(w2, false);
  return finish(w2, { name, identity, gpuError, lines, build, files: { blobs, bytes, ours, threads } });
}

async function finish(w, { name, identity, gpuError, lines, build, files }) {
  // wllama does not look at the engine's own verdict; a file llama.cpp refused loads "nothing".
  const info = w.getLoadedContextInfo();
  if (!info.success || !(info.n_vocab > 0)) {
    await w.exit().catch(() => {});
    throw new Error(said('llama.cpp refused the file'));
  }
  lastProgress = '';
  judge = {
    w,
    name,
    // What decides the answers: the files and the threads (and where it computes, which the
    // Rust side reads from `lines` and adds).
    // The two builds round differently (docs/performance.md), so the build is part of it.
    // Our build holds an F16 projector as F32, which moves the last bits of its answers.
    identity: identity + '|threads:' + w.getNumThreads() + '|build:' + build.build
      + (info.projector && info.projector.widened ? '|projector:f16-as-f32' : ''),
    // What our build did with the projector's F16 tensors (the Rust side words it).
    projector: info.projector ? JSON.stringify(info.projector) : '',
    build: build.build,
    buildWhy: build.why,
    vision: w.supportInputModality('image'),
    threads: w.getNumThreads(),
    multithread: w.isMultithread(),
    gpuError,
    lines,
    // Kept to start the engine again on the CPU when the GPU fails while answering.
    files,
    baseIdentity: identity,
    onGpu: lines.some((l) => /offloaded [1-9]\d*\/\d+ layers to GPU/i.test(l)),
    restarting: null,
  };
  return loadedFacts();
}

// A failure of the engine itself, not of the request: the wasm trapped or aborted (llama.cpp's
// WebGPU backend aborts when a queue wait times out), and wllama refuses every later call.
const CRASH = /\(ABORT\)|crashed|unreachable|RuntimeError|Queue wait timed out|device (was )?lost/i;

// What the GPU said when it failed: llama.cpp's own line if it printed one (ggml_webgpu: Queue
// wait timed out after 30000 ms), never the stack trace the engine prints after it; else the
// error's words.
function gpuReason(e) {
  const lines = engineLines
    .flatMap((l) => l.split('\n'))
    .map((l) => l.trim())
    .filter((l) => l && !/^Stack trace|@http|wasm-function/i.test(l))
    .reverse();
  const line = lines.find((l) => /Queue wait timed out|device (was )?lost/i.test(l))
    || lines.find((l) => /ggml_webgpu|webgpu/i.test(l) && /fail|error|abort|timed out|lost/i.test(l));
  const why = (line || message(e) || 'the engine stopped').replace(/^.*?(ggml_webgpu:)/, '$1').trim();
  return why.length > 200 ? why.slice(0, 200) + '…' : why;
}

// The GPU failed while answering: the engine that crashed is let go and the same files are
// loaded again on the CPU (n_gpu_layers 0), in this page, without a reload. Requests that
// failed together wait for the one restart. Resolves once the CPU engine is loaded (or throws
// the reason it could not be).
let restarting = null;
function restartOnCpu(old, reason) {
  if (old.restarting) return old.restarting;
  old.restarting = restarting = (async () => {
    if (judge === old) judge = null;
    await Promise.race([old.w.exit().catch(() => {}), new Promise((r) => setTimeout(r, 2000))]);
    const { blobs, bytes, ours, threads } = old.files;
    const build = chooseBuild(bytes, false, ours);
    if (!build.build) throw new Error('too-large:' + bytes);
    const w = fresh(build.build);
    engineLines.length = 0;
    placed.length = 0;
    try {
      await w.loadModel(blobs, { n_ctx: 4096, n_threads: threads, seed: 1, n_gpu_layers: 0 });
    } catch (e) {
      throw new Error(said(message(e)));
    }
    await finish(w, {
      name: old.name,
      identity: old.baseIdentity,
      gpuError: 'answering:' + reason,
      lines: placed.slice(),
      build,
      files: old.files,
    });
  })().finally(() => { restarting = null; });
  return old.restarting;
}

function loadedFacts() {
  if (!judge) return null;
  const { name, vision, threads, multithread, identity, gpuError, lines, build, buildWhy, projector } = judge;
  return { name, vision, threads, multithread, identity, gpuError, lines, build, buildWhy, projector };
}

function dataUrlBytes(url) {
  const comma = url.indexOf(',');
  const bin = atob(url.slice(comma + 1));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out.buffer;
}

// wllama's form of an image: {type: 'image', data: <its bytes>} for each `image_url` part.
function imagesAsBytes(req) {
  for (const m of req.messages || []) {
    if (!Array.isArray(m.content)) continue;
    m.content = m.content.map((part) =>
      part.type === 'image_url' ? { type: 'image', data: dataUrlBytes(part.image_url.url) } : part
    );
  }
}

// One chat completion. `body` is the OpenAI-format JSON text the app built (Rust already
// refused what llama-server would refuse); resolves to llama-server's JSON answer text.
// Our build's progress on the request it is reading (engine.cpp's hj_progress), as JSON text
// for the Rust side's 1-second timer; '' when none was heard since the model loaded.
let lastProgress = '';

// `idleMs`: the request's time limit, counted from the engine's last progress (our build says
// where it is after each view and slice of the prompt, so a photo that takes minutes to read is
// not cut off while it is being read; wllama's says nothing, so for it this is a plain limit);
// a request stopped so rejects with 'idle-timeout'.
async function chat(body, signal, idleMs) {
  // A request that arrives while the engine is being started again on the CPU waits for it.
  if (!judge && restarting) await restarting.catch(() => {});
  if (!judge) throw new Error('not-loaded');
  const stop = new AbortController();
  const forward = () => stop.abort();
  if (signal) {
    if (signal.aborted) stop.abort();
    signal.addEventListener('abort', forward, { once: true });
  }
  let idle = false;
  let timer = null;
  const arm = () => {
    clearTimeout(timer);
    if (idleMs > 0) timer = setTimeout(() => { idle = true; stop.abort(); }, idleMs);
  };
  arm();
  if (judge.build === 'ours') judge.w.onProgress = (p) => { lastProgress = JSON.stringify(p); arm(); };
  const asked = judge;
  try {
    return await answerChat(body, stop.signal);
  } catch (e) {
    if (idle) throw new Error('idle-timeout');
    if (stop.signal.aborted || !asked.onGpu || !CRASH.test(message(e) + ' ' + engineLines.slice(-5).join(' '))) throw e;
    // The GPU failed (issue 70): this request ends with the reason, and the engine comes back
    // on the CPU by itself for the next ones.
    const reason = gpuReason(e);
    try {
      await restartOnCpu(asked, reason);
    } catch (again) {
      throw new Error('gpu-failed-dead:' + reason + ' | ' + message(again));
    }
    throw new Error('gpu-failed:' + reason);
  } finally {
    clearTimeout(timer);
    if (signal) signal.removeEventListener('abort', forward);
  }
}

async function answerChat(body, signal) {
  const req = JSON.parse(body);
  // Our build reads the request's JSON text as llama-server does (images as base64 data URLs);
  // wllama takes each image as its bytes.
  if (judge.build !== 'ours') imagesAsBytes(req);
  delete req.model;
  delete req.stream;
  if (signal) req.abortSignal = signal;
  const answer = await judge.w.createChatCompletion(req);
  return JSON.stringify(answer);
}

async function cacheList() {
  const entries = await cache.list();
  return entries
    .filter((e) => e.metadata && e.metadata.originalURL)
    .map((e) => ({ url: e.metadata.originalURL, size: e.size }));
}

async function cacheClear() {
  await cache.clear();
}

// The Cross-Origin-Embedder-Policy this page was served with ('' when none or unknown), asked
// once of its own server: a page sent COEP may still not be isolated (WebKit does not support
// `credentialless`), and the sentence about threads says which.
let coep = null;
async function servedCoep() {
  if (coep === null) {
    try {
      const r = await fetch(location.href, { method: 'HEAD', cache: 'no-store', credentials: 'same-origin' });
      coep = r.headers.get('Cross-Origin-Embedder-Policy') || '';
    } catch (e) {
      coep = '';
    }
  }
  return coep;
}

async function facts() {
  return {
    missing: missing(),
    // The build a model of up to MEMORY32_MAX_BYTES will run on the CPU here, before one loads.
    build: chooseBuild(0, false, await oursServed()),
    isolated: !!globalThis.crossOriginIsolated,
    coep: globalThis.crossOriginIsolated ? '' : await servedCoep(),
    cores: navigator.hardwareConcurrency || 1,
    keepsFiles,
    gpu: await gpuProbe(),
    loaded: loadedFacts(),
  };
}

async function guard(promise) {
  try {
    return await promise;
  } catch (e) {
    throw new Error(message(e));
  }
}

globalThis.hjInBrowser = {
  facts: () => guard(facts()),
  load: (source, progress, check, gpu, batch) =>
    guard(load(source, progress, check, gpu, batch || 0).then((r) => { progress('loading', 1); return r; })),
  chat: (body, signal, idleMs) => guard(chat(body, signal, idleMs)),
  progress: () => lastProgress,
  cacheList: () => guard(cacheList()),
  cacheClear: () => guard(cacheClear()),
};
globalThis.dispatchEvent(new Event('hj-in-browser-ready'));
