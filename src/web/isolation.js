// Imported by every page's start script (scripts/finish_dist.py writes it as
// isolation-<hash>.js at the site's root) only where the page's site file mentions the
// isolation worker or one already controls the page, so other sites' first visits do not
// carry it. Registers the isolation worker (src/web/coi.js) when the site file asks for it,
// and resolves true when the page is about to reload under it (the app then does not start),
// false otherwise; `root` is the path from the page to the site's root. A page that stays unisolated under the worker (framed by another
// site, or a browser that will not) is reloaded at most once per session: never a loop.
export default async function isolation(root) {
  const sw = navigator.serviceWorker;
  if (!sw || window.top !== window) return false;
  const url = new URL(root + 'coi.js', location.href).href;
  const asks = (text) => {
    try {
      const site = JSON.parse(text);
      return !!site && site.isolation_worker === true;
    } catch (e) {
      return false;
    }
  };
  const ours = (r) => [r.active, r.waiting, r.installing].some((w) => w && w.scriptURL === url);
  const drop = () => sw.getRegistrations().then((rs) => rs.filter(ours).forEach((r) => r.unregister())).catch(() => {});
  let wanted = false;
  try {
    wanted = asks(JSON.parse(document.getElementById('hj-site').content));
  } catch (e) {}
  // The site file as the host has it now decides for the next visit (an owner's edit reaches
  // visitors without a rebuild): a worker it no longer asks for is removed.
  window.hjSite.then((text) => { if (typeof text === 'string' && !asks(text)) drop(); });
  if (!wanted) {
    if (sw.controller) drop();
    return false;
  }
  if (globalThis.crossOriginIsolated || sw.controller) return false;
  const tried = 'hj.isolation.reloaded';
  try {
    if (sessionStorage.getItem(tried)) return false;
    sessionStorage.setItem(tried, '1');
  } catch (e) {
    return false; // no way to remember the try: better unisolated than a reload loop
  }
  try {
    await sw.register(url);
    await sw.ready;
  } catch (e) {
    return false;
  }
  location.reload();
  return true;
}
