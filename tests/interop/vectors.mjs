// vectors.mjs -- checks docs/client-format-vectors.json twice: with the web app's own crypto
// module (clients/web/src/crypto), and with independent code built here from @noble/hashes,
// @noble/curves, node:crypto's AES-GCM, canonicalize and @hpke/core, including an RFC 9180
// base-mode open written from the RFC's steps. Also RFC 9180 §A.3.1 against both, tampered
// inputs that must be refused, and CLIENT-FORMAT.md's rules on the vectors themselves (the
// size rule, low-S, rotated_to, the reader's refusals, content shapes and every other constraint
// the file can show). Prints `PASS name` /
// `FAIL name: detail`; exits 1 on any failure. Run by run.sh with POUCH_ROOT set.
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { p256 } from '@noble/curves/nist.js';
import { blake3 } from '@noble/hashes/blake3.js';
import { expand, extract, hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import canonicalize from 'canonicalize';

const ROOT = process.env.POUCH_ROOT;
const V = JSON.parse(fs.readFileSync(path.join(ROOT, 'docs/client-format-vectors.json'), 'utf8'));
const webUrl = (f) => pathToFileURL(path.join(ROOT, 'clients/web', f)).href;
const W = await import(webUrl('src/crypto/format.js'));
const WP = await import(webUrl('src/crypto/primitives.js'));
const WC = await import(webUrl('src/crypto/cdc.js'));
const { FormatError } = await import(webUrl('src/crypto/bytes.js'));
const { makeVectors } = await import(webUrl('tools/vectors.mjs'));

let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    if (detail) throw new Error(detail);
    console.log(`PASS ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}
function eq(what, got, want) {
  if (got !== want) throw new Error(`${what}: got ${String(got).slice(0, 120)}, want ${String(want).slice(0, 120)}`);
}
// A refusal is a `false` answer or the web crypto module's own FormatError; any other
// exception (a TypeError of a broken fixture, say) is a failure of the check, not a refusal.
async function refuses(what, promiseFn) {
  let r;
  try {
    r = await promiseFn();
  } catch (e) {
    if (e instanceof FormatError) return;
    throw new Error(`${what} threw ${e?.name}: ${e?.message} instead of refusing`);
  }
  if (r === false) return;
  throw new Error(`${what} was accepted`);
}

// ---- independent helpers -------------------------------------------------------------------

const te = new TextEncoder();
const utf8 = (s) => te.encode(s);
const hx = (b) => Buffer.from(b).toString('hex');
const unhx = (s) => new Uint8Array(Buffer.from(s, 'hex'));
const b64u = (b) => Buffer.from(b).toString('base64url');
const unb64u = (s) => new Uint8Array(Buffer.from(s, 'base64url'));
const cat = (...a) => new Uint8Array(Buffer.concat(a.map((x) => Buffer.from(x))));
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64BE(BigInt(n)); return b; };
const hk = (ikm, info, salt = new Uint8Array(0)) => hkdf(sha256, ikm, salt, info, 32);
const pubBytes = (jwk) => cat([4], unb64u(jwk.x), unb64u(jwk.y));
const es256ok = (jwk, msg, sig) => p256.verify(sig, msg, pubBytes(jwk), { lowS: false });

function gcmOpen(key, nonce, aad, sealed) {
  const d = nodeCrypto.createDecipheriv(key.length === 16 ? 'aes-128-gcm' : 'aes-256-gcm', key, nonce);
  d.setAAD(aad);
  d.setAuthTag(sealed.subarray(sealed.length - 16));
  return new Uint8Array(Buffer.concat([d.update(sealed.subarray(0, sealed.length - 16)), d.final()]));
}
function gcmSeal(key, nonce, aad, pt) {
  const c = nodeCrypto.createCipheriv(key.length === 16 ? 'aes-128-gcm' : 'aes-256-gcm', key, nonce);
  c.setAAD(aad);
  return new Uint8Array(Buffer.concat([c.update(pt), c.final(), c.getAuthTag()]));
}

// RFC 9180 base-mode single-shot open for DHKEM(P-256, HKDF-SHA256)/HKDF-SHA256/AES-128-GCM,
// step by step from §4.1 (DHKEM), §5.1 (key schedule) and §5.2 (open), on @noble primitives.
const KEM_SUITE = cat(utf8('KEM'), [0x00, 0x10]);
const HPKE_SUITE = cat(utf8('HPKE'), [0x00, 0x10, 0x00, 0x01, 0x00, 0x01]);
const labeledExtract = (suite, salt, label, ikm) => extract(sha256, cat(utf8('HPKE-v1'), suite, utf8(label), ikm), salt);
const labeledExpand = (suite, prk, label, info, L) =>
  expand(sha256, prk, cat([L >> 8, L & 255], utf8('HPKE-v1'), suite, utf8(label), info), L);
function hpkeOpenIndependent(skR, info, enc, ct, aad = new Uint8Array(0)) {
  const pkR = p256.getPublicKey(skR, false);
  const dh = p256.getSharedSecret(skR, enc, true).subarray(1);       // x coordinate
  const eaePrk = labeledExtract(KEM_SUITE, new Uint8Array(0), 'eae_prk', dh);
  const shared = labeledExpand(KEM_SUITE, eaePrk, 'shared_secret', cat(enc, pkR), 32);
  const pskIdHash = labeledExtract(HPKE_SUITE, new Uint8Array(0), 'psk_id_hash', new Uint8Array(0));
  const infoHash = labeledExtract(HPKE_SUITE, new Uint8Array(0), 'info_hash', info);
  const context = cat([0], pskIdHash, infoHash);
  const secret = labeledExtract(HPKE_SUITE, shared, 'secret', new Uint8Array(0));
  const key = labeledExpand(HPKE_SUITE, secret, 'key', context, 16);
  const nonce = labeledExpand(HPKE_SUITE, secret, 'base_nonce', context, 12);
  return gcmOpen(key, nonce, aad, ct);
}
const dOf = (jwk) => unb64u(jwk.d);

const hpke = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
async function hpkeCoreOpen(privJwk, info, enc, ct, aad) {
  const { kty, crv, x, y, d } = privJwk;
  const privateKey = await hpke.kem.importKey('jwk', { kty, crv, x, y, d }, false);
  const publicKey = await hpke.kem.importKey('jwk', { kty, crv, x, y }, true);
  return new Uint8Array(await hpke.open({ recipientKey: { privateKey, publicKey }, enc, info }, ct, aad));
}
function jwkFromRaw(skHex) {
  const d = unhx(skHex);
  const pub = p256.getPublicKey(d, false);
  return { kty: 'EC', crv: 'P-256', x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33)), d: b64u(d) };
}

// ---- the checks ----------------------------------------------------------------------------

await check('vectors_file_is_what_the_web_module_makes', async () => {
  const made = JSON.stringify(await makeVectors(), null, 2) + '\n';
  const file = fs.readFileSync(path.join(ROOT, 'docs/client-format-vectors.json'), 'utf8');
  if (made !== file) return 'docs/client-format-vectors.json is stale: run node clients/web/tools/vectors.mjs --write docs/client-format-vectors.json';
});

await check('hpke_rfc9180_a31_independent_and_hpke_core', async () => {
  const a = V.hpke_rfc9180_a3;
  eq('skRm → pkRm', hx(p256.getPublicKey(unhx(a.skRm_hex), false)), a.pkRm_hex);
  eq('independent open', hx(hpkeOpenIndependent(unhx(a.skRm_hex), unhx(a.info_hex), unhx(a.enc_hex), unhx(a.ct_hex), unhx(a.aad_hex))), a.pt_hex);
  eq('@hpke/core open', hx(await hpkeCoreOpen(jwkFromRaw(a.skRm_hex), unhx(a.info_hex), unhx(a.enc_hex), unhx(a.ct_hex), unhx(a.aad_hex))), a.pt_hex);
  const pkR = await hpke.kem.deserializePublicKey(unhx(a.pkRm_hex));
  const sealed = await hpke.seal({ recipientPublicKey: pkR, info: unhx(a.info_hex), ekm: unhx(a.ikmE_hex) }, unhx(a.pt_hex), unhx(a.aad_hex));
  eq('@hpke/core seal enc', hx(new Uint8Array(sealed.enc)), a.enc_hex);
  eq('@hpke/core seal ct', hx(new Uint8Array(sealed.ct)), a.ct_hex);
});

await check('hpke_rfc9180_a31_web_module', async () => {
  const a = V.hpke_rfc9180_a3;
  const pair = await WP.importEncryptionPair(jwkFromRaw(a.skRm_hex));
  eq('open', hx(await WP.hpkeOpen(pair, unhx(a.info_hex), unhx(a.enc_hex), unhx(a.ct_hex), unhx(a.aad_hex))), a.pt_hex);
  const { enc, ct } = await WP.hpkeSeal(jwkFromRaw(a.skRm_hex), unhx(a.info_hex), unhx(a.pt_hex), unhx(a.ikmE_hex), unhx(a.aad_hex));
  eq('seal enc', hx(enc), a.enc_hex);
  eq('seal ct', hx(ct), a.ct_hex);
  await refuses('a flipped ciphertext', () => WP.hpkeOpen(pair, unhx(a.info_hex), unhx(a.enc_hex), unhx(a.ct_hex.replace(/^5a/, '5b')), unhx(a.aad_hex)));
});

await check('primitives_independent', async () => {
  const p = V.primitives;
  for (const c of p.jcs) eq('JCS', canonicalize(c.input), c.output);
  for (const c of p.blake3) eq('BLAKE3', hx(blake3(unhx(c.input_hex))), c.hash_hex);
  for (const c of p.blake3) eq('BLAKE3 b64url', b64u(unhx(c.hash_hex)), c.hash_b64url);
  for (const c of p.hkdf_sha256) eq('HKDF', hx(hk(unhx(c.ikm_hex), unhx(c.info_hex), unhx(c.salt_hex))), c.okm_hex);
  for (const c of p.hmac_sha256) eq('HMAC', hx(hmac(sha256, unhx(c.key_hex), unhx(c.message_hex))), c.mac_hex);
  for (const c of p.aes_256_gcm) eq('AES-GCM', hx(gcmSeal(unhx(c.key_hex), unhx(c.nonce_hex), unhx(c.aad_hex), unhx(c.plaintext_hex))), c.sealed_hex);
  for (const c of p.es256) eq('ES256 verify', es256ok(c.public_jwk, unhx(c.message_hex), unb64u(c.signature_b64url)), c.valid);
  for (const c of p.jwk_thumbprint) {
    const { crv, kty, x, y } = c.public_jwk;
    eq('jkt', b64u(sha256(utf8(JSON.stringify({ crv, kty, x, y })))), c.jkt);
  }
  for (const [name, k] of Object.entries(V.keys)) {
    const pub = p256.getPublicKey(dOf(k.private_jwk), false);
    eq(`key ${name}`, b64u(pub.subarray(1, 33)) + b64u(pub.subarray(33)), k.public_jwk.x + k.public_jwk.y);
  }
});

await check('primitives_web_module', async () => {
  const p = V.primitives;
  for (const c of p.jcs) eq('JCS', WP.jcsText(c.input), c.output);
  for (const c of p.hkdf_sha256) eq('HKDF', hx(await WP.hkdf(unhx(c.ikm_hex), unhx(c.info_hex), unhx(c.salt_hex))), c.okm_hex);
  for (const c of p.aes_256_gcm) {
    eq('AES-GCM open', hx(await WP.aesGcmOpen(unhx(c.key_hex), unhx(c.nonce_hex), unhx(c.aad_hex), unhx(c.sealed_hex))), c.plaintext_hex);
  }
  for (const c of p.es256) eq('ES256 verify', await WP.es256Verify(c.public_jwk, unhx(c.message_hex), unb64u(c.signature_b64url)), c.valid);
  for (const c of p.jwk_thumbprint) eq('jkt', await WP.jwkThumbprint(c.public_jwk), c.jkt);
});

await check('roster_chain_independent', async () => {
  const r = V.roster;
  let prev = '';
  for (const e of r.entries) {
    eq('JCS of body', canonicalize(e.body), e.jcs);
    eq('statement', e.statement, b64u(utf8(e.jcs)));
    eq('prev', e.body.prev, prev);
    eq('seq', e.body.seq, e.index);
    eq('signature', es256ok(r.signer_public_jwk, utf8(e.jcs), unb64u(e.signature)), true);
    eq('hash', e.hash, b64u(blake3(utf8(e.statement))));
    prev = e.hash;
  }
  eq('genesis_hash', r.genesis_hash, r.entries[0].hash);
});

// ---- the format's documented rules, on the vectors ----------------------------------------

const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const lowS = (sig) => BigInt(`0x${hx(sig.subarray(32))}`) <= P256_N / 2n;

await check('es256_low_s_and_high_s_both_verify', async () => {
  const es = V.primitives.es256;
  for (const c of es) eq('low_s flag', lowS(unb64u(c.signature_b64url)), c.low_s);
  eq('[0] is a valid low-S signature', es[0].valid && es[0].low_s, true);
  eq('[1] is its valid high-S twin', es[1].valid && !es[1].low_s, true);
  const [a, b] = [unb64u(es[0].signature_b64url), unb64u(es[1].signature_b64url)];
  eq('same R', hx(a.subarray(0, 32)), hx(b.subarray(0, 32)));
  eq('S + S\' = n', BigInt(`0x${hx(a.subarray(32))}`) + BigInt(`0x${hx(b.subarray(32))}`), P256_N);
  eq('noble (strict low-S) refuses the high one', p256.verify(b, unhx(es[1].message_hex), pubBytes(es[1].public_jwk)), false);
  eq('the web module accepts the high one', await WP.es256Verify(es[1].public_jwk, unhx(es[1].message_hex), b), true);
});

// Every signature a signer made in the file is low-S; only primitives.es256[1] is high, on purpose.
await check('every_signature_in_the_vectors_is_low_s', async () => {
  let n = 0;
  const walk = (o, where) => {
    if (Array.isArray(o)) o.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (o && typeof o === 'object') for (const [k, v] of Object.entries(o)) walk(v, `${where}.${k}`);
    if (/\.(signature|signature_b64url)$/.test(where) && typeof o === 'string' && where !== '.primitives.es256[1].signature_b64url') {
      n++;
      if (!lowS(unb64u(o))) throw new Error(`${where} is high-S`);
    }
  };
  walk(V, '');
  if (n < 15) return `only ${n} signatures found`;
});

await check('the_size_rule_and_content_shapes_hold_in_the_vectors', async () => {
  for (const a of V.artifacts) {
    const c = a.content;
    if (c.deleted) {
      eq('a tombstone has size 0', c.size, 0);
      eq('and neither data nor chunks', 'data' in c || 'chunks' in c, false);
    } else if (c.size <= 65536) {
      eq(`${c.name}: data`, typeof c.data, 'string');
      eq(`${c.name}: no chunks`, 'chunks' in c, false);
      eq(`${c.name}: data has size bytes`, unb64u(c.data).length, c.size);
    } else {
      eq(`${c.name}: chunks`, Array.isArray(c.chunks), true);
      eq(`${c.name}: no data`, 'data' in c, false);
      eq(`${c.name}: chunk sizes add up`, c.chunks.reduce((t, x) => t + x.size, 0), c.size);
      for (const x of c.chunks) {
        eq('chunk size', x.size <= 4194304 && x.size > 0, true);
        for (const f of ['blob_id', 'key', 'hash']) eq(`chunk ${f}`, /^[A-Za-z0-9_-]{43}$/.test(x[f]), true);
      }
    }
    eq('name_index length', a.name_index.length, 43);
    W.checkContent(c);
  }
  eq('the chunked artifact is one byte past the inline limit', V.artifacts[1].content.size, 65537);
  eq('its chunk is chunks[0]', V.artifacts[1].content.chunks[0].blob_id, V.chunks[0].entry.blob_id);
  eq('chunks[0] holds the whole file', unhx(V.chunks[0].plaintext_hex).length, 65537);
  for (const c of V.chunks) eq('stored_size', c.stored_size, c.entry.size + 28);
});

await check('remove_statements_carry_rotated_to_and_only_they', async () => {
  for (const e of V.roster.entries) {
    const n = Object.keys(e.body).length;
    if (e.body.kind === 'remove') {
      eq('remove members', n, 12);
      eq('rotated_to >= 2', Number.isSafeInteger(e.body.rotated_to) && e.body.rotated_to >= 2, true);
    } else {
      eq(`${e.body.kind} members`, n, 11);
      eq(`${e.body.kind} has no rotated_to`, 'rotated_to' in e.body, false);
    }
    eq('label of at most 64 characters', [...e.body.label].length <= 64, true);
    eq('time with Z and whole seconds', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(e.body.at), true);
  }
  eq('the vectors\' rotated_to', V.roster.entries[2].body.rotated_to, V.refusals.rotated_to);
});

// The rest of CLIENT-FORMAT.md's constraints that the file itself can show, each checked here
// with code of its own (not the web module's): a change to the doc's rules or to the file that
// breaks one fails this check.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const B64 = (n) => new RegExp(`^[A-Za-z0-9_-]{${n}}$`);
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
// decisions §15's label rule, written out again: 1-64 code points in NFC, no C0/C1/DEL, no bidi
// control, no / or \, no white space at either end.
const labelOk = (l) => typeof l === 'string' && [...l].length >= 1 && [...l].length <= 64 && l.normalize('NFC') === l
  && !/[\u0000-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069/\\]/.test(l) && !/^\s|\s$/u.test(l);
// The name rule of "Artifact envelope": NFC, no leading /, no empty, . or .. segment.
const nameOk = (n) => n.normalize('NFC') === n && !n.startsWith('/') && n.split('/').every((g) => g !== '' && g !== '.' && g !== '..');

await check('the_documented_constraints_hold_in_the_vectors', async () => {
  const jwkOk = (j, priv = false) => Object.keys(j).sort().join() === (priv ? 'crv,d,kty,x,y' : 'crv,kty,x,y')
    && j.kty === 'EC' && j.crv === 'P-256' && B64(43).test(j.x) && B64(43).test(j.y) && (!priv || B64(43).test(j.d));
  for (const [name, k] of Object.entries(V.keys)) {
    eq(`keys.${name}: a public JWK has exactly kty, crv, x, y of 43 characters`, jwkOk(k.public_jwk), true);
    eq(`keys.${name}: a private JWK adds d`, jwkOk(k.private_jwk, true), true);
  }
  for (const [name, u] of Object.entries(V.ids)) eq(`ids.${name} is a lower-case UUID`, UUID.test(u), true);
  // Every ES256 signature a signer made is 64 bytes: 86 characters.
  const sigs = [];
  const walk = (o, where) => {
    if (Array.isArray(o)) o.forEach((x, i) => walk(x, `${where}[${i}]`));
    else if (o && typeof o === 'object') for (const [k, x] of Object.entries(o)) walk(x, `${where}.${k}`);
    else if (/\.(signature|signature_b64url)$/.test(where)) sigs.push([where, o]);
  };
  walk(V, '');
  for (const [where, sig] of sigs) eq(`${where} has 86 characters`, B64(86).test(sig), true);

  // Roster: genesis by itself, add and genesis without a device id, a remove that names the
  // removed member's own keys, labels under the label rule, times with Z and whole seconds.
  const [g, add, rem] = V.roster.entries.map((e) => e.body);
  eq('statement 0 is a genesis by its own member', `${g.kind} ${g.by === g.member_id} ${g.prev}`, 'genesis true ');
  eq('statement 1 follows the genesis hash', add.prev, V.roster.genesis_hash);
  eq('genesis and add have no device id', `${g.device_id} ${add.device_id}`, 'null null');
  eq('the remove removes the added member', `${rem.kind} ${rem.member_id}`, `remove ${add.member_id}`);
  eq('with that member\'s keys', canonicalize([rem.sign_pub, rem.enc_pub]), canonicalize([add.sign_pub, add.enc_pub]));
  eq('a remove names the device', UUID.test(rem.device_id), true);
  for (const e of V.roster.entries) {
    eq(`statement ${e.index}: label "${e.body.label}" under the label rule`, labelOk(e.body.label), true);
    eq(`statement ${e.index}: ids lower case`, UUID.test(e.body.by) && UUID.test(e.body.member_id), true);
    eq(`statement ${e.index}: JWKs`, jwkOk(e.body.sign_pub) && jwkOk(e.body.enc_pub), true);
  }
  const active = new Set();
  for (const e of V.roster.entries) {
    if (e.body.kind === 'remove') active.delete(e.body.member_id);
    else active.add(e.body.member_id);
    const n = String(e.index + 1);
    if (V.roster.active_after[n]) eq(`active after ${n}`, [...active].sort().join(), V.roster.active_after[n].join());
  }
  eq('time of the recovery kit', TIME.test(V.recovery_kit.kit.created_at), true);

  // Key envelopes: the inputs named beside it, the fixed lengths on every envelope.
  const k = V.key_envelope;
  eq('key_envelope carries its inputs', canonicalize([k.envelope.pouch_id, k.envelope.member_id, k.envelope.key_gen, k.envelope.created_by_member]),
    canonicalize([k.pouch_id, k.member_id, k.key_gen, k.created_by_member]));
  for (const e of [k.envelope, ...V.refusals.key_envelopes.map((c) => c.envelope)]) {
    eq('hpke_enc: a 65-byte point, 87 characters', B64(87).test(e.hpke_enc) && unb64u(e.hpke_enc)[0] === 4, true);
    eq('ciphertext: 48 bytes, 64 characters', B64(64).test(e.ciphertext), true);
    eq('key_gen an integer of 1 or more', Number.isSafeInteger(e.key_gen) && e.key_gen >= 1, true);
  }

  // Artifacts: names under the name rule; the NFD name_index case; the share's name a last
  // segment.
  for (const a of V.artifacts) eq(`artifact name ${a.content.name}`, nameOk(a.content.name), true);
  eq('a name_index case given in NFD', V.name_index.some((n) => n.name !== n.name.normalize('NFC')), true);
  eq('share meta.name is a last path segment', !V.share.meta.name.includes('/') && V.share.meta.name.length > 0, true);

  // The welcome: this roster's genesis, the add of the CLI, the approving web member.
  const w = V.welcome.welcome;
  eq('welcome genesis_hash', w.genesis_hash, V.roster.genesis_hash);
  eq('welcome roster_head', `${w.roster_head.seq} ${w.roster_head.hash}`, `1 ${V.roster.entries[1].hash}`);
  eq('welcome approver', canonicalize(w.approver), canonicalize({ member_id: g.member_id, sign_pub: g.sign_pub, enc_pub: g.enc_pub }));

  // The recovery code: 32 Crockford characters in eight groups of four; the typed form uses
  // lower case, spaces, O for 0 and L for 1 where the code has them.
  const rk = V.recovery_kit;
  eq('recovery code shape', /^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){7}$/.test(rk.code), true);
  eq('typed form', rk.code_as_typed, rk.code.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l'));
  eq('the typed form differs from the code', rk.code_as_typed !== rk.code, true);

  // The approval link: keys= + 175 characters + &n= + 22, the code and fingerprint shapes.
  for (const c of V.confirm_code_v2) {
    const frag = c.link.slice(c.link.indexOf('#') + 1);
    eq('fragment shape', /^keys=[A-Za-z0-9_.-]{175}&n=[A-Za-z0-9_-]{22}$/.test(frag), true);
    eq('link before the fragment', c.link.slice(0, c.link.indexOf('#')), `${c.origin}/cli/approve?request=${c.request_id}`);
    eq('origin without a trailing slash', c.origin.endsWith('/'), false);
    eq('code shape', /^\d{4}-\d{4}-\d{4}$/.test(c.code), true);
    eq('fingerprint shape', /^[A-Za-z0-9_-]{4}( [A-Za-z0-9_-]{4}){3}$/.test(c.fingerprint), true);
    eq('nonce: 16 bytes', unhx(c.nonce_hex).length, 16);
  }
  for (const c of V.confirm_code) eq('v1 code shape', /^\d{4}-\d{4}$/.test(c.code), true);

  // The refusals show each case the doc names: every refusal of steps 1-4, an envelope that
  // passes them and opens, one that passes them and does not; a revision at rotated_to refused,
  // one below accepted.
  const kinds = V.refusals.key_envelopes.map((c) => `${c.refusal}/${c.accepted}`).sort().join();
  eq('key envelope cases', kinds, 'creator_removed/false,null/false,null/true,unknown_creator/false,wrong_member/false,wrong_pouch/false');
  const revs = V.refusals.revisions.map((c) => `${c.key_gen - V.refusals.rotated_to}/${c.accepted}`).sort().join();
  eq('revision cases', revs, '-1/true,0/false');
});

// A statement signed here with the vectors' own web key (RFC 6979 through noble): so a
// refusal below is of the body, never of a signature.
const signedBy = (privJwk, body) => {
  const text = canonicalize(body);
  return { statement: b64u(utf8(text)), signature: b64u(p256.sign(utf8(text), dOf(privJwk))) };
};

await check('roster_rotated_to_refusals_web_module', async () => {
  const r = V.roster;
  const web = V.keys.web_sign.private_jwk;
  const ok = signedBy(web, r.entries[2].body);
  await W.verifyRoster([r.entries[0], r.entries[1], { index: 2, ...ok }]);
  const { rotated_to: _, ...bare } = r.entries[2].body;
  await refuses('a remove without rotated_to', () => W.verifyRoster([r.entries[0], r.entries[1], { index: 2, ...signedBy(web, bare) }]));
  for (const bad of [1, 0, -1, 2.5, '3', null]) {
    await refuses(`a remove with rotated_to ${JSON.stringify(bad)}`, () => W.verifyRoster([r.entries[0], r.entries[1], { index: 2, ...signedBy(web, { ...bare, rotated_to: bad }) }]));
  }
  await W.verifyRoster([r.entries[0], r.entries[1], { index: 2, ...signedBy(web, { ...bare, rotated_to: 2 }) }]);
  await refuses('an add with rotated_to', () => W.verifyRoster([r.entries[0], { index: 1, ...signedBy(web, { ...r.entries[1].body, rotated_to: 3 }) }]));
  await refuses('a genesis with rotated_to', () => W.verifyRoster([{ index: 0, ...signedBy(web, { ...r.entries[0].body, rotated_to: 2 }) }]));
  const all = await W.verifyRoster(r.entries);
  const cli = all.members.get(V.ids.cli_member_id);
  eq('rotated_to of the removed member', cli.rotated_to, 3);
  eq('trusted at 2', W.trustedAt(cli, 2), true);
  eq('not at 3', W.trustedAt(cli, 3), false);
  eq('an active member at any', W.trustedAt(all.members.get(V.ids.web_member_id), 1e6), true);
});

await check('refusals_web_module', async () => {
  const v = V.refusals;
  const roster = await W.verifyRoster(V.roster.entries);
  const pair = await WP.importEncryptionPair(v.reader_private_jwk);
  for (const c of v.key_envelopes) {
    const why = W.keyEnvelopeRefusal(c.envelope, roster, v.pouch_id, v.reader_member_id);
    eq(`${c.case}: refusal`, why, c.refusal);
    if (why) continue;
    const creator = roster.members.get(c.envelope.created_by_member);
    if (c.accepted) eq(`${c.case}: opens`, hx(await W.openKeyEnvelope(c.envelope, pair, creator.sign_pub)), c.pouch_key_hex);
    else await refuses(c.case, () => W.openKeyEnvelope(c.envelope, pair, creator.sign_pub));
  }
  for (const c of v.revisions) {
    const signer = roster.members.get(c.signer_member_id);
    eq(`${c.case}: signature verifies`, await W.verifyRevision(signer.sign_pub, c.pouch_id, c.artifact_id, c.revision_id, c.envelope, c.signature), true);
    eq(`${c.case}: trusted`, W.trustedAt(signer, c.key_gen), c.accepted);
    const content = await W.openArtifact({ pouchId: c.pouch_id, artifactId: c.artifact_id, revisionId: c.revision_id, keyGen: c.key_gen, pouchKey: unhx(c.pouch_key_hex), envelope: c.envelope });
    eq(`${c.case}: content`, canonicalize(content), c.content_jcs);
  }
});

// The same verdicts from the rules as the doc states them, with independent code.
await check('refusals_independent', async () => {
  const v = V.refusals;
  const members = new Map();
  for (const e of V.roster.entries) {
    const b = e.body;
    if (b.kind === 'remove') members.get(b.member_id).rotated_to = b.rotated_to;
    else members.set(b.member_id, { sign_pub: b.sign_pub, rotated_to: null });
  }
  const trusted = (m, gen) => !!m && (m.rotated_to === null || gen < m.rotated_to);
  for (const c of v.key_envelopes) {
    const e = c.envelope;
    const creator = members.get(e.created_by_member);
    let why = null;
    if (e.pouch_id !== v.pouch_id) why = 'wrong_pouch';
    else if (e.member_id !== v.reader_member_id) why = 'wrong_member';
    else if (!creator) why = 'unknown_creator';
    else if (!trusted(creator, e.key_gen)) why = 'creator_removed';
    eq(`${c.case}: refusal`, why, c.refusal);
    if (why) continue;
    const { signature, ...unsigned } = e;
    const sigOk = es256ok(creator.sign_pub, utf8(canonicalize(unsigned)), unb64u(signature));
    eq(`${c.case}: signature`, sigOk, c.accepted);
    if (c.accepted) {
      const info = cat(utf8('pouch/key-envelope/v1'), utf8(e.pouch_id), utf8(e.member_id), u64(e.key_gen));
      eq(`${c.case}: opens`, hx(hpkeOpenIndependent(dOf(v.reader_private_jwk), info, unb64u(e.hpke_enc), unb64u(e.ciphertext))), c.pouch_key_hex);
    }
  }
  for (const c of v.revisions) eq(`${c.case}: trusted`, trusted(members.get(c.signer_member_id), c.key_gen), c.accepted);
});

await check('content_checks_refuse_unsafe_blob_ids_and_broken_shapes_web_module', async () => {
  const big = V.artifacts[1].content;
  const small = V.artifacts[0].content;
  W.checkContent(big);
  W.checkContent(small);
  const chunk = big.chunks[0];
  const bad = [
    ['a blob id with a path in it', { ...big, chunks: [{ ...chunk, blob_id: `../../v1/account${chunk.blob_id.slice(17)}` }] }],
    ['a blob id of 42 characters', { ...big, chunks: [{ ...chunk, blob_id: chunk.blob_id.slice(1) }] }],
    ['a blob id of 44 characters', { ...big, chunks: [{ ...chunk, blob_id: `${chunk.blob_id}A` }] }],
    ['a blob id with a query', { ...big, chunks: [{ ...chunk, blob_id: `${chunk.blob_id.slice(2)}?x` }] }],
    ['a chunk key that is not 32 bytes', { ...big, chunks: [{ ...chunk, key: 'AAAA' }] }],
    ['chunks that do not add up', { ...big, size: big.size + 1 }],
    ['a blob id whose last character carries bits past 32 bytes', { ...big, chunks: [{ ...chunk, blob_id: `${chunk.blob_id.slice(0, 42)}B` }] }],
    ['a chunk of 4 MiB + 1', { ...big, size: 4194305, chunks: [{ ...chunk, size: 4194305 }] }],
    ['data for a file of 65,537 bytes', { ...small, size: 65537, data: b64u(new Uint8Array(65537)) }],
    ['data of the wrong size', { ...small, size: small.size + 1 }],
    ['data that is not b64url', { ...small, data: 'aGVsbG8/' }],
    ['both data and chunks', { ...big, data: '' }],
    ['a file with neither', { name: 'x', kind: 'file', size: 3, mtime: 1 }],
    ['chunks that are not an array', { ...big, chunks: { 0: chunk } }],
  ];
  for (const [what, c] of bad) await refuses(what, async () => { W.checkContent(c); });
  // The edges that pass: data of exactly 65,536 bytes, a chunk of exactly 4 MiB.
  W.checkContent({ ...small, size: 65536, data: b64u(new Uint8Array(65536)) });
  W.checkContent({ ...big, size: 4194304, chunks: [{ ...chunk, size: 4194304 }] });
  W.checkContent({ name: 'empty', kind: 'file', size: 0, mtime: 1, data: '' });
  W.checkContent({ name: 'dir', kind: 'folder', size: 0, mtime: 1 });
  // A reader takes chunks for a file that shrank below the limit while they were made.
  W.checkContent({ ...big, size: 65536, chunks: [{ ...chunk, size: 65536 }] });
});

await check('roster_chain_web_module', async () => {
  const r = V.roster;
  const two = await W.verifyRoster(r.entries.slice(0, 2));
  eq('active after 2', two.active.map((m) => m.member_id).sort().join(), r.active_after['2'].join());
  const all = await W.verifyRoster(r.entries, [{ seq: 1, hash: r.entries[1].hash }]);
  eq('active after 3', all.active.map((m) => m.member_id).sort().join(), r.active_after['3'].join());
  eq('genesis hash', all.genesisHash, r.genesis_hash);
  const swapped = [r.entries[0], { ...r.entries[1], signature: r.entries[2].signature }, r.entries[2]];
  await refuses('a statement with another statement\'s signature', () => W.verifyRoster(swapped));
  await refuses('a chain with a statement left out', () => W.verifyRoster([r.entries[0], { ...r.entries[2], index: 1 }]));
  await refuses('a wrong pin', () => W.verifyRoster(r.entries, [{ seq: 1, hash: r.entries[0].hash }]));
  const body = { ...r.entries[1].body, label: 'evil' };
  await refuses('a changed body', () => W.verifyRoster([r.entries[0], { index: 1, statement: b64u(utf8(canonicalize(body))), signature: r.entries[1].signature }]));
  const loose = b64u(utf8(JSON.stringify(r.entries[0].body, null, 1)));
  await refuses('a statement that is not JCS', () => W.verifyRoster([{ index: 0, statement: loose, signature: r.entries[0].signature }]));
});

await check('key_envelope_independent', async () => {
  const k = V.key_envelope;
  const e = k.envelope;
  eq('info', k.info_hex, hx(cat(utf8('pouch/key-envelope/v1'), utf8(k.pouch_id), utf8(k.member_id), u64(k.key_gen))));
  const { signature, ...unsigned } = e;
  eq('signing input', k.signing_input_jcs, canonicalize(unsigned));
  eq('signature', es256ok(k.creator_public_jwk, utf8(k.signing_input_jcs), unb64u(signature)), true);
  eq('hpke_enc length', e.hpke_enc.length, 87);
  eq('ciphertext length', e.ciphertext.length, 64);
  eq('independent open', hx(hpkeOpenIndependent(dOf(k.recipient_private_jwk), unhx(k.info_hex), unb64u(e.hpke_enc), unb64u(e.ciphertext))), k.pouch_key_hex);
  eq('@hpke/core open', hx(await hpkeCoreOpen(k.recipient_private_jwk, unhx(k.info_hex), unb64u(e.hpke_enc), unb64u(e.ciphertext))), k.pouch_key_hex);
});

await check('key_envelope_web_module', async () => {
  const k = V.key_envelope;
  const pair = await WP.importEncryptionPair(k.recipient_private_jwk);
  eq('open', hx(await W.openKeyEnvelope(k.envelope, pair, k.creator_public_jwk)), k.pouch_key_hex);
  await refuses('an envelope with another key_gen', () => W.openKeyEnvelope({ ...k.envelope, key_gen: 2 }, pair, k.creator_public_jwk));
  await refuses('an envelope checked against another signer', () => W.openKeyEnvelope(k.envelope, pair, k.recipient_public_jwk));
  const other = await WP.importEncryptionPair(V.keys.web_enc.private_jwk);
  await refuses('an envelope opened by another member', () => W.openKeyEnvelope(k.envelope, other, k.creator_public_jwk));
});

await check('artifacts_and_chunks_independent', async () => {
  for (const a of V.artifacts) {
    const key = hk(unhx(a.pouch_key_hex), cat(utf8('pouch/artifact/v1'), utf8(a.artifact_id)));
    eq('artifact key', hx(key), a.artifact_key_hex);
    const aad = cat(utf8(a.pouch_id), utf8(a.artifact_id), utf8(a.revision_id), u64(a.key_gen));
    eq('aad', hx(aad), a.aad_hex);
    const raw = unb64u(a.envelope);
    eq('nonce', hx(raw.subarray(0, 12)), a.nonce_hex);
    eq('content', new TextDecoder().decode(gcmOpen(key, raw.subarray(0, 12), aad, raw.subarray(12))), a.content_jcs);
    eq('content JCS', canonicalize(a.content), a.content_jcs);
    eq('envelope_hash', b64u(blake3(utf8(a.envelope))), a.envelope_hash);
    const input = blake3(cat(utf8(a.pouch_id), utf8(a.artifact_id), utf8(a.revision_id), utf8(a.envelope)));
    eq('signing input', hx(input), a.signing_input_hex);
    eq('signature', es256ok(a.signer_public_jwk, input, unb64u(a.signature)), true);
    const nk = hk(unhx(a.pouch_key_hex), utf8('pouch/name-index/v1'));
    eq('name_index', b64u(hmac(sha256, nk, utf8(a.content.name.normalize('NFC')))), a.name_index);
  }
  for (const c of V.chunks) {
    const stored = unhx(c.stored_hex);
    eq('stored', hx(cat(unhx(c.nonce_hex), gcmSeal(unhx(c.key_hex), unhx(c.nonce_hex), utf8('pouch/chunk/v1'), unhx(c.plaintext_hex)))), c.stored_hex);
    eq('stored_size', stored.length, unhx(c.plaintext_hex).length + 28);
    eq('blob_id', c.entry.blob_id, b64u(blake3(stored)));
    eq('hash', c.entry.hash, b64u(blake3(unhx(c.plaintext_hex))));
    eq('key', c.entry.key, b64u(unhx(c.key_hex)));
  }
  for (const n of V.name_index) {
    eq('nfc', hx(utf8(n.name.normalize('NFC'))), n.nfc_hex);
    eq('name_index', b64u(hmac(sha256, unhx(n.index_key_hex), unhx(n.nfc_hex))), n.name_index);
    eq('index key', hx(hk(unhx(n.pouch_key_hex), utf8('pouch/name-index/v1'))), n.index_key_hex);
  }
});

await check('artifacts_and_chunks_web_module', async () => {
  for (const a of V.artifacts) {
    const args = { pouchId: a.pouch_id, artifactId: a.artifact_id, revisionId: a.revision_id, keyGen: a.key_gen, pouchKey: unhx(a.pouch_key_hex) };
    eq('content', canonicalize(await W.openArtifact({ ...args, envelope: a.envelope })), a.content_jcs);
    eq('signature', await W.verifyRevision(a.signer_public_jwk, a.pouch_id, a.artifact_id, a.revision_id, a.envelope, a.signature), true);
    eq('name_index', await W.nameIndex(unhx(a.pouch_key_hex), a.content.name), a.name_index);
    await refuses('an envelope moved to another revision', () => W.openArtifact({ ...args, revisionId: V.ids.request_id, envelope: a.envelope }));
    await refuses('a signature over another revision', () => W.verifyRevision(a.signer_public_jwk, a.pouch_id, a.artifact_id, V.ids.request_id, a.envelope, a.signature));
  }
  for (const c of V.chunks) {
    eq('chunk', hx(await W.openChunk(unhx(c.stored_hex), c.entry)), c.plaintext_hex);
    await refuses('a chunk with a changed byte', () => { const s = unhx(c.stored_hex); s[20] ^= 1; return W.openChunk(s, c.entry); });
  }
  for (const n of V.name_index) eq('name_index', await W.nameIndex(unhx(n.pouch_key_hex), n.name), n.name_index);
});

await check('share_independent_and_web_module', async () => {
  const s = V.share;
  const key = unhx(s.key_hex);
  const meta = utf8(canonicalize(s.meta));
  eq('meta JCS', s.meta_jcs, canonicalize(s.meta));
  const len = Buffer.alloc(4); len.writeUInt32BE(meta.length);
  eq('payload', hx(cat(len, meta, unhx(s.file_hex))), s.payload_hex);
  const bundle = unb64u(s.bundle);
  eq('bundle aad', hx(cat(utf8('pouch/share/v1'), utf8(s.share_id))), s.bundle_aad_hex);
  eq('bundle', hx(gcmOpen(key, bundle.subarray(0, 12), unhx(s.bundle_aad_hex), bundle.subarray(12))), s.payload_hex);
  const lab = unb64u(s.label_enc);
  eq('label', new TextDecoder().decode(gcmOpen(key, lab.subarray(0, 12), unhx(s.label_aad_hex), lab.subarray(12))), s.label);
  eq('link', s.link, `http://127.0.0.1:8080/s/${s.share_id}#${b64u(key)}`);
  const opened = await W.openShare({ shareId: s.share_id, key, bundle: s.bundle, labelEnc: s.label_enc });
  eq('web: file', hx(opened.data), s.file_hex);
  eq('web: meta', canonicalize(opened.meta), s.meta_jcs);
  eq('web: label', opened.label, s.label);
  await refuses('a bundle opened as another share', () => W.openShare({ shareId: V.ids.request_id, key, bundle: s.bundle, labelEnc: s.label_enc }));
});

