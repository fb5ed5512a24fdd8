// bytes.js -- byte helpers of the client format (docs/CLIENT-FORMAT.md "Conventions"): UTF-8,
// unpadded base64url, hex, big-endian integers, concatenation and UUID text. Hex, UTF-8
// encoding, concatenation and random bytes are @noble/hashes' utils; base64url and the
// bit packing under it (shared with the recovery code's base32) are here. Plain JavaScript,
// the same in the browser and in Node 20.
import { bytesToHex, concatBytes, randomBytes, utf8ToBytes } from '@noble/hashes/utils.js';

export { bytesToHex as hex, concatBytes as concat, randomBytes, utf8ToBytes as utf8 };

// Strict: bytes that are not UTF-8 throw (noble has no decoder).
const decoder = new TextDecoder('utf-8', { fatal: true });
export const fromUtf8 = (bytes) => decoder.decode(bytes);

// ---- bit packing -------------------------------------------------------------------------

// `count` values of `width` bits (1..8) each, valueAt(i) giving the i-th (it validates, and
// throws for a bad one), most significant bit first → {bytes, rest}: the whole bytes, and the
// leftover low bits that did not fill one (a canonical encoding wants them zero).
export function packBits(count, width, valueAt) {
  const out = new Uint8Array(Math.floor((count * width) / 8));
  let acc = 0;
  let bits = 0;
  let o = 0;
  for (let i = 0; i < count; i++) {
    acc = (acc << width) | valueAt(i);
    bits += width;
    if (bits >= 8) {
      bits -= 8;
      out[o++] = (acc >> bits) & 0xff;
    }
    acc &= (1 << bits) - 1;
  }
  return { bytes: out, rest: acc };
}

// The inverse: bytes → values of `width` bits, most significant bit first; a last partial
// group is filled with zero bits on the right.
export function unpackBits(bytes, width) {
  const mask = (1 << width) - 1;
  const out = [];
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= width) {
      bits -= width;
      out.push((acc >> bits) & mask);
    }
    acc &= (1 << bits) - 1;
  }
  if (bits > 0) out.push((acc << (width - bits)) & mask);
  return out;
}

// ---- base64url ---------------------------------------------------------------------------

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const B64URL_INDEX = new Int16Array(128).fill(-1);
for (let i = 0; i < B64URL.length; i++) B64URL_INDEX[B64URL.charCodeAt(i)] = i;

// b64url(x): RFC 4648 §5 without padding.
export function b64url(bytes) {
  let out = '';
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8) | bytes[i + 2];
    out += B64URL[n >> 18] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63] + B64URL[n & 63];
  }
  if (i + 1 === bytes.length) {
    const n = bytes[i] << 16;
    out += B64URL[n >> 18] + B64URL[(n >> 12) & 63];
  } else if (i + 2 === bytes.length) {
    const n = (bytes[i] << 16) | (bytes[i + 1] << 8);
    out += B64URL[n >> 18] + B64URL[(n >> 12) & 63] + B64URL[(n >> 6) & 63];
  }
  return out;
}

// Strict decoding: only the alphabet, no padding, no length 4k+1, unused low bits zero (the
// one canonical encoding, as the service requires of bundles). Throws FormatError otherwise.
export function unb64url(s) {
  if (typeof s !== 'string' || s.length % 4 === 1) throw new FormatError('not base64url');
  const { bytes, rest } = packBits(s.length, 6, (i) => {
    const c = s.charCodeAt(i);
    const v = c < 128 ? B64URL_INDEX[c] : -1;
    if (v < 0) throw new FormatError('not base64url');
    return v;
  });
  if (rest !== 0) throw new FormatError('not canonical base64url');
  return bytes;
}

// ---- integers and ids --------------------------------------------------------------------

// u64be(n) for 0 <= n < 2^53.
export function u64be(n) {
  if (!Number.isSafeInteger(n) || n < 0) throw new FormatError('u64be needs a safe non-negative integer');
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, BigInt(n));
  return out;
}

export function u32be(n) {
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new FormatError('u32be out of range');
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, n);
  return out;
}

export function readU32be(bytes, at) {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(at);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// id(u): the canonical lower-case text of a UUID, as bytes. Upper case is accepted on input.
export function uuidText(u) {
  const s = String(u).toLowerCase();
  if (!UUID_RE.test(s)) throw new FormatError(`not a UUID: ${u}`);
  return s;
}
export const id = (u) => utf8ToBytes(uuidText(u));

// Whether `s` is a UUID in its canonical lower-case text form (what ids in URLs must be).
export const isUuid = (s) => typeof s === 'string' && UUID_RE.test(s);

// A random (version 4) UUID in lower case.
export const randomUuid = () => globalThis.crypto.randomUUID();

// A value that does not follow the client format: bad encoding, a failed check, a wrong
// signature. Callers show its message; it never holds key material.
export class FormatError extends Error {
  constructor(message) {
    super(message);
    this.name = 'FormatError';
  }
}
