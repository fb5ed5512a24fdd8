// chunk_worker.js -- the chunk worker (bundled as /chunk-worker.js): seals and opens a large
// file's chunks (docs/CLIENT-FORMAT.md "Chunks") off the page's main thread, with format.js's
// sealChunk/openChunk and BLAKE3 from hash-wasm (WebAssembly, some 15× @noble's JavaScript;
// the page's CSP allows 'wasm-unsafe-eval' for it). Its one caller is chunks.js. Messages:
//   {id, op: 'seal', buffer, size, reuse}   → {id, entry, stored}, or {id, hash} for a
//                                             plaintext (buffer's first size bytes) whose
//                                             hash is in `reuse`
//   {id, op: 'open', stored, entry}         → {id, pt}
//   a failure                               → {id, error, format: a FormatError?}
// Byte buffers travel transferred, never copied.
import { createBLAKE3 } from 'hash-wasm';

import { FormatError, b64url } from './bytes.js';
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

async function open({ id, stored, entry }) {
  const pt = await openChunk(new Uint8Array(stored), entry, await hash());
  return [{ id, pt: pt.buffer }, [pt.buffer]];
}

self.onmessage = async ({ data }) => {
  try {
    const [reply, transfer] = await (data.op === 'seal' ? seal(data) : open(data));
    self.postMessage(reply, transfer);
  } catch (e) {
    self.postMessage({ id: data.id, error: String(e?.message || e), format: e instanceof FormatError });
  }
};
