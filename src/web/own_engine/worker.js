// The worker of our own llama.cpp build (engine.cpp, built by scripts/own_engine.sh into
// engine.js and engine.wasm beside this file, and its threaded build into mt/). It loads one
// model from a Blob and answers chat requests one at a time, in steps, so that a cancel is heard
// between them. client.js is the page's side of it.
//
// `worker.js?threads=N` (N > 1, a cross-origin isolated page only) runs the threaded build on N
// threads: this worker computes, and N - 1 more (mt/engine.worker.js) are made as it starts.
//
// Messages in: {id, op: 'load', blobs: [model, projector?], name, nCtx}, {id, op: 'chat', body},
// {op: 'cancel', id}.
// Messages out: {id, ok: true, value}, {id, ok: false, error}, {log: line} for each line
// llama.cpp prints, and {id, progress} after each step of reading a prompt (engine.cpp's
// hj_progress: the image's views read, encoded and reused, the prompt's tokens read).
'use strict';

// The engine's JavaScript (engine.js) runs in this worker's global scope and declares globals
// of its own, among them an `abort` that kills the module: `Module` is the one global of ours,
// everything else lives in the function below.
var Module = {
  print: (line) => postMessage({ log: String(line) }),
  printErr: (line) => postMessage({ log: String(line) }),
  onRuntimeInitialized: () => Module.hjReady(),
};
Module.hjStarted = new Promise((resolve) => { Module.hjReady = resolve; });
Module.hjThreads = Math.max(1, Math.min(64, Number(new URLSearchParams(self.location.search).get('threads')) || 1));
if (Module.hjThreads > 1) {
  // The threads' workers load the same engine.js (not this file) from mt/.
  const here = (file) => new URL('mt/' + file, self.location.href).href;
  Module.locateFile = here;
  Module.mainScriptUrlOrBlob = here('engine.js');
  Module.hjPool = Module.hjThreads - 1;
  importScripts(here('engine.js'));
} else {
  importScripts('engine.js');
}