await check('welcome_independent_and_web_module', async () => {
  const w = V.welcome;
  eq('info', w.info_hex, hx(cat(utf8('pouch/welcome/v1'), utf8(w.request_id))));
  eq('JCS', canonicalize(w.welcome), w.welcome_jcs);
  const raw = unb64u(w.welcome_string);
  eq('independent open', new TextDecoder().decode(hpkeOpenIndependent(dOf(w.recipient_private_jwk), unhx(w.info_hex), raw.subarray(0, 65), raw.subarray(65))), w.welcome_jcs);
  eq('@hpke/core open', new TextDecoder().decode(await hpkeCoreOpen(w.recipient_private_jwk, unhx(w.info_hex), raw.subarray(0, 65), raw.subarray(65))), w.welcome_jcs);
  const pair = await WP.importEncryptionPair(w.recipient_private_jwk);
  eq('web open', canonicalize(await W.openWelcome(pair, w.request_id, w.welcome_string)), w.welcome_jcs);
  await refuses('a welcome of another request', () => W.openWelcome(pair, V.ids.share_id, w.welcome_string));
  eq('roster head', w.welcome.roster_head.hash, V.roster.entries[1].hash);
});

await check('recovery_kit_independent_and_web_module', async () => {
  const r = V.recovery_kit;
  const kek = hk(unhx(r.code_bytes_hex), utf8('pouch/recovery/v1'), unhx(r.salt_hex));
  eq('kek', hx(kek), r.kek_hex);
  eq('aad', hx(cat(utf8('pouch/recovery/v1'), utf8(r.kit.member_id))), r.aad_hex);
  eq('secret', new TextDecoder().decode(gcmOpen(kek, unb64u(r.kit.nonce), unhx(r.aad_hex), unb64u(r.kit.ciphertext))), r.secret_jcs);
  // Crockford base32, most significant bit first, eight groups of four.
  const A = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const bits = [...unhx(r.code_bytes_hex)].map((b) => b.toString(2).padStart(8, '0')).join('');
  const code = bits.match(/.{5}/g).map((g) => A[parseInt(g, 2)]).join('').match(/.{4}/g).join('-');
  eq('code', code, r.code);
  eq('web decode (as typed)', hx(W.decodeRecoveryCode(r.code_as_typed)), r.code_bytes_hex);
  const keys = await W.openRecoveryKit(r.kit, r.code_as_typed);
  eq('web open', canonicalize({ sign_priv: keys.signPriv, enc_priv: keys.encPriv }), r.secret_jcs);
  const wrong = r.code.replace(/^./, r.code[0] === 'A' ? 'B' : 'A');
  await refuses('a wrong code', () => W.openRecoveryKit(r.kit, wrong));
});

