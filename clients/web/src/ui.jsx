// ui.jsx -- the small shared pieces of the web app: the history router, links, the app context
// (account and vault), error and progress boxes, form fields that always carry a label, and
// text from elsewhere shown so it cannot reorder the page.
import { createContext } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';

import { describeError, formatBytes } from './errors.js';
import { plainText } from './text.js';

// ---- routing (history API; nginx answers index.html for every page path) ----------------

const listeners = new Set();
export function navigate(to, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  listeners.forEach((fn) => fn());
  window.scrollTo(0, 0);
}
window.addEventListener('popstate', () => listeners.forEach((fn) => fn()));
window.addEventListener('hashchange', () => listeners.forEach((fn) => fn()));

export function useLocation() {
  const [, setTick] = useState(0);
  useEffect(() => {
    const fn = () => setTick((t) => t + 1);
    listeners.add(fn);
    return () => listeners.delete(fn);
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search), hash: location.hash };
}

export function Link({ href, children, ...rest }) {
  const onClick = (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return <a href={href} onClick={onClick} {...rest}>{children}</a>;
}

// ---- app context -------------------------------------------------------------------------

export const AppContext = createContext(null);
export const useApp = () => useContext(AppContext);

// ---- boxes -------------------------------------------------------------------------------

// An error in words; its message may quote the service or another member, so it is shown as
// plain text (no control or bidi character).
export function ErrorBox({ error, id }) {
  if (!error) return null;
  return <p class="error" role="alert" id={id}>{plainText(typeof error === 'string' ? error : describeError(error))}</p>;
}

// Text that came from the service, another member or a share's sender (names, labels, file
// names, addresses): control and bidi characters shown as U+FFFD, and the whole in a <bdi>, so
// right-to-left text stays inside it and cannot reorder the words around it.
export const Untrusted = ({ text, ...rest }) => <bdi {...rest}>{plainText(text)}</bdi>;

export function Notice({ children, kind = 'info' }) {
  return <p class={`notice ${kind}`} role="status">{children}</p>;
}

// A progress bar with words; `total` 0 shows an indeterminate bar.
export function Progress({ label, done = 0, total = 0 }) {
  const pct = total ? Math.round((100 * done) / total) : null;
  return (
    <div class="progress" role="status" aria-live="polite">
      <label>
        <span>{label}{pct !== null ? ` ${pct}%` : '…'}{total > 1 ? ` (${formatBytes(done)} of ${formatBytes(total)})` : ''}</span>
        {total ? <progress max={total} value={done} /> : <progress />}
      </label>
    </div>
  );
}

export function Field({ label, hint, id, ...input }) {
  const hintId = hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <input id={id} name={id} aria-describedby={hintId} {...input} />
      {hint && <small id={hintId}>{hint}</small>}
    </div>
  );
}

export function Page({ title, children, wide }) {
  useEffect(() => { document.title = `${title} · Pouch`; }, [title]);
  return (
    <section class={wide ? 'page wide' : 'page'} aria-labelledby="page-title">
      <h1 id="page-title" tabIndex={-1}>{title}</h1>
      {children}
    </section>
  );
}

// Runs an async action once at a time, with its error kept for display.
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState(null);
  const run = async (fn) => {
    setBusy(true);
    setError(null);
    try {
      return await fn();
    } catch (e) {
      setError(e);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
}

// Hands `bytes` (a Uint8Array or a Blob, which is not copied) to the browser as a download.
export function downloadBytes(bytes, name, type = 'application/octet-stream') {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60000);
}

export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}
