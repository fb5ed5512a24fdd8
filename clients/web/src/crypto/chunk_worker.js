// chunk_worker.js -- the chunk worker (bundled as /chunk-worker.js): seals and opens a large
// file's chunks (docs/CLIENT-FORMAT.md "Chunks") off the page's main thread, with format.js's
// sealChunk/openChunk and BLAKE3 from hash-wasm (WebAssembly, some 15× @noble's JavaScript;
// the page's CSP allows 'wasm-unsafe-eval' for it). Its one caller is chunks.js. Messages:
//   {id, op: 'seal', buffer, size, reuse}   → {id, entry, stored}, or {id, hash} for a
//                                             plaintext (buffer's first size bytes) whose
//                                             hash is in `reuse`
//   {id, op: 'put', stored, url, headers}   → {id, sent} now and then, then {id}
//   {id, op: 'fetch-open', url, headers, entry} → {id, blob}: the plaintext
//   {id, op: 'cut', buffer}                 → {id, cut, buffer}: cdc.js cdcCut of the window
//                                             (all of buffer), the buffer handed back
//   a failure                               → {id, error, format: a FormatError?, api:
//                                             {status, code, retryAfter} for an HTTP one}
//   while any task is open, every BEAT_MS   → {beat: true} (a worker that is closed or dies
//                                             says nothing more: chunks.js fails its tasks
//                                             when the beats stop)
// The network calls are here too, so that the copies of a body into the browser's own buffers
// (some 20-30 ms for 4 MiB) do not hold the page. URLs and headers are api.js's blobRequest's.
// Byte buffers travel transferred, never copied.
import { createBLAKE3 } from 'hash-wasm';

import { FormatError, b64url } from './bytes.js';
import { cdcCut } from './cdc.js';
import { openChunk, sealChunk } from './format.js';

const hasher = createBLAKE3();
let blake3 = null;
async function hash() {
  if (!blake3) {
    const h = await hasher;
    blake3 = (bytes) => {
      h.init();
      h.update(bytes);
      return h.digest('binary');
    };
  }
  return blake3;
}

async function seal({ id, buffer, size, reuse }) {
  const b3 = await hash();
  const pt = new Uint8Array(buffer, 0, size);
  let hashOf = b3;
  if (reuse.length) {
    const ptHash = b3(pt);
    const h = b64url(ptHash);
    if (reuse.includes(h)) return [{ id, hash: h }, []];
    hashOf = (bytes) => (bytes === pt ? ptHash : b3(bytes));  // the plaintext is not hashed twice
  }
  const { stored, entry } = await sealChunk(pt, undefined, undefined, hashOf);
  return [{ id, entry, stored: stored.buffer }, [stored.buffer]];
}

// An error of the HTTP exchange, as api.js's ApiError takes it.
const httpError = (status, code, message, retryAfter = null) => Object.assign(new Error(message), { api: { status, code, retryAfter } });

function refusal(status, text, retryAfter) {
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  const e = json?.error || {};
  return httpError(status, e.code || (status >= 500 ? 'unavailable' : 'internal'), e.message || `HTTP ${status}`, retryAfter);
}

// XMLHttpRequest for its upload progress (fetch has none).
function put({ id, stored, url, headers }) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    for (const [k, v] of Object.entries(headers)) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Content-Type', 'application/octet-stream');
    let shown = 0;
    xhr.upload.onprogress = (ev) => {
      if (performance.now() - shown < 100) return;
      shown = performance.now();
      self.postMessage({ id, sent: ev.loaded });
    };
    xhr.onerror = () => reject(httpError(0, 'network', 'The upload was interrupted.'));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) resolve([{ id }, []]);
      else reject(refusal(xhr.status, xhr.responseText, xhr.getResponseHeader('Retry-After')));
    };
    xhr.send(stored);
  });
}

async function fetchOpen({ id, url, headers, entry }) {
  let res;
  try {
    res = await fetch(url, { headers, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch {
    throw httpError(0, 'network', 'The service could not be reached.');
  }
  if (!res.ok) throw refusal(res.status, await res.text().catch(() => ''), res.headers.get('Retry-After'));
  const pt = await openChunk(new Uint8Array(await res.arrayBuffer()), entry, await hash());
  return [{ id, blob: new Blob([pt]) }, []];
}

function cut({ id, buffer }) {
  return [{ id, cut: cdcCut(new Uint8Array(buffer)), buffer }, [buffer]];
}

const ops = { seal, put, 'fetch-open': fetchOpen, cut };

const BEAT_MS = 1000;
let open = 0;
let beat = null;

self.onmessage = async ({ data }) => {
  if (open++ === 0) beat = setInterval(() => self.postMessage({ beat: true }), BEAT_MS);
  try {
    const [reply, transfer] = await ops[data.op](data);
    self.postMessage(reply, transfer);
  } catch (e) {
    self.postMessage({ id: data.id, error: String(e?.message || e), format: e instanceof FormatError, api: e?.api });
  } finally {
    if (--open === 0) clearInterval(beat);
  }
};