await check('confirm_code_independent_and_web_module', async () => {
  for (const c of V.confirm_code) {
    const h = sha256(utf8('pouch-confirm-v1' + c.request_id + c.jkt));
    const n = (Buffer.from(h).readBigUInt64BE(0) % 100000000n).toString().padStart(8, '0');
    eq('independent', `${n.slice(0, 4)}-${n.slice(4)}`, c.code);
    eq('web', await W.confirmCode(c.request_id, c.jkt), c.code);
  }
});

// The approval link and its v2 code (decisions §15): recomputed here with @noble/hashes'
// HKDF, then read back by the web app's approval.js, which also refuses tampered details.
await check('confirm_code_v2_and_approval_link_independent_and_web_module', async () => {
  const A = await import(webUrl('src/approval.js'));
  const jkt = (j) => b64u(sha256(utf8(`{"crv":"P-256","kty":"EC","x":"${j.x}","y":"${j.y}"}`)));
  if (V.confirm_code_v2.length < 2) throw new Error('fewer than 2 vectors');
  for (const c of V.confirm_code_v2) {
    eq('sign_jkt', jkt(c.sign_pub), c.sign_jkt);
    eq('enc_jkt', jkt(c.enc_pub), c.enc_jkt);
    const info = utf8(`pouch/confirm/v2${c.request_id}${c.sign_jkt}${c.enc_jkt}`);
    eq('info', hx(info), c.info_hex);
    const n = (Buffer.from(hk(unhx(c.nonce_hex), info)).readBigUInt64BE(0) % 10n ** 12n).toString().padStart(12, '0');
    eq('independent code', `${n.slice(0, 4)}-${n.slice(4, 8)}-${n.slice(8)}`, c.code);
    eq('independent fingerprint', `${c.sign_jkt.slice(0, 4)} ${c.sign_jkt.slice(4, 8)} ${c.sign_jkt.slice(8, 12)} ${c.sign_jkt.slice(12, 16)}`, c.fingerprint);
    const keys = [c.sign_pub.x, c.sign_pub.y, c.enc_pub.x, c.enc_pub.y].join('.');
    eq('independent link', `${c.origin}/cli/approve?request=${c.request_id}#keys=${keys}&n=${b64u(unhx(c.nonce_hex))}`, c.link);
    const hash = c.link.slice(c.link.indexOf('#'));
    const frag = await A.parseApprovalFragment(hash);
    const details = { id: c.request_id, sign_pub: c.sign_pub, enc_pub: c.enc_pub, sign_jkt: c.sign_jkt, device_name: 'laptop' };
    const ok = await A.checkApproval(details, c.request_id, frag);
    eq('web code', ok.code, c.code);
    eq('web fingerprint', ok.fingerprint, c.fingerprint);
    const refused = async (what, fn) => {
      try { await fn(); } catch (e) { if (e instanceof A.ApprovalRefused) return; throw new Error(`${what} threw ${e.name}: ${e.message}`); }
      throw new Error(`${what} was accepted`);
    };
    await refused('no fragment', () => A.parseApprovalFragment(''));
    await refused('no nonce', () => A.parseApprovalFragment(hash.slice(0, hash.indexOf('&n='))));
    await refused('a short nonce', () => A.parseApprovalFragment(hash.slice(0, -1)));
    await refused('a key off the curve', () => A.parseApprovalFragment(hash.replace(c.sign_pub.y, c.sign_pub.x)));
    const other = V.keys.web_sign.public_jwk.x === c.sign_pub.x ? V.keys.cli_sign.public_jwk : V.keys.web_sign.public_jwk;
    await refused('details of another request', () => A.checkApproval({ ...details, id: V.ids.pouch_id }, c.request_id, frag));
    await refused('another sign key in the details', () => A.checkApproval({ ...details, sign_pub: other }, c.request_id, frag));
    await refused('another enc key in the details', () => A.checkApproval({ ...details, enc_pub: other }, c.request_id, frag));
    await refused('no keys in the details', () => A.checkApproval({ ...details, sign_pub: undefined }, c.request_id, frag));
    await refused('another sign_jkt', () => A.checkApproval({ ...details, sign_jkt: jkt(other) }, c.request_id, frag));
    await refused('a device name with /', () => A.checkApproval({ ...details, device_name: 'x/../../PWNED' }, c.request_id, frag));
    await refused('a device name with a bidi control', () => A.checkApproval({ ...details, device_name: 'a\u202Eb' }, c.request_id, frag));
  }
});

