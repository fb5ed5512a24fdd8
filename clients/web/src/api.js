// api.js -- the one way the web app talks to the service: the JSON envelope of decisions §2,
// the web session token (Bearer), errors as ApiError values with the service's `code`, and
// paging that always follows meta.next_cursor to the end. Nothing else calls fetch on /v1 but
// the chunk workers, for blobs, with what blobRequest gives them.
import { isUuid } from './crypto/bytes.js';

const TOKEN_KEY = 'pouch.session';

export class ApiError extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = extra.field;
    this.details = extra.details;
    this.retryAfter = extra.retryAfter;
    this.requestId = extra.requestId;
  }
}

export const session = {
  get token() { return localStorage.getItem(TOKEN_KEY); },
  set(token) { localStorage.setItem(TOKEN_KEY, token); },
  clear() { localStorage.removeItem(TOKEN_KEY); },
};

// Listeners told when the session ends under us (401 on an authenticated call).
const expiredListeners = new Set();
export const onSessionExpired = (fn) => { expiredListeners.add(fn); return () => expiredListeners.delete(fn); };

// Tells the listeners when `err` (an authenticated call's ApiError) says the session ended.
export function noteSessionEnd(err) {
  if (err.status === 401 && ['unauthenticated', 'token_expired'].includes(err.code)) expiredListeners.forEach((fn) => fn(err));
}

export async function api(method, path, { body, query, auth = true, signal, raw } = {}) {
  let url = path;
  if (query) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    if (s) url += `?${s}`;
  }
  const headers = {};
  if (auth && session.token) headers.Authorization = `Bearer ${session.token}`;
  let payload;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    payload = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(url, { method, headers, body: payload, signal, cache: 'no-store', credentials: 'omit', referrerPolicy: 'no-referrer' });
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    throw new ApiError(0, 'network', 'The service could not be reached.');
  }
  if (raw && res.ok) return res;
  let json = null;
  try { json = await res.json(); } catch { /* not JSON: handled below */ }
  if (!json || typeof json.ok !== 'boolean') {
    throw new ApiError(res.status, res.status >= 500 ? 'unavailable' : 'internal', `Unexpected answer (HTTP ${res.status}).`);
  }
  if (!json.ok) {
    const e = json.error || {};
    const err = new ApiError(res.status, e.code || 'internal', e.message || '', {
      field: e.field, details: e.details, retryAfter: res.headers.get('Retry-After'), requestId: json.meta?.request_id,
    });
    if (auth) noteSessionEnd(err);
    throw err;
  }
  return { data: json.data, meta: json.meta || {}, status: res.status };
}

export const get = (path, opts) => api('GET', path, opts).then((r) => r.data);
export const post = (path, body, opts = {}) => api('POST', path, { ...opts, body }).then((r) => r.data);

// Every item of a paged list: follows meta.next_cursor (passed back as `cursor`) until null.
export async function getAll(path, query = {}, { signal } = {}) {
  const items = [];
  let cursor;
  for (let page = 0; page < 100000; page++) {
    const r = await api('GET', path, { query: { ...query, cursor }, signal });
    items.push(...(r.data.items || []));
    cursor = r.meta.next_cursor;
    if (!cursor) return items;
  }
  throw new ApiError(0, 'internal', 'A list did not end.');
}

// The account's roster, every entry in index order (paged with `cursor`, decisions §13).
export const getRoster = () => getAll('/v1/account/roster', { limit: 1000 });

// The URL and headers of a blob's PUT or GET, which the chunk workers send (chunks.js): a blob
// id comes from decrypted content another member wrote, so it reaches the URL only as what the
// format says it is (43 b64url characters; vault.fileBlob checked the content's whole shape
// before), and the pouch id only as a UUID.
export function blobRequest(pouchId, blobId) {
  if (!/^[A-Za-z0-9_-]{43}$/.test(blobId) || !isUuid(pouchId)) {
    throw new ApiError(0, 'invalid_blob_id', 'A file refers to a piece with an invalid id; it was not fetched.');
  }
  return { url: `/v1/pouches/${pouchId}/blobs/${blobId}`, headers: { Authorization: `Bearer ${session.token}` } };
}
