// primitives.js -- the cryptographic primitives the client format is built from, each named as
// in docs/CLIENT-FORMAT.md "Conventions": HKDF, AES-256-GCM, HMAC, SHA-256 and ES256 from
// WebCrypto (globalThis.crypto.subtle, in browsers and Node 20), BLAKE3 from @noble/hashes,
// JCS from canonicalize, HPKE (RFC 9180 base mode, P-256/HKDF-SHA256/AES-128-GCM) from
// @hpke/core. Keys are WebCrypto CryptoKeys; private keys may be non-extractable.
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { blake3 as nobleBlake3 } from '@noble/hashes/blake3.js';
import canonicalize from 'canonicalize';

import { FormatError, b64url, unb64url, utf8 } from './bytes.js';

const subtle = () => globalThis.crypto.subtle;

// ---- hashes and JCS ----------------------------------------------------------------------

export const blake3 = (bytes) => nobleBlake3(bytes);

export async function sha256(bytes) {
  return new Uint8Array(await subtle().digest('SHA-256', bytes));
}

// JCS(o): the UTF-8 bytes of the RFC 8785 canonical JSON of o. Numbers must be integers
// below 2^53 (the format never uses others), so a float is a bug, not data.
export function jcs(o) {
  checkIntegers(o);
  return utf8(canonicalize(o));
}
export const jcsText = (o) => {
  checkIntegers(o);
  return canonicalize(o);
};

function checkIntegers(v) {
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v)) throw new FormatError('JCS: only integers below 2^53');
  } else if (Array.isArray(v)) {
    v.forEach(checkIntegers);
  } else if (v && typeof v === 'object') {
    Object.values(v).forEach(checkIntegers);
  }
}

// ---- symmetric ---------------------------------------------------------------------------

// HKDF(ikm, info): HKDF-SHA256, empty salt unless one is given, 32 bytes out.
export async function hkdf(ikm, info, salt = new Uint8Array(0)) {
  const key = await subtle().importKey('raw', ikm, 'HKDF', false, ['deriveBits']);
  const bits = await subtle().deriveBits({ name: 'HKDF', hash: 'SHA-256', salt, info }, key, 256);
  return new Uint8Array(bits);
}

export async function hmacSha256(key, message) {
  const k = await subtle().importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle().sign('HMAC', k, message));
}

async function aesKey(key, usage) {
  if (key.length !== 32) throw new FormatError('AES-256-GCM needs a 32-byte key');
  return subtle().importKey('raw', key, 'AES-GCM', false, [usage]);
}

// AESGCM(k, n, aad, p) = ciphertext ‖ 16-byte tag.
export async function aesGcmSeal(key, nonce, aad, plaintext) {
  const k = await aesKey(key, 'encrypt');
  const ct = await subtle().encrypt({ name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 }, k, plaintext);
  return new Uint8Array(ct);
}

export async function aesGcmOpen(key, nonce, aad, sealed) {
  const k = await aesKey(key, 'decrypt');
  try {
    const pt = await subtle().decrypt({ name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 }, k, sealed);
    return new Uint8Array(pt);
  } catch {
    throw new FormatError('decryption failed (wrong key or altered data)');
  }
}

// ---- P-256 keys and ES256 ----------------------------------------------------------------

const ECDSA = { name: 'ECDSA', namedCurve: 'P-256' };
const ECDH = { name: 'ECDH', namedCurve: 'P-256' };

// The public JWK exactly as the format carries it: {kty, crv, x, y}, nothing else.
export function publicJwk(jwk) {
  const { kty, crv, x, y } = jwk;
  if (kty !== 'EC' || crv !== 'P-256' || typeof x !== 'string' || typeof y !== 'string' ||
      x.length !== 43 || y.length !== 43) {
    throw new FormatError('not a P-256 public JWK');
  }
  unb64url(x);
  unb64url(y);
  return { kty, crv, x, y };
}

export const sameJwk = (a, b) => a && b && a.x === b.x && a.y === b.y && a.crv === b.crv && a.kty === b.kty;

// Key pairs are made extractable only when their private part must go into a recovery kit;
// the caller then re-imports them with importPrivate(..., false).
export async function generateSigningKey(extractable = false) {
  return subtle().generateKey(ECDSA, extractable, ['sign', 'verify']);
}
export async function generateEncryptionKey(extractable = false) {
  return subtle().generateKey(ECDH, extractable, ['deriveBits']);
}

export async function exportJwk(key) {
  return subtle().exportKey('jwk', key);
}