// Random round trips through the web module, opened by the independent code: the
// randomized paths (fresh nonces, fresh HPKE ephemeral keys, WebCrypto signatures).
await check('random_round_trips_web_to_independent', async () => {
  for (let i = 0; i < 20; i++) {
    const sign = await WP.generateSigningKey(true);
    const enc = await WP.generateEncryptionKey(true);
    const encJwk = await WP.exportJwk(enc.privateKey);
    const signJwk = await WP.exportJwk(sign.publicKey);
    const pouchKey = nodeCrypto.randomBytes(32);
    const ids = Array.from({ length: 3 }, () => nodeCrypto.randomUUID());
    const e = await W.sealKeyEnvelope({ pouchId: ids[0], memberId: ids[1], keyGen: i + 1, pouchKey, encPub: encJwk, creatorId: ids[2], creatorSignKey: sign.privateKey });
    const { signature, ...unsigned } = e;
    eq('envelope signature', es256ok(signJwk, utf8(canonicalize(unsigned)), unb64u(signature)), true);
    // WebCrypto's signatures are high-S about half the time; the module's are always low-S.
    eq('envelope signature is low-S', lowS(unb64u(signature)), true);
    const msg = nodeCrypto.randomBytes(40);
    eq('es256Sign is low-S', lowS(await WP.es256Sign(sign.privateKey, msg)), true);
    const info = cat(utf8('pouch/key-envelope/v1'), utf8(ids[0]), utf8(ids[1]), u64(i + 1));
    eq('envelope open', hx(hpkeOpenIndependent(dOf(encJwk), info, unb64u(e.hpke_enc), unb64u(e.ciphertext))), hx(pouchKey));
    const content = { name: `dir/file ${i}.txt`, kind: 'file', size: 3, mtime: Date.now(), data: 'YWJj' };
    const envelope = await W.sealArtifact({ pouchId: ids[0], artifactId: ids[1], revisionId: ids[2], keyGen: 1, pouchKey, content });
    const raw = unb64u(envelope);
    const key = hk(pouchKey, cat(utf8('pouch/artifact/v1'), utf8(ids[1])));
    eq('artifact', new TextDecoder().decode(gcmOpen(key, raw.subarray(0, 12), cat(utf8(ids[0]), utf8(ids[1]), utf8(ids[2]), u64(1)), raw.subarray(12))), canonicalize(content));
  }
});