(() => {
// One step reads one unit of the prompt: 64 tokens (engine.cpp's UNIT, which decides it so that
// a prompt read partly from its cache gives the same numbers) or one view of an image; about two
// seconds here, the longest a cancel waits. The engine no longer takes the number from here.
const PREFILL_SLICE = 64;
const started = Module.hjStarted;

const kinds = (args) => args.map((a) => (typeof a === 'number' ? 'number' : 'string'));
const text = (name, ...args) => Module.ccall(name, 'string', kinds(args), args);
const num = (name, ...args) => Module.ccall(name, 'number', kinds(args), args);

// A turn of the event loop, without setTimeout's 4 ms clamp: a cancel message gets in.
const channel = new MessageChannel();
let wake = null;
channel.port1.onmessage = () => { const w = wake; wake = null; if (w) w(); };
const tick = () => new Promise((resolve) => { wake = resolve; channel.port2.postMessage(0); });

const cancelled = new Set();
let mounted = false;

// The engine's answer, or its refusal thrown: 'not-loaded' when it holds no model (the Rust
// side's word), llama.cpp's own message otherwise.
function refused(json) {
  const r = JSON.parse(json);
  if (r.status === 503) throw new Error('not-loaded');
  if (r.status) throw new Error(r.message);
  return r;
}

// WORKERFS reads a file's Blob synchronously on each read llama.cpp makes, and llama.cpp reads a
// GGUF's metadata in hundreds of thousands of small reads (each token of the vocabulary, each
// merge). One FileReaderSync each made loading SmolVLM-256M-shaped files (a 98 MB model, a
// 104 MB projector) take 53 s against 0.6 s from memory. A read smaller than WINDOW is served
// from one window of the Blob read at once; a larger one (a tensor) is read as before.
const WINDOW = 1 << 20;
let window_ = null;  // {node, start, bytes}: the window last read
function bufferedReads(FS) {
  const ops = FS.filesystems.WORKERFS.stream_ops;
  if (ops.hjDirect) return;
  const direct = ops.read;
  const reader = new FileReaderSync();
  ops.hjDirect = direct;
  ops.read = (stream, buffer, offset, length, position) => {
    const node = stream.node;
    if (length >= WINDOW || position >= node.size) return direct(stream, buffer, offset, length, position);
    const n = Math.min(length, node.size - position);
    const w = window_;
    if (!w || w.node !== node || position < w.start || position + n > w.start + w.bytes.length) {
      const slice = node.contents.slice(position, Math.min(node.size, position + WINDOW));
      window_ = { node, start: position, bytes: new Uint8Array(reader.readAsArrayBuffer(slice)) };
    }
    const at = position - window_.start;
    buffer.set(window_.bytes.subarray(at, at + n), offset);
    return n;
  };
}

async function load({ blobs, name, nCtx }) {
  await started;
  const FS = Module.FS;
  bufferedReads(FS);
  if (mounted) {
    FS.unmount('/models');
    mounted = false;
  } else {
    FS.mkdir('/models');
  }
  // Read in place from the Blobs (WORKERFS): no second copy of the files in memory.
  const files = blobs.map((data, i) => ({ name: i === 0 ? 'model.gguf' : 'projector.gguf', data }));
  FS.mount(FS.filesystems.WORKERFS, { blobs: files }, '/models');
  mounted = true;
  try {
    return refused(text('hj_load', '/models/model.gguf', blobs.length > 1 ? '/models/projector.gguf' : '', name,
      nCtx, Module.hjThreads));
  } finally {
    window_ = null;  // the engine holds what it read: the window's megabyte goes
  }
}

// The request's stop rule (`hj_stop`, the core's: crates/core/src/providers/in_browser/stop.rs):
// the answer ends once its text so far matches `after`, and `note` is added to it. null when the
// request has none or it is not a valid expression (then the answer runs to its limit).
function stopRule(body) {
  try {
    const rule = JSON.parse(body).hj_stop;
    if (!rule || typeof rule.after !== 'string') return null;
    return { re: new RegExp(rule.after, typeof rule.flags === 'string' ? rule.flags : ''), note: String(rule.note || '') };
  } catch (e) {
    return null;
  }
}

async function chat(id, body) {
  await started;
  const rule = stopRule(body);
  const begun = refused(text('hj_begin', body));
  const tell = () => postMessage({ id, progress: JSON.parse(text('hj_progress')) });
  let left = begun.n_prompt;
  tell();
  while (left > 0) {
    await tick();
    if (cancelled.has(id)) return dropRequest();
    left = num('hj_prefill', PREFILL_SLICE);
    if (left === -2) return refused(text('hj_error'));
    if (left < 0) throw new Error('llama_decode failed while reading the prompt');
    tell();
  }
  for (let n = 1; ; n++) {
    const more = num('hj_step');
    if (more < 0) throw new Error('llama_decode failed while writing');
    if (more === 0) break;
    if (rule && rule.re.test(text('hj_text'))) {
      num('hj_stop', rule.note);
      break;
    }
    if (n % 16 === 0) tell();  // still writing: the page's time limit counts from here
    await tick();
    if (cancelled.has(id)) return dropRequest();
  }
  return refused(text('hj_result'));
}

function dropRequest() {
  num('hj_cancel');
  throw cancelledError();
}

function cancelledError() {
  const e = new Error('cancelled');
  e.name = 'AbortError';
  return e;
}

// One request at a time, in the order they came: the engine holds one request's state, and a
// request sent while a cancelled one is still winding down waits for it. A cancel is heard at
// once (between two steps of the request it names, or before that request starts).
let queue = Promise.resolve();
self.onmessage = (e) => {
  const m = e.data;
  if (m.op === 'cancel') {
    cancelled.add(m.id);
    return;
  }
  queue = queue.then(() => handle(m));
};

async function handle(m) {
  try {
    if (cancelled.has(m.id)) throw cancelledError();
    const value = m.op === 'load' ? await load(m) : await chat(m.id, m.body);
    postMessage({ id: m.id, ok: true, value });
  } catch (err) {
    postMessage({ id: m.id, ok: false, error: String((err && err.message) || err), abort: err && err.name === 'AbortError' });
  } finally {
    cancelled.delete(m.id);
  }
}
})();
