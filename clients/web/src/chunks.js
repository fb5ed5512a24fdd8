// chunks.js -- a large file's chunks moved in parallel and off the page's main thread: chunk
// workers (crypto/chunk_worker.js, served as /chunk-worker.js) read, cut, seal and open them,
// while up to PIPELINE chunks are between the file and the server at once, so reading,
// sealing and the network overlap. The API calls are the caller's (vault.js); the bytes never
// pass through the main thread on the way up, and once (into the result) on the way down.
import { FormatError } from './crypto/bytes.js';
import { CHUNK_SIZE } from './crypto/format.js';

const WORKER_URL = '/chunk-worker.js';
// Chunks sealed, checked or uploading (or fetched or opening) at once: each holds ≤ 8 MiB.
const PIPELINE = 8;

// A few workers, each taking the next task when it has the fewest open; started on first use
// and kept for the page's life (a worker that failed is replaced at the next use).
class ChunkWorkers {
  constructor(size) {
    this.size = size;
    this.workers = [];
    this.tasks = new Map();   // id → {worker, resolve, reject, onCut}
    this.nextId = 1;
  }

  start() {
    while (this.workers.length < this.size) {
      const w = new Worker(WORKER_URL);
      w.open = 0;
      w.onmessage = ({ data }) => this.answer(data);
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

  // → the worker's answer; onCut(n) hears a seal's cut before the answer.
  run(message, transfer = [], onCut = null) {
    this.start();
    const w = this.workers.reduce((a, b) => (b.open < a.open ? b : a));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.tasks.set(id, { worker: w, resolve, reject, onCut });
      w.open++;
      w.postMessage({ ...message, id }, transfer);
    });
  }

  answer(m) {
    const t = this.tasks.get(m.id);
    if (!t) return;
    if (m.cut !== undefined) {
      t.onCut?.(m.cut);
      return;
    }
    this.tasks.delete(m.id);
    t.worker.open--;
    if (m.error !== undefined) t.reject(m.format ? new FormatError(m.error) : new Error(m.error));
    else t.resolve(m);
  }
}

let pool = null;
const workers = () => (pool ??= new ChunkWorkers(Math.min(4, Math.max(2, navigator.hardwareConcurrency || 2))));

// Seals `file` (a File or Blob) chunk by chunk; send(index, sealed) takes each sealed chunk to
// the server as it is ready ({entry, stored: ArrayBuffer}, or {hash} for a plaintext whose hash
// is in `reuse`) and answers its entry. → the entries in file order. The first failure stops
// the reading and is thrown once the chunks already under way have settled.
export async function sealFile(file, reuse, send) {
  const entries = [];
  const live = new Set();
  let failure = null;
  for (let at = 0, i = 0; at < file.size && !failure; i++) {
    while (live.size >= PIPELINE) await Promise.race(live);
    if (failure) break;
    const len = Math.min(CHUNK_SIZE, file.size - at);
    let heardCut;
    const cut = new Promise((resolve) => { heardCut = resolve; });
    const sealed = workers().run({ op: 'seal', file, at, len, reuse }, [], heardCut);
    const index = i;
    const done = sealed.then((r) => send(index, r)).then((entry) => { entries[index] = entry; }, (e) => { failure ??= e; });
    live.add(done);
    done.finally(() => live.delete(done));
    // The next chunk starts where this one was cut (a failed seal has no cut).
    const n = await Promise.race([cut, sealed.then(() => cut, () => null)]);
    if (n === null) break;
    if (!Number.isSafeInteger(n) || n < 1 || n > len) throw new Error(`a chunk was cut at ${n} of ${len} bytes`);
    at += n;
  }
  await Promise.all(live);
  if (failure) throw failure;
  return entries;
}

// The plaintext of `entries` (checked content.chunks), `size` bytes in all: up to PIPELINE
// chunks fetched (fetchStored(entry) → Uint8Array) and opened at once, each written to its
// place. onProgress(bytes done).
export async function openFile(entries, size, fetchStored, onProgress) {
  const out = new Uint8Array(size);
  const offsets = [];
  let end = 0;
  for (const e of entries) {
    offsets.push(end);
    end += e.size;
  }
  if (end !== size) throw new FormatError('the chunks do not add up to the file\'s size');
  let next = 0;
  let done = 0;
  let failed = false;
  const lane = async () => {
    while (next < entries.length && !failed) {
      const i = next++;
      let stored = await fetchStored(entries[i]);
      if (stored.byteOffset !== 0 || stored.byteLength !== stored.buffer.byteLength) stored = stored.slice();
      const { pt } = await workers().run({ op: 'open', stored: stored.buffer, entry: entries[i] }, [stored.buffer]);
      out.set(new Uint8Array(pt), offsets[i]);
      done += entries[i].size;
      onProgress(done);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PIPELINE, entries.length) }, lane)).catch((e) => {
    failed = true;
    throw e;
  });
  return out;
}