// ---- sharing (docs/SHARING.md) -------------------------------------------------------------

const SH = V.sharing;
const pubOfD = (d) => {
  const pub = p256.getPublicKey(d, false);
  return { x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33)) };
};
const samePub = (a, b) => a.x === b.x && a.y === b.y;
// b64url of JCS of an object, decoded strictly (canonical base64url, canonical JCS).
function jcsObject(s) {
  const bytes = unb64u(s);
  if (b64u(bytes) !== s) throw new Error('not canonical b64url');
  const text = new TextDecoder().decode(bytes);
  const o = JSON.parse(text);
  if (canonicalize(o) !== text) throw new Error('not JCS');
  return o;
}
const fieldsAre = (o, names) => Object.keys(o).sort().join(',') === [...names].sort().join(',');

// SHARING.md §1, written from the text: genesis = roster statement 0 whose own signature
// verifies, hashed to genesis_hash, whose member_id signs the identity statement.
function identityIndependent(identity, genesis) {
  const g = jcsObject(genesis.statement);
  if (g.kind !== 'genesis' || g.seq !== 0 || g.prev !== '' || g.by !== g.member_id) return 'genesis is not a genesis';
  if (!es256ok(g.sign_pub, unb64u(genesis.statement), unb64u(genesis.signature))) return 'genesis signature';
  const b = jcsObject(identity.statement);
  if (!fieldsAre(b, ['v', 'kind', 'account_id', 'genesis_hash', 'by', 'sign_pub', 'enc_pub', 'at']) || b.v !== 1 || b.kind !== 'identity') return 'shape';
  if (b.genesis_hash !== b64u(blake3(utf8(genesis.statement)))) return 'genesis_hash';
  if (b.by !== g.member_id) return 'by';
  if (!es256ok(g.sign_pub, unb64u(identity.statement), unb64u(identity.signature))) return 'signature';
  return null;
}

