// The static shell's own script (issue 43): the image, the text and Evaluate work before the
// wasm has arrived. scripts/finish_dist.py writes this text (minified) into index.html inside
// the shell, allowed by its hash in the Content-Security-Policy, so it runs as the page is
// parsed, with no request.
//
// Until the app mounts it only keeps what the visitor does: every file lands in the shell's
// file input (chosen, dropped or pasted), the text stays in its textarea, and a click on
// Evaluate is noted. When the app removes the shell and mounts (src/ui/mod.rs), it replays
// them on the live page's own fields, as the visitor's events: the text as an `input` event,
// the file as a `change`, the focus and the caret, and, once the page is whole (`hj-mounted`),
// a click on Evaluate, which waits for the image to be read (src/ui/metrics/mod.rs). Event
// replay, the approach of Angular's `withEventReplay`, written for this page: the app decides
// everything, as if the visitor had waited for it.
(() => {
  const shell = document.getElementById('static-shell');
  const $ = (id) => document.getElementById(id);
  const image = $('shell-image-input');
  const text = $('shell-text-input');
  const button = $('shell-evaluate-button');
  const status = shell.querySelector('[data-testid=shell-status]');
  let queued = false;
  let focused = null;
  const take = (files) => {
    if (!files || !files.length || !shell.isConnected) return false;
    try { image.files = files; } catch (e) { return false; }
    return true;
  };
  const zone = shell.querySelector('.dropzone');
  zone.addEventListener('dragover', (e) => e.preventDefault());
  zone.addEventListener('drop', (e) => { e.preventDefault(); take(e.dataTransfer && e.dataTransfer.files); });
  // A pasted image, as the app takes one anywhere on the page; pasted text is left alone.
  addEventListener('paste', (e) => {
    const f = e.clipboardData && e.clipboardData.files;
    if (f && f.length && /^image\//.test(f[0].type) && take(f)) e.preventDefault();
  });
  button.addEventListener('click', () => {
    queued = true;
    button.textContent = 'Evaluate (queued)';
    status.textContent = 'Evaluate is pressed: it starts as soon as the evaluator has loaded.';
  });
  // Which field had the focus when the shell went. Checked a task after a blur: some engines
  // blur the focused field as it is removed, and that blur is not the visitor's.
  shell.addEventListener('focusin', (e) => { focused = e.target; });
  shell.addEventListener('focusout', () => setTimeout(() => {
    if (shell.isConnected && !shell.contains(document.activeElement)) focused = null;
  }));

  // The replay, in the microtask after the mount: before the page is painted.
  new MutationObserver((_, observer) => {
    if (shell.isConnected) return;
    observer.disconnect();
    const area = $('text-input');
    if (!area) return; // the embed: nothing of this is on it
    const say = (el, kind) => el.dispatchEvent(new Event(kind, { bubbles: true }));
    if (text.value) { area.value = text.value; say(area, 'input'); }
    if (image.files.length) { const live = $('image-input'); live.files = image.files; say(live, 'change'); }
    const live = focused && $(focused.id.replace('shell-', ''));
    // The caret once the app's effects have written the text back (which puts it at the end),
    // still before the paint.
    if (live) requestAnimationFrame(() => {
      live.focus();
      if (focused === text) live.setSelectionRange(text.selectionStart, text.selectionEnd);
    });
    const go = () => (performance.getEntriesByName('hj-mounted').length ? $('evaluate-button').click() : setTimeout(go, 20));
    if (queued) go();
  }).observe(shell.parentNode, { childList: true });

  // The app's own files failing (a cut connection, a refused file, a wasm that does not
  // compile: the loader announces `hj-start-failed`, scripts/finish_dist.py), said here, since
  // no app will come to say it, instead of a loading line that never ends.
  const failed = () => {
    if (!shell.isConnected) return;
    status.textContent = 'The evaluator did not load (a file of this site could not be fetched). Reload the page to try again.';
    status.className = 'shell-loading error';
  };
  addEventListener('unhandledrejection', failed);
  addEventListener('hj-start-failed', failed);
  addEventListener('error', (e) => {
    const t = e.target;
    if (t === window || (t && (t.tagName === 'SCRIPT' || (t.tagName === 'LINK' && /preload/.test(t.rel))))) failed();
  }, true);

  // The app's files (the glue, its split loader, the wasm), asked for once the shell has
  // painted (issue 43): preloaded in the head, they arrived and were compiled before the first
  // frame, which came about a frame later. scripts/finish_dist.py moved them into this
  // template. The loader, once it runs (its first line sets `hjSite`), has asked for all of
  // them itself, and a preload then would only ask twice.
  const preloads = $('hj-preloads');
  let asked = !preloads;
  const ask = () => {
    if (asked) return;
    asked = true;
    if (!('hjSite' in window)) document.head.append(preloads.content);
  };
  requestAnimationFrame(() => setTimeout(ask));
  setTimeout(ask, 100); // a tab in the background paints no frame
  performance.mark('hj-shell-interactive');
})();