// A private JWK {kty, crv, x, y, d} (a kit's or a vector's) → CryptoKeyPair.
export async function importSigningPair(jwk, extractable = false) {
  const { kty, crv, x, y, d } = jwk;
  const privateKey = await subtle().importKey('jwk', { kty, crv, x, y, d }, ECDSA, extractable, ['sign']);
  const publicKey = await importVerifyKey({ kty, crv, x, y });
  return { privateKey, publicKey };
}
export async function importEncryptionPair(jwk, extractable = false) {
  const { kty, crv, x, y, d } = jwk;
  const privateKey = await subtle().importKey('jwk', { kty, crv, x, y, d }, ECDH, extractable, ['deriveBits']);
  const publicKey = await subtle().importKey('jwk', publicJwk(jwk), ECDH, true, []);
  return { privateKey, publicKey };
}

export async function importVerifyKey(jwk) {
  return subtle().importKey('jwk', publicJwk(jwk), ECDSA, true, ['verify']);
}

// The order n of P-256. (R, S) and (R, n − S) are both valid signatures of one message;
// signers give the low one (S ≤ n/2, CLIENT-FORMAT "Conventions"), verifiers accept both.
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;

const bigOf = (bytes) => bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);

export const isLowS = (sig) => sig.length === 64 && bigOf(sig.subarray(32)) <= P256_N / 2n;

// A raw R‖S with S replaced by n − S when S > n/2; anything else unchanged.
export function lowS(sig) {
  if (sig.length !== 64 || isLowS(sig)) return sig;
  let s = P256_N - bigOf(sig.subarray(32));
  const out = new Uint8Array(sig);
  for (let i = 63; i >= 32; i--) {
    out[i] = Number(s & 0xffn);
    s >>= 8n;
  }
  return out;
}

// ES256(key, m): raw R‖S, 64 bytes (WebCrypto's own ECDSA output format), made low-S. A
// function in place of the key is called with the message instead (the vectors sign
// deterministically).
export async function es256Sign(privateKey, message) {
  const sig = typeof privateKey === 'function'
    ? await privateKey(message)
    : new Uint8Array(await subtle().sign({ name: 'ECDSA', hash: 'SHA-256' }, privateKey, message));
  return lowS(sig);
}

// Imported verify keys by `x.y` (the curve is always P-256), so checking many revisions or
// statements of one member imports its key once. Public keys only; bounded all the same.
const verifyKeys = new Map();
const VERIFY_KEYS_MAX = 1000;

function cachedVerifyKey(jwk) {
  const pub = publicJwk(jwk);
  const name = `${pub.x}.${pub.y}`;
  let key = verifyKeys.get(name);
  if (!key) {
    if (verifyKeys.size >= VERIFY_KEYS_MAX) verifyKeys.clear();
    key = importVerifyKey(pub);
    verifyKeys.set(name, key);
    key.catch(() => { if (verifyKeys.get(name) === key) verifyKeys.delete(name); });
  }
  return key;
}

export async function es256Verify(jwkOrKey, message, signature) {
  const key = jwkOrKey instanceof globalThis.CryptoKey ? jwkOrKey : await cachedVerifyKey(jwkOrKey);
  if (signature.length !== 64) return false;
  return subtle().verify({ name: 'ECDSA', hash: 'SHA-256' }, key, signature, message);
}

// RFC 7638 thumbprint of a P-256 public JWK, b64url (the service's `jkt`).
export async function jwkThumbprint(jwk) {
  const { crv, kty, x, y } = publicJwk(jwk);
  return b64url(await sha256(utf8(`{"crv":"${crv}","kty":"${kty}","x":"${x}","y":"${y}"}`)));
}

// ---- HPKE --------------------------------------------------------------------------------

export const hpkeSuite = new CipherSuite({
  kem: new DhkemP256HkdfSha256(),
  kdf: new HkdfSha256(),
  aead: new Aes128Gcm(),
});

// Seal(pk, info, p): single-shot base mode → {enc (65 bytes), ct}. The format always uses an
// empty aad; `aad` and `ekm` (key material for the ephemeral key) exist for the RFC 9180 test
// vectors and for making the format's vectors deterministic.
export async function hpkeSeal(recipientJwk, info, plaintext, ekm, aad) {
  const recipientPublicKey = await hpkeSuite.kem.importKey('jwk', publicJwk(recipientJwk), true);
  const params = { recipientPublicKey, info };
  if (ekm) params.ekm = ekm;
  const { ct, enc } = await hpkeSuite.seal(params, plaintext, aad);
  return { enc: new Uint8Array(enc), ct: new Uint8Array(ct) };
}

// Open with a CryptoKeyPair (its private key may be non-extractable).
export async function hpkeOpen(recipientPair, info, enc, ct, aad) {
  try {
    const pt = await hpkeSuite.open({ recipientKey: recipientPair, enc, info }, ct, aad);
    return new Uint8Array(pt);
  } catch {
    throw new FormatError('HPKE open failed (not sealed to this key, or altered)');
  }
}