// SHARING.md §4 steps 1 to 6, written from the text. Returns {accounts: Map(id → {pub, in, role,
// history}), keyGen} or throws an Error whose `at` is the index of the failing statement.
const ROLE_RANK = { read: 1, write: 2, admin: 3 };
function accessIndependent(pouchId, items) {
  const accounts = new Map();
  let keyGen = 0;
  let prev = '';
  items.forEach(({ statement, signature }, i) => {
    const fail = (why) => { const e = new Error(`statement ${i}: ${why}`); e.at = i; throw e; };
    let b;
    try { b = jcsObject(statement); } catch (e) { fail(e.message); }
    const rot = b.kind === 'remove' || b.kind === 'leave';
    const names = ['v', 'pouch_id', 'seq', 'prev', 'kind', 'by', 'account_id', 'identity', 'role', 'key_gen', 'at', ...(rot ? ['rotated_to'] : [])];
    if (!fieldsAre(b, names) || b.v !== 1) fail('members');
    if (!['share', 'role', 'remove', 'leave'].includes(b.kind) || !ROLE_RANK[b.role]) fail('kind or role');
    if (b.pouch_id !== pouchId || b.seq !== i || b.prev !== prev) fail('chain');
    if (!Number.isSafeInteger(b.key_gen) || b.key_gen < 1 || (rot && b.rotated_to !== b.key_gen)) fail('key_gen');
    if (!fieldsAre(b.identity, ['sign_pub', 'enc_pub'])) fail('identity');
    const msg = unb64u(statement);
    const sig = unb64u(signature);
    const about = accounts.get(b.account_id);
    if (i === 0) {
      if (b.kind !== 'share' || b.by !== b.account_id || b.role !== 'admin') fail('statement 0');
      if (!es256ok(b.identity.sign_pub, msg, sig)) fail('signature');
      accounts.set(b.by, { pub: b.identity, in: true, role: 'admin', history: [[1, 'admin']] });
    } else {
      const by = accounts.get(b.by);
      if (!by?.in) fail('signer not in the list');
      if (b.kind === 'leave' ? b.by !== b.account_id : by.role !== 'admin') fail('signer may not');
      if (!es256ok(by.pub.sign_pub, msg, sig)) fail('signature');
      if (about?.in && (!samePub(about.pub.sign_pub, b.identity.sign_pub) || !samePub(about.pub.enc_pub, b.identity.enc_pub))) fail('identity changed');
      if ((b.kind === 'share') === !!about?.in) fail('in the list or not');
      if (b.kind === 'remove' && b.by === b.account_id) fail('removes itself');
      if (rot && b.role !== about.role) fail('role it had');
      if (b.key_gen < keyGen) fail('generation goes down');
      if ((rot || (b.kind === 'role' && ROLE_RANK[b.role] < ROLE_RANK[about.role])) && b.key_gen <= keyGen) fail('no new generation');
      const e = about ?? { history: [] };
      if (b.kind === 'share') e.pub = b.identity;
      e.in = !rot;
      e.role = rot ? '' : b.role;
      e.history.push([b.key_gen, e.role]);
      accounts.set(b.account_id, e);
    }
    keyGen = b.key_gen;
    if (![...accounts.values()].some((a) => a.in && a.role === 'admin')) fail('no admin');
    prev = b64u(blake3(utf8(statement)));
  });
  return { accounts, keyGen };
}
const roleAtIndependent = (list, account, k) => (list.accounts.get(account)?.history ?? []).reduce((r, [from, role]) => (from <= k ? role : r), '');

