// gen.mjs -- deterministic random inputs for the interop checks: a seeded PRNG, JSON bodies
// full of JCS traps (UTF-16 vs UTF-8 key order, escapes, control characters, deep nesting,
// integers up to ±(2^53-1)), a serializer that writes them with random escapes and
// whitespace, and a tamperer that changes exactly one leaf. Plain Node, no packages.

// sfc32: small, fast and fully determined by the seed, so a failure is reproducible with
// INTEROP_SEED=<printed seed>.
export function makeRng(seed) {
  let a = 0x9e3779b9, b = 0x243f6a88, c = 0xb7e15162, d = seed >>> 0;
  const next = () => {
    a >>>= 0; b >>>= 0; c >>>= 0; d >>>= 0;
    const t = (a + b + d) >>> 0;
    d = (d + 1) >>> 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) >>> 0;
    c = ((c << 21) | (c >>> 11)) >>> 0;
    c = (c + t) >>> 0;
    return t >>> 0;
  };
  for (let i = 0; i < 20; i++) next();
  const rng = {
    u32: next,
    int: (n) => next() % n,  // 0..n-1 (bias irrelevant here)
    pick: (arr) => arr[next() % arr.length],
    chance: (p) => next() / 4294967296 < p,
    bytes: (n) => Uint8Array.from({ length: n }, () => next() & 0xff),
  };
  return rng;
}

const MAX_SAFE = Number.MAX_SAFE_INTEGER;  // 2^53 - 1

// Characters chosen for what they break: quote and backslash need escapes; C0 controls and
// DEL test escaping rules; U+2028/2029 are legal raw in JSON; U+FB33 (BMP, high code unit)
// and U+1F602 (astral, surrogate D83D) sort in opposite orders by UTF-16 code units and by
// UTF-8 bytes; U+FFFF and U+10FFFF are the edges of the planes; é and 中 are 2 and 3 bytes.
const TRICKY = [
  '"', '\\', '/', '\b', '\f', '\n', '\r', '\t', '\u0000', '\u0001', '\u001f', '\u007f',
  '\u0080', '\u00e9', '\u2028', '\u2029', '\ufb33', '\ufeff', '\uffff', '\u{1f602}',
  '\u{10000}', '\u{10ffff}', '\u4e2d', '\ud7ff', '\ue000', ' ', '~',
];
const PLAIN = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-';

function randomString(rng, maxLen) {
  const len = rng.int(maxLen + 1);
  let s = '';
  for (let i = 0; i < len; i++) {
    if (rng.chance(0.45)) s += rng.pick(TRICKY);
    else if (rng.chance(0.1)) s += String.fromCodePoint(0x80 + rng.int(0x110000 - 0x80));
    else s += PLAIN[rng.int(PLAIN.length)];
  }
  // The random code point above may be a lone surrogate, which JCS cannot represent:
  // replace those with a character that sorts near them.
  return s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g,
                   '\ufb33');
}

// Keys drawn from a small pool so that siblings collide in interesting orders.
const KEY_POOL = [
  '', 'a', 'A', 'b', '1', '10', '111', '\u{1f602}', '\ufb33', '\u00e9', 'e\u0301', '\u0080',
  '\u007f', '\n', '\t', ' ', '"', '\\', 'aa', 'a\u0000', '\u{10ffff}', '\uffff', 'key',
  'Key', 'ops', 'epoch', '\u4e2d', '\ue000',
];

function randomInt(rng) {
  switch (rng.int(6)) {
    case 0: return rng.pick([0, 1, -1, MAX_SAFE, -MAX_SAFE, MAX_SAFE - 1, 2 ** 31, -(2 ** 31),
                             2 ** 32, 2 ** 32 - 1, 1e15, 999999999999999]);
    case 1: return rng.int(100) - 50;
    default: {
      // up to 53 significant bits from two draws
      const hi = rng.u32() % 0x200000;  // 21 bits
      const v = hi * 4294967296 + rng.u32();
      const clamped = v > MAX_SAFE ? MAX_SAFE : v;
      return rng.chance(0.5) ? -clamped : clamped;
    }
  }
}

export function randomValue(rng, depth = 0) {
  const r = rng.int(depth >= 4 ? 4 : 7);
  switch (r) {
    case 0: return randomString(rng, 10);
    case 1: return randomInt(rng);
    case 2: return rng.pick([true, false, null]);
    case 3: return randomString(rng, 3);
    case 4:
    case 5: return randomObject(rng, depth + 1);
    default: return Array.from({ length: rng.int(5) }, () => randomValue(rng, depth + 1));
  }
}

