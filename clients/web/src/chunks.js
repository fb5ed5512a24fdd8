// chunks.js -- a large file's chunks moved in parallel and off the page's main thread: the
// file is read here and cut by a worker of its own, chunk workers (crypto/chunk_worker.js, served as
// /chunk-worker.js) seal, upload, fetch and open the chunks (AES-GCM, BLAKE3 and the copies
// into and out of the network, the costly part), and up to PIPELINE chunks are between the
// file and the server at once, so reading, sealing and the network overlap. Which requests
// are sent is the caller's (vault.js). Buffers go to the workers and back transferred.
import { ApiError, noteSessionEnd } from './api.js';
import { FormatError } from './crypto/bytes.js';
import { CDC_MAX, CDC_MIN } from './crypto/cdc.js';

const WORKER_URL = '/chunk-worker.js';
// Chunks sealed, checked or uploading (or fetched or opening) at once: each holds ≤ 8 MiB.
const PIPELINE = 8;
// A worker with a task open beats every second (crypto/chunk_worker.js); one silent this long
// is taken for dead and its tasks fail, so that a worker closed or crashed without an error
// event (a browser gives none for some) fails the upload or download instead of holding it.
const SILENT_MS = 10000;

// Every pool of the page (the chunk workers, the cutting worker): a silent worker retires the
// idle ones of all of them.
const pools = new Set();

// A few workers, each taking the next task when it has the fewest open; started on first use
// and kept for the page's life (a worker that failed or went silent is replaced at the next
// use).
class ChunkWorkers {
  constructor(size) {
    pools.add(this);
    this.size = size;
    this.workers = [];
    this.tasks = new Map();   // id → {worker, resolve, reject, onSent}
    this.nextId = 1;
    this.watch = null;        // the silence check's interval, while tasks are open
    this.checked = undefined; // when it last ran (a longer gap: the page itself was held)
  }

  start() {
    while (this.workers.length < this.size) {
      const w = new Worker(WORKER_URL);
      w.open = 0;
      w.heard = performance.now();
      w.onmessage = ({ data }) => {
        w.heard = performance.now();
        if (!data.beat) this.answer(data);
      };
      // A script that does not load (or a crash) answers no task: each of its tasks fails.
      w.onerror = (e) => {
        e.preventDefault?.();
        this.retire(w, new Error(`The encryption worker failed${e.message ? `: ${e.message}` : ''}.`));
      };
      this.workers.push(w);
    }
  }

  retire(w, error) {
    this.workers = this.workers.filter((x) => x !== w);
    w.terminate();
    for (const [id, t] of this.tasks) {
      if (t.worker === w) {
        this.tasks.delete(id);
        t.reject(error);
      }
    }
  }

  // → the worker's answer; onSent(bytes) hears a PUT's progress.
  run(message, transfer = [], onSent = null) {
    this.start();
    const w = this.workers.reduce((a, b) => (b.open < a.open ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.tasks.set(id, { worker: w, resolve, reject, onSent });
      if (w.open++ === 0) w.heard = performance.now();
      w.postMessage({ ...message, id }, transfer);
      this.watch ??= setInterval(() => this.checkSilence(), SILENT_MS / 4);
    });
  }

  checkSilence() {
    const now = performance.now();
    // The page itself was held (a frozen or throttled tab, a long task): its workers' beats may
    // be waiting in its queue, so silence is counted again from now.
    const held = now - (this.checked ?? now) > SILENT_MS / 2;
    this.checked = now;
    const silent = this.workers.filter((w) => w.open > 0 && now - w.heard > SILENT_MS);
    if (held) for (const w of this.workers) w.heard = Math.max(w.heard, now);
    else if (silent.length) {
      // The idle ones go too, in every pool (they have nothing to beat for, so their state is
      // unknown): the next task starts fresh workers.
      for (const w of silent) this.retire(w, new Error('The encryption worker stopped answering.'));
      for (const p of pools) for (const w of p.workers.filter((x) => x.open === 0)) p.retire(w, null);
    }
    if (!this.tasks.size) {
      clearInterval(this.watch);
      this.watch = null;
      this.checked = undefined;
    }
  }

  answer(m) {
    const t = this.tasks.get(m.id);
    if (!t) return;
    if (m.sent !== undefined) {
      t.onSent?.(m.sent);
      return;
    }
    this.tasks.delete(m.id);
    t.worker.open--;
    if (m.error === undefined) t.resolve(m);
    else if (m.api) {
      const err = new ApiError(m.api.status, m.api.code, m.error, { retryAfter: m.api.retryAfter });
      noteSessionEnd(err);
      t.reject(err);
    }
    else t.reject(m.format ? new FormatError(m.error) : new Error(m.error));
  }
}

let pool = null;
const workers = () => (pool ??= new ChunkWorkers(Math.min(4, Math.max(2, navigator.hardwareConcurrency || 2))));
// The cuts are a worker's too (the same script, op "cut"), one of its own so that a window's
// cut never waits behind the sealing: content-defined cutting is ~7 ms of CPU per 4 MiB window
// (more before the JIT warms up), which on the main thread held the page for 100 ms and more
// on a busy machine (make bench's main-thread probe).
let cutPool = null;
const cutter = () => (cutPool ??= new ChunkWorkers(1));

// A file is at most 1,000 chunks (an op's blob_ids bound).
const MAX_CHUNKS = 1000;