function grantRefusalIndependent(g, list, pouchId, accountId) {
  if (g.pouch_id !== pouchId) return 'wrong_pouch';
  if (g.account_id !== accountId) return 'wrong_account';
  const a = list.accounts.get(g.granted_by);
  if (!a) return 'unknown_granter';
  if (!a.in) {
    const out = [...a.history].reverse().find(([, role]) => role === '');
    if (!(g.key_gen < out[0])) return 'unknown_granter';
  }
  const { signature, ...unsigned } = g;
  return es256ok(a.pub.sign_pub, utf8(canonicalize(unsigned)), unb64u(signature)) ? null : 'bad_signature';
}

function fingerprintIndependent(x) {
  return blake3(cat(utf8('pouch/safety-number/v1'), utf8(x.account_id), utf8(canonicalize(x.sign_pub)), utf8(canonicalize(x.enc_pub))));
}

await check('sharing_identities_independent', async () => {
  for (const [name, a] of Object.entries(SH.accounts)) {
    eq(`${name} identity JCS`, canonicalize(a.identity_body), a.identity_jcs);
    eq(`${name} statement`, a.identity.statement, b64u(utf8(a.identity_jcs)));
    eq(`${name} binding`, identityIndependent(a.identity, a.genesis), null);
    eq(`${name} genesis_hash`, a.genesis_hash, b64u(blake3(utf8(a.genesis.statement))));
    eq(`${name} identity sign key`, samePub(pubOfD(dOf(a.identity_sign_private_jwk)), a.identity_body.sign_pub), true);
    eq(`${name} identity enc key`, samePub(pubOfD(dOf(a.identity_enc_private_jwk)), a.identity_body.enc_pub), true);
  }
  for (const c of SH.refusals.identities) if (identityIndependent(c.identity, c.genesis) === null) return `${c.case} was accepted`;
});

await check('sharing_identities_web_module', async () => {
  for (const [name, a] of Object.entries(SH.accounts)) eq(`${name} account`, (await W.verifyIdentity(a.identity, a.genesis)).account_id, a.account_id);
  for (const c of SH.refusals.identities) await refuses(c.case, () => W.verifyIdentity(c.identity, c.genesis));
});

await check('sharing_identity_envelope_independent_and_web_module', async () => {
  const v = SH.identity_envelope;
  const e = v.envelope;
  const bea = SH.accounts.bea;
  eq('info', hx(cat(utf8('pouch/identity-envelope/v1'), utf8(v.account_id), utf8(v.member_id))), v.info_hex);
  const { signature, ...unsigned } = e;
  eq('signing input', canonicalize(unsigned), v.signing_input_jcs);
  eq('signature', es256ok(v.creator_public_jwk, utf8(v.signing_input_jcs), unb64u(signature)), true);
  const secret = new TextDecoder().decode(hpkeOpenIndependent(dOf(v.recipient_private_jwk), unhx(v.info_hex), unb64u(e.hpke_enc), unb64u(e.ciphertext)));
  eq('secret', secret, v.secret_jcs);
  const { sign_d, enc_d } = JSON.parse(secret);
  eq('sign_d gives the identity sign_pub', samePub(pubOfD(unb64u(sign_d)), bea.identity_body.sign_pub), true);
  eq('enc_d gives the identity enc_pub', samePub(pubOfD(unb64u(enc_d)), bea.identity_body.enc_pub), true);
  const pair = await WP.importEncryptionPair(v.recipient_private_jwk);
  const opened = await W.openIdentityEnvelope(e, pair, v.creator_public_jwk, bea.identity_body);
  eq('web sign d', opened.signPriv.d, sign_d);
  eq('web enc d', opened.encPriv.d, enc_d);
  for (const c of SH.refusals.identity_envelopes) {
    await refuses(c.case, () => W.openIdentityEnvelope(c.envelope, pair, v.creator_public_jwk, SH.accounts[c.account].identity_body));
  }
  // independently: the keys of the first refusal are not the statement's
  const wrong = SH.refusals.identity_envelopes[0].envelope;
  const ws = JSON.parse(new TextDecoder().decode(hpkeOpenIndependent(dOf(v.recipient_private_jwk), unhx(v.info_hex), unb64u(wrong.hpke_enc), unb64u(wrong.ciphertext))));
  eq('wrong keys differ', samePub(pubOfD(unb64u(ws.sign_d)), bea.identity_body.sign_pub), false);
});

await check('sharing_safety_numbers_independent_and_web_module', async () => {
  for (const c of SH.safety_numbers) {
    eq('fp(a)', hx(fingerprintIndependent(c.a)), c.fingerprint_a_hex);
    eq('fp(b)', hx(fingerprintIndependent(c.b)), c.fingerprint_b_hex);
    const [p, q] = c.a.account_id < c.b.account_id ? [c.a, c.b] : [c.b, c.a];
    const bytes = cat(fingerprintIndependent(p), fingerprintIndependent(q));
    eq('bytes', hx(bytes), c.bytes_hex);
    const digits = Array.from({ length: 12 }, (_, i) => String(BigInt(`0x${hx(bytes.subarray(5 * i, 5 * i + 5))}`) % 100000n).padStart(5, '0')).join(' ');
    eq('digits', digits, c.digits);
    if (!/^(\d{5} ){11}\d{5}$/.test(c.digits)) return `${c.digits} is not 12 groups of 5 digits`;
    eq('qr', `pouch-sn1:${b64u(bytes)}`, c.qr_text);
    eq('web digits', W.safetyNumber(c.a, c.b), c.digits);
    eq('web digits, other way', W.safetyNumber(c.b, c.a), c.digits);
    eq('web qr', W.safetyNumberQrText(c.b, c.a), c.qr_text);
  }
  eq('(a, b) and (b, a)', SH.safety_numbers[0].digits, SH.safety_numbers[1].digits);
  const a = SH.safety_numbers[0].a;
  await refuses('one account twice', async () => W.safetyNumber(a, { ...a, account_id: a.account_id.toUpperCase() }));
});

await check('sharing_access_list_independent', async () => {
  const v = SH.access_list;
  let prev = '';
  for (const e of v.entries) {
    eq('JCS of body', canonicalize(e.body), e.jcs);
    eq('statement', e.statement, b64u(utf8(e.jcs)));
    eq('prev', e.body.prev, prev);
    eq('hash', e.hash, b64u(blake3(utf8(e.statement))));
    prev = e.hash;
  }
  const list = accessIndependent(v.pouch_id, v.entries);
  eq('key_gen', list.keyGen, v.key_gen);
  eq('head', v.head.hash, prev);
  for (const r of v.role_at) eq(`role of ${r.account_id} at ${r.key_gen}`, roleAtIndependent(list, r.account_id, r.key_gen), r.role);
  const kinds = new Set(v.entries.map((e) => e.body.kind));
  for (const k of ['share', 'role', 'remove', 'leave']) if (!kinds.has(k)) return `no ${k} statement`;
  const rules = new Set();
  for (const c of SH.refusals.access_lists) {
    accessIndependent(c.pouch_id, c.items.slice(0, c.fails_at));
    try {
      accessIndependent(c.pouch_id, c.items);
      return `${c.case} was accepted`;
    } catch (e) {
      if (e.at !== c.fails_at) return `${c.case}: refused at ${e.at} (${e.message}), not ${c.fails_at}`;
    }
    rules.add(c.rule);
  }
  eq('every rule has a refusal', [...rules].sort().join(','), '1,2,3,4,5,6');
  const seen = new Set();
  for (const r of SH.refusals.revisions) {
    const role = roleAtIndependent(list, r.account_id, r.key_gen);
    const want = !role ? 'not_in_access_list' : role === 'read' ? 'role_forbids_write' : null;
    eq(r.case, r.refusal, want);
    seen.add(want);
  }
  if (seen.size !== 3) return 'revisions: not every refusal and an accepted one';
});

await check('sharing_access_list_web_module', async () => {
  const v = SH.access_list;
  const list = await W.verifyAccessList(v.pouch_id, v.entries);
  eq('owner', list.owner, v.owner);
  eq('key_gen', list.keyGen, v.key_gen);
  eq('head', list.head.hash, v.head.hash);
  for (const r of v.role_at) eq(`role of ${r.account_id} at ${r.key_gen}`, list.roleAt(r.account_id, r.key_gen), r.role);
  for (const r of SH.refusals.revisions) eq(r.case, list.revisionRefusal(r.account_id, r.key_gen), r.refusal);
  for (const c of SH.refusals.access_lists) {
    await W.verifyAccessList(c.pouch_id, c.items.slice(0, c.fails_at).length ? c.items.slice(0, c.fails_at) : [v.entries[0]]);
    try {
      await W.verifyAccessList(c.pouch_id, c.items);
      return `${c.case} was accepted`;
    } catch (e) {
      if (!(e instanceof FormatError)) return `${c.case} threw ${e.name}: ${e.message}`;
      if (!e.message.startsWith(`access statement ${c.fails_at}:`)) return `${c.case}: ${e.message}`;
    }
  }
});

