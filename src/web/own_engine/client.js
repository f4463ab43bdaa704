// The page's side of our own llama.cpp build (worker.js, engine.cpp): the few methods of
// wllama's `Wllama` that the bridge (in_browser.js) uses, so the bridge drives either engine
// the same way. The CPU, on one thread, or on `n_threads` where the page is cross-origin
// isolated (the threaded build, mt/).
const WORKER = new URL('./worker.js', import.meta.url).href;

export class OwnEngine {
  constructor(logger) {
    this.logger = logger;
    this.worker = null;
    this.pending = new Map();
    this.next = 1;
    this.info = { success: false };
    // The threads the worker was started with (loadModel's n_threads).
    this.threads = 1;
    // Hears the engine's progress while it reads a prompt (worker.js's {progress}).
    this.onProgress = null;
  }

  start() {
    if (this.worker) return;
    this.worker = new Worker(this.threads > 1 ? `${WORKER}?threads=${this.threads}` : WORKER);
    this.worker.onmessage = (e) => {
      const m = e.data;
      if (m.log !== undefined) {
        this.logger.log(m.log);
        return;
      }
      if (m.progress !== undefined) {
        if (this.onProgress) this.onProgress(m.progress);
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) {
        p.resolve(m.value);
        return;
      }
      const err = new Error(m.error);
      if (m.abort) err.name = 'AbortError';
      p.reject(err);
      // llama.cpp aborted (out of memory, a failed assertion): the module is dead, so the next
      // request meets a fresh worker that says no model is loaded.
      if (/Aborted\(/.test(m.error)) this.fail('worker-failed:the engine aborted');
    };
    // A worker that cannot start (blocked, or out of memory) or that died: every request fails,
    // as wllama's does, with the word the Rust side reads.
    this.worker.onerror = (e) => {
      e.preventDefault();
      this.fail('worker-failed:' + (e.message || 'error'));
    };
  }

  fail(why) {
    for (const p of this.pending.values()) p.reject(new Error(why));
    this.pending.clear();
    if (this.worker) this.worker.terminate();
    this.worker = null;
    this.info = { success: false };
  }

  ask(message) {
    this.start();
    const id = this.next++;
    return {
      id,
      answer: new Promise((resolve, reject) => {
        this.pending.set(id, { resolve, reject });
        this.worker.postMessage({ ...message, id });
      }),
    };
  }

  // `blobs`: the model, and its projector for images, in either order (a download's files
  // come in wllama's); `params.n_ctx` and `params.n_threads` as wllama's (more than one thread
  // only where the page is cross-origin isolated: the threaded build needs shared memory).
  async loadModel(blobs, params) {
    const threads = globalThis.crossOriginIsolated ? Math.max(1, params.n_threads || 1) : 1;
    if (this.worker && threads !== this.threads) this.fail('exited');
    this.threads = threads;
    const kinds = await Promise.all(blobs.map(architecture));
    const model = blobs.find((_, i) => kinds[i] !== 'clip') || blobs[0];
    const projector = blobs.find((b, i) => kinds[i] === 'clip' && b !== model);
    const files = projector ? [model, projector] : [model];
    const name = model.name || 'model.gguf';
    const { answer } = this.ask({ op: 'load', blobs: files, name, nCtx: params.n_ctx || 4096 });
    const facts = await answer;
    // `projector`: what the engine did with a projector's F16 tensors (engine.cpp's
    // widened_projector), when it has any.
    this.info = { success: true, n_vocab: facts.n_vocab, n_ctx: facts.n_ctx, vision: !!facts.vision,
      projector: facts.projector || null };
    this.threads = facts.threads || 1;
  }

  getLoadedContextInfo() {
    return this.info;
  }

  async createChatCompletion(req) {
    const signal = req.abortSignal;
    const body = { ...req };
    delete body.abortSignal;
    if (signal && signal.aborted) throw abortError();
    const { id, answer } = this.ask({ op: 'chat', body: JSON.stringify(body) });
    const cancel = () => this.worker && this.worker.postMessage({ op: 'cancel', id });
    if (signal) signal.addEventListener('abort', cancel, { once: true });
    try {
      return await answer;
    } finally {
      if (signal) signal.removeEventListener('abort', cancel);
    }
  }

  async exit() {
    this.fail('exited');
  }

  getNumThreads() {
    return this.threads;
  }

  isMultithread() {
    return this.threads > 1;
  }

  supportInputModality(kind) {
    return kind === 'image' && !!this.info.vision;
  }
}

// A GGUF file's `general.architecture` ('clip' for a projector), read from its first bytes;
// '' when it is not found there.
async function architecture(blob) {
  const bytes = new Uint8Array(await blob.slice(0, 1 << 20).arrayBuffer());
  const key = new TextEncoder().encode('general.architecture');
  const view = new DataView(bytes.buffer);
  outer: for (let i = 0; i + key.length + 12 <= bytes.length; i++) {
    for (let j = 0; j < key.length; j++) if (bytes[i + j] !== key[j]) continue outer;
    const at = i + key.length;
    if (view.getUint32(at, true) !== 8) return ''; // 8: a string value
    const len = Number(view.getBigUint64(at + 4, true));
    return new TextDecoder().decode(bytes.subarray(at + 12, Math.min(bytes.length, at + 12 + len)));
  }
  return '';
}

function abortError() {
  const e = new Error('cancelled');
  e.name = 'AbortError';
  return e;
}
