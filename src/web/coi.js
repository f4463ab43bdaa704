// harmonic-judge's isolation worker: a service worker that makes the site's pages cross-origin
// isolated where its host cannot send headers (GitHub Pages), so the judge inside the page may
// run on several threads. It is on only where the site file says `"isolation_worker": true`
// (docs/deploying.md says what it costs); the pages' start script registers it, and removes
// it again when the site file no longer asks for it.
//
// The approach is the one of coi-serviceworker (github.com/gzuidhof/coi-serviceworker): a
// worker answers the site's own requests with the network's response plus
// Cross-Origin-Opener-Policy and Cross-Origin-Embedder-Policy, and the page reloads once so
// that it is itself such a response. This file is ours.
//
// COEP is `require-corp`, not `credentialless`: WebKit (Safari) supports only the former.
// Under it a cross-origin resource must allow itself (CORS or Cross-Origin-Resource-Policy);
// everything the app fetches from other origins (model files, judges' APIs) is CORS already.

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('fetch', (event) => {
  const request = event.request;
  // Only this site's own GETs; everything else goes on as if there were no worker.
  if (request.method !== 'GET' || new URL(request.url).origin !== self.location.origin) return;
  if (request.cache === 'only-if-cached' && request.mode !== 'same-origin') return;
  event.respondWith(
    fetch(request).then((response) => {
      if (response.status === 0 || response.type === 'opaqueredirect') return response;
      const headers = new Headers(response.headers);
      headers.set('Cross-Origin-Opener-Policy', 'same-origin');
      headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
      return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    })
  );
});
