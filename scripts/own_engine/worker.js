// Runs bench.wasm in a worker, as the page's judge runs: the model fetched into memory first.
const lines = [];
var Module = {
  print: (t) => { lines.push(t); },
  printErr: () => {},
  onRuntimeInitialized: async () => {
    const [model, n, gen] = self.args;
    const buf = new Uint8Array(await (await fetch(model)).arrayBuffer());
    Module.FS.writeFile('/m.gguf', buf);
    Module.callMain(['/m.gguf', n, gen]);
    postMessage(lines.filter((l) => l.startsWith('prompt')).join('\n'));
  },
};
self.onmessage = (e) => { self.args = e.data; importScripts('bench.js'); };