// Where the chunk that starts `window` ends: the whole window (`fixed`), or crypto/cdc.js
// cdcCut's answer from the cutting worker. `window` (a whole ArrayBuffer's view) goes there and
// back transferred. → {cut, window}.
async function cutWindow(window, fixed) {
  if (fixed) return { cut: window.length, window };
  const { cut, buffer } = await cutter().run({ op: 'cut', buffer: window.buffer }, [window.buffer]);
  return { cut, window: new Uint8Array(buffer) };
}

// Whether each chunk that starts a window of min(4 MiB, the rest of the file) bytes ends at
// the window's end (true: every 4 MiB) rather than where crypto/cdc.js cdcCut puts it
// (CLIENT-FORMAT "Chunk boundaries"): content-defined unless that makes more than 1,000
// chunks. Every chunk but the last is over CDC_MIN bytes, so only a file over
// 1,000 × (CDC_MIN + 1) bytes can pass the bound: such a file is read once more first, its
// cuts counted.
async function fixedCuts(file) {
  if (file.size <= MAX_CHUNKS * (CDC_MIN + 1)) return false;
  const reader = fileReader(file);
  let rest = new Uint8Array(0);
  try {
    for (let at = 0, count = 0; at < file.size; count++) {
      if (count === MAX_CHUNKS) return true;
      const { cut, window } = await cutWindow(await readWindow(reader, rest, Math.min(CDC_MAX, file.size - at)), false);
      rest = window.subarray(cut);
      at += cut;
    }
    return false;
  } finally {
    reader.cancel().catch(() => {});
  }
}

// Seals `file` (a File or Blob) chunk by chunk: read in order (one stream, the fastest way to
// read a File), cut (fixedCuts, cutWindow), and each chunk handed to a worker; send(index, sealed) takes each sealed
// chunk to the server as it is ready ({entry, stored: ArrayBuffer}, or {hash} for a plaintext
// whose hash is in `reuse`) and answers its entry. → the entries in file order. The first
// failure stops the reading and is thrown once the chunks already under way have settled.
export async function sealFile(file, reuse, send) {
  const entries = [];
  const live = new Set();
  let failure = null;
  const fixed = await fixedCuts(file);
  const reader = fileReader(file);
  let rest = new Uint8Array(0);  // bytes read past the last cut: the next window's first
  try {
    for (let at = 0, i = 0; at < file.size && !failure; i++) {
      while (live.size >= PIPELINE) await Promise.race(live);
      if (failure) break;
      const { cut, window } = await cutWindow(await readWindow(reader, rest, Math.min(CDC_MAX, file.size - at)), fixed);
      if (!Number.isSafeInteger(cut) || cut < 1 || cut > window.length) throw new Error(`a chunk was cut at ${cut} of ${window.length} bytes`);
      rest = window.slice(cut);
      const index = i;
      const done = workers().run({ op: 'seal', buffer: window.buffer, size: cut, reuse }, [window.buffer])
        .then((r) => send(index, r))
        .then((entry) => { entries[index] = entry; }, (e) => { failure ??= e; });
      live.add(done);
      done.finally(() => live.delete(done));
      at += cut;
    }
  } finally {
    await Promise.all(live);
    reader.cancel().catch(() => {});
  }
  if (failure) throw failure;
  return entries;
}

// A byob reader of the file: it reads into the caller's buffer. A browser whose Blob stream is
// not a byte stream gets the same from a default reader, one copy more.
function fileReader(file) {
  try {
    return file.stream().getReader({ mode: 'byob' });
  } catch {
    const reader = file.stream().getReader();
    let pending = new Uint8Array(0);
    return {
      async read(view) {
        if (!pending.length) {
          const { value, done } = await reader.read();
          if (done) return { done: true };
          pending = value;
        }
        const n = Math.min(view.length, pending.length);
        view.set(pending.subarray(0, n));
        pending = pending.subarray(n);
        return { value: view.subarray(0, n), done: false };
      },
      cancel: () => reader.cancel(),
    };
  }
}

// `len` bytes of the file: `rest` then what `reader` (fileReader) reads next.
async function readWindow(reader, rest, len) {
  let buf = new Uint8Array(len);
  buf.set(rest);
  for (let n = rest.length; n < len;) {
    const { value, done } = await reader.read(new Uint8Array(buf.buffer, n, len - n));
    if (done) throw new FormatError('the file changed while it was read');
    buf = new Uint8Array(value.buffer);
    n += value.length;
  }
  return buf;
}

// PUT of a sealed chunk's stored bytes (an ArrayBuffer, handed over) with `request`
// (api.js blobRequest), by a worker. onSent(bytes sent so far), now and then.
export function putChunk(stored, request, onSent) {
  return workers().run({ op: 'put', stored, ...request }, [stored], onSent);
}

// The plaintext of `entries` (checked content.chunks), `size` bytes in all, as a Blob: up to
// PIPELINE chunks fetched (requestOf(entry): api.js blobRequest) and opened at once by the
// workers, each a Blob of its own made there (the browser holds the bytes; the page never
// copies them). onProgress(bytes done).
export async function openFile(entries, size, requestOf, onProgress) {
  if (entries.reduce((n, e) => n + e.size, 0) !== size) throw new FormatError('the chunks do not add up to the file\'s size');
  const parts = [];
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (next < entries.length && !failed) {
      const i = next++;
      const { blob } = await workers().run({ op: 'fetch-open', ...requestOf(entries[i]), entry: entries[i] });
      parts[i] = blob;
      done += entries[i].size;
      onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PIPELINE, entries.length) }, lane)).catch((e) => {
    failed = true;
    throw e;
  });
  const file = new Blob(parts);
  if (file.size !== size) throw new FormatError('the file has the wrong size');
  return file;
}