export function randomObject(rng, depth = 0) {
  const obj = {};
  const n = depth === 0 ? 1 + rng.int(8) : rng.int(6);
  for (let i = 0; i < n; i++) {
    const k = rng.chance(0.7) ? rng.pick(KEY_POOL) : randomString(rng, 6);
    obj[k] = randomValue(rng, depth);
  }
  return obj;
}

// ---- serialization with random (but valid) spelling --------------------------------------

const WS = [' ', '\t', '\n', '\r'];
function ws(rng) {
  if (!rng.chance(0.25)) return '';
  let s = '';
  for (let i = 1 + rng.int(3); i > 0; i--) s += rng.pick(WS);
  return s;
}

function hex4(rng, unit) {
  const h = unit.toString(16).padStart(4, '0');
  return '\\u' + (rng.chance(0.5) ? h : h.toUpperCase());
}

const SHORT = { '"': '\\"', '\\': '\\\\', '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r',
                '\t': '\\t' };

function writeString(rng, s) {
  let out = '"';
  for (const ch of s) {  // by code point
    const cp = ch.codePointAt(0);
    const must = cp < 0x20 || ch === '"' || ch === '\\';
    if (!must && !rng.chance(0.15)) { out += ch; continue; }
    if (SHORT[ch] && rng.chance(0.7)) { out += SHORT[ch]; continue; }
    if (ch === '/' && rng.chance(0.5)) { out += '\\/'; continue; }
    for (let i = 0; i < ch.length; i++) out += hex4(rng, ch.charCodeAt(i));  // surrogate pairs
  }
  return out + '"';
}

export function serialize(rng, v) {
  if (v === null || typeof v === 'boolean') return String(v);
  if (typeof v === 'number') return String(v);  // integers only: no exponent for |v| < 1e21
  if (typeof v === 'string') return writeString(rng, v);
  if (Array.isArray(v)) {
    return '[' + ws(rng) + v.map((e) => serialize(rng, e)).join(ws(rng) + ',' + ws(rng)) +
           ws(rng) + ']';
  }
  // Insertion order is JS's own order (integer-like keys first), never the JCS order.
  const parts = Object.keys(v).map(
      (k) => writeString(rng, k) + ws(rng) + ':' + ws(rng) + serialize(rng, v[k]));
  return '{' + ws(rng) + parts.join(ws(rng) + ',' + ws(rng)) + ws(rng) + '}';
}

// ---- tampering ----------------------------------------------------------------------------

// Returns a deep copy of v with exactly one semantic change (one leaf value, one key, or one
// added element), chosen at random among all places.
export function tamper(rng, v) {
  const copy = structuredClone(v);
  const sites = [];
  const walk = (node, set) => {
    if (Array.isArray(node)) {
      sites.push(() => node.push(0));
      node.forEach((e, i) => walk(e, (nv) => { node[i] = nv; }));
    } else if (node !== null && typeof node === 'object') {
      sites.push(() => { let k = 'x'; while (k in node) k += 'x'; node[k] = null; });
      for (const k of Object.keys(node)) {
        sites.push(() => {
          let nk = k + 'z';
          while (nk in node) nk += 'z';
          const val = node[k];
          delete node[k];
          node[nk] = val;
        });
        walk(node[k], (nv) => { node[k] = nv; });
      }
    } else if (typeof node === 'string') {
      // by code point: cutting a surrogate pair in half would leave a lone surrogate
      const cps = Array.from(node);
      sites.push(() => set(cps.length ? cps.slice(0, -1).join('') + (node.endsWith('a') ? 'b' : 'a')
                                      : 'a'));
    } else if (typeof node === 'number') {
      sites.push(() => set(node === MAX_SAFE ? node - 1 : node + 1));
    } else if (typeof node === 'boolean') {
      sites.push(() => set(!node));
    } else {
      sites.push(() => set(0));
    }
  };
  walk(copy, () => { throw new Error('the root is an object'); });
  rng.pick(sites)();
  return copy;
}

// Flips one bit of one byte (never a no-op, unlike changing a b64url character whose low
// bits may be unused).
export function flipByte(rng, bytes) {
  const out = Uint8Array.from(bytes);
  out[rng.int(out.length)] ^= 1 << rng.int(8);
  return out;
}