await check('sharing_key_grants_independent_and_web_module', async () => {
  const v = SH.key_grants;
  const list = accessIndependent(SH.access_list.pouch_id, SH.access_list.entries);
  const webList = await W.verifyAccessList(SH.access_list.pouch_id, SH.access_list.entries);
  const pair = await WP.importEncryptionPair(v.reader_private_jwk);
  for (const c of v.grants) {
    const g = c.grant;
    eq('info', hx(cat(utf8('pouch/key-grant/v1'), utf8(g.pouch_id), utf8(g.account_id), u64(g.key_gen))), c.info_hex);
    const { signature, ...unsigned } = g;
    eq('signing input', canonicalize(unsigned), c.signing_input_jcs);
    eq('refusal', grantRefusalIndependent(g, list, v.pouch_id, v.reader_account_id), null);
    eq('opens', hx(hpkeOpenIndependent(dOf(v.reader_private_jwk), unhx(c.info_hex), unb64u(g.hpke_enc), unb64u(g.ciphertext))), c.pouch_key_hex);
    eq('web refusal', await W.keyGrantRefusal(g, webList, v.pouch_id, v.reader_account_id), null);
    eq('web opens', hx(await W.openKeyGrant(g, pair)), c.pouch_key_hex);
  }
  const seen = new Set();
  for (const c of SH.refusals.key_grants) {
    const g = c.grant;
    eq(`${c.case}: refusal`, grantRefusalIndependent(g, list, v.pouch_id, v.reader_account_id), c.refusal);
    eq(`${c.case}: web refusal`, await W.keyGrantRefusal(g, webList, v.pouch_id, v.reader_account_id), c.refusal);
    seen.add(c.refusal);
    if (c.refusal !== null) continue;
    const info = cat(utf8('pouch/key-grant/v1'), utf8(g.pouch_id), utf8(g.account_id), u64(g.key_gen));
    let opened = null;
    try { opened = hx(hpkeOpenIndependent(dOf(v.reader_private_jwk), info, unb64u(g.hpke_enc), unb64u(g.ciphertext))); } catch { opened = null; }
    eq(`${c.case}: accepted`, opened !== null, c.accepted);
    if (c.accepted) eq(`${c.case}: key`, opened, c.pouch_key_hex);
    else await refuses(`${c.case}: web open`, () => W.openKeyGrant(g, pair));
  }
  for (const r of ['wrong_pouch', 'wrong_account', 'unknown_granter', 'bad_signature', null]) if (!seen.has(r)) return `no refusal case ${r}`;
});

await check('sharing_random_round_trips_web_to_independent', async () => {
  for (let i = 0; i < 5; i++) {
    const sign = await WP.generateSigningKey(true);
    const enc = await WP.generateEncryptionKey(true);
    const signJwk = await WP.exportJwk(sign.privateKey);
    const encJwk = await WP.exportJwk(enc.privateKey);
    const [account, member, pouch] = Array.from({ length: 3 }, () => nodeCrypto.randomUUID());
    const body = W.accessBody({ pouch_id: pouch, seq: 0, prev: '', kind: 'share', by: account, account_id: account,
      identity: { sign_pub: signJwk, enc_pub: encJwk }, role: 'admin', key_gen: i + 1, at: '2026-11-27T10:00:00Z' });
    const st = await W.signAccess(body, sign.privateKey);
    eq('access statement low-S', lowS(unb64u(st.signature)), true);
    eq('independent verify', accessIndependent(pouch, [st]).keyGen, i + 1);
    const pouchKey = nodeCrypto.randomBytes(32);
    const g = await W.sealKeyGrant({ pouchId: pouch, accountId: account, keyGen: i + 1, pouchKey, encPub: encJwk, grantedBy: account, granterSignKey: sign.privateKey });
    const info = cat(utf8('pouch/key-grant/v1'), utf8(pouch), utf8(account), u64(i + 1));
    eq('grant opens', hx(hpkeOpenIndependent(dOf(encJwk), info, unb64u(g.hpke_enc), unb64u(g.ciphertext))), hx(pouchKey));
    const e = await W.sealIdentityEnvelope({ accountId: account, memberId: member, encPub: encJwk, signPriv: signJwk, encPriv: encJwk, creatorId: member, creatorSignKey: sign.privateKey });
    const secret = JSON.parse(new TextDecoder().decode(hpkeOpenIndependent(dOf(encJwk), cat(utf8('pouch/identity-envelope/v1'), utf8(account), utf8(member)), unb64u(e.hpke_enc), unb64u(e.ciphertext))));
    eq('identity envelope sign_d', secret.sign_d, signJwk.d);
    const opened = await W.openIdentityEnvelope(e, await WP.importEncryptionPair(encJwk), signJwk, { account_id: account, sign_pub: signJwk, enc_pub: encJwk });
    eq('identity envelope opens in the web module', opened.encPriv.d, encJwk.d);
  }
});

// ---- content-defined chunk boundaries (CLIENT-FORMAT.md "Chunk boundaries") ---------------

// Independent: the gear table from this folder's @noble/hashes, the cut written from the
// document with unsigned arithmetic (>>> 0) where the web module keeps a signed int32.
const cdcGearIndependent = (() => {
  const x = blake3(utf8('pouch/cdc/v1'), { dkLen: 1024 });
  return Array.from({ length: 256 }, (_, i) => Buffer.from(x).readUInt32LE(4 * i));
})();
function cdcCutIndependent(data) {
  const [MIN, NORMAL, MAX] = [512 * 1024, 2 * 1024 * 1024, 4 * 1024 * 1024];
  if (data.length <= MIN) return data.length;
  const end = Math.min(data.length, MAX);
  let h = 0;
  for (let i = MIN; i < end; i++) {
    h = ((h << 1) + cdcGearIndependent[data[i]]) >>> 0;
    const mask = i + 1 <= NORMAL ? 0xfffffe00 : 0xffffe000;  // by the chunk length so far
    if (((h & mask) >>> 0) === 0) return i + 1;
  }
  return end;
}
function cdcLengths(cut, data) {
  const out = [];
  for (let pos = 0; pos < data.length; pos += out[out.length - 1]) {
    out.push(cut(data.subarray(pos, Math.min(data.length, pos + 4 * 1024 * 1024))));
  }
  return out;
}
function cdcStreamIndependent(parts) {
  return cat(...parts.map((p) => ('blake3_xof' in p ? blake3(utf8(p.blake3_xof), { dkLen: p.length })
                                                     : new Uint8Array(p.length).fill(p.byte))));
}

await check('cdc_gear_and_constants', async () => {
  const c = V.cdc;
  eq('gear_context', c.gear_context, 'pouch/cdc/v1');
  eq('gear_first', JSON.stringify(c.gear_first), JSON.stringify(cdcGearIndependent.slice(0, 4)));
  eq('gear_last', c.gear_last, cdcGearIndependent[255]);
  eq('web gear table', JSON.stringify(Array.from(WC.cdcGear())), JSON.stringify(cdcGearIndependent));
  eq('constants', JSON.stringify([c.min, c.normal, c.max, c.mask_hard, c.mask_easy]),
     JSON.stringify([524288, 2097152, 4194304, 0xfffffe00, 0xffffe000]));
  eq('web constants', JSON.stringify([WC.CDC_MIN, WC.CDC_NORMAL, WC.CDC_MAX, WC.CDC_MASK_HARD, WC.CDC_MASK_EASY]),
     JSON.stringify([c.min, c.normal, c.max, c.mask_hard, c.mask_easy]));
});

await check('cdc_streams_web_module_and_independent', async () => {
  const cut = {};
  for (const s of V.cdc.streams) {
    const data = cdcStreamIndependent(s.parts);
    const want = JSON.stringify(s.chunk_lengths);
    eq(`${s.name}: independent`, JSON.stringify(cdcLengths(cdcCutIndependent, data)), want);
    eq(`${s.name}: web cdcCut`, JSON.stringify(cdcLengths(WC.cdcCut, data)), want);
    eq(`${s.name}: web cdcChunkLengths`, JSON.stringify(WC.cdcChunkLengths(data)), want);
    cut[s.name] = s.chunk_lengths;
  }
  // One byte inserted at the start: the first boundary moves by one, every other chunk stays.
  const a = cut.random_12mib, b = cut.random_12mib_insert_at_0;
  if (a.length < 3) return 'random_12mib has fewer than 3 chunks';
  eq('inserted: first chunk', b[0], a[0] + 1);
  eq('inserted: the other chunks', JSON.stringify(b.slice(1)), JSON.stringify(a.slice(1)));
  const body = Object.values(cut).flatMap((l) => l.slice(0, -1));
  if (!body.some((n) => n > 524288 && n <= 2097152)) return 'no cut under the hard mask';
  if (!body.some((n) => n > 2097152 && n < 4194304)) return 'no cut under the easy mask';
  if (!body.includes(4194304)) return 'no chunk at max';
});

await check('cdc_web_module_matches_independent_on_random_and_text_data', async () => {
  // 40 MiB of xorshift32 output, then 16 MiB of repeated text with a counter (low entropy).
  const rnd = new Uint8Array(40 * 1024 * 1024);
  const words = new Uint32Array(rnd.buffer);
  let x = 0x2545f491;
  for (let i = 0; i < words.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; words[i] = x >>> 0; }
  const lines = [];
  for (let i = 0, n = 0; n < 16 * 1024 * 1024; i++) { const l = `line ${i}: the quick brown fox jumps over the lazy dog\n`; lines.push(l); n += l.length; }
  for (const data of [rnd, utf8(lines.join(''))]) {
    eq('lengths', JSON.stringify(WC.cdcChunkLengths(data)), JSON.stringify(cdcLengths(cdcCutIndependent, data)));
  }
});

console.log(failed ? `# client-format vectors: ${failed} failed` : '# client-format vectors: all passed');
process.exit(failed ? 1 : 0);
