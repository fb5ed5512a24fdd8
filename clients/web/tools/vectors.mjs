// vectors.mjs -- makes docs/client-format-vectors.json from fixed inputs with the web app's own
// crypto module (src/crypto/format.js). Everything is deterministic: nonces, keys and HPKE
// ephemeral key material are fixed inputs, and ES256 signatures are made with RFC 6979
// deterministic ECDSA (@noble/curves) through the module's signer hook, so running it again
// gives the same bytes. `node tools/vectors.mjs` prints the JSON; `--write FILE` writes it;
// `--check FILE` fails when FILE differs (the interop suite compares makeVectors() with the file
// itself).
import * as fs from 'node:fs';

import { p256 } from '@noble/curves/nist.js';
import { blake3 as blake3Xof } from '@noble/hashes/blake3.js';
import { sha256 } from '@noble/hashes/sha2.js';

import * as A from '../src/approval.js';
import { b64url, concat, hex, unb64url as unb64, utf8 } from '../src/crypto/bytes.js';
import * as C from '../src/crypto/cdc.js';
import * as F from '../src/crypto/format.js';
import { aesGcmSeal, blake3, hkdf, hmacSha256, isLowS, jcsText, jwkThumbprint } from '../src/crypto/primitives.js';

// ---- fixed inputs ----------------------------------------------------------------------------

// A scalar from a label: SHA-256 of it (every such value is below the P-256 order in practice;
// checked by getPublicKey, which throws otherwise).
const scalar = (label) => sha256(utf8(label));
const bytesOf = (label, n) => sha256(utf8(label)).subarray(0, n);

function keyFrom(label) {
  const d = scalar(label);
  const pub = p256.getPublicKey(d, false);
  const jwk = { kty: 'EC', crv: 'P-256', x: b64url(pub.subarray(1, 33)), y: b64url(pub.subarray(33, 65)) };
  return { d, pub: jwk, priv: { ...jwk, d: b64url(d) }, sign: async (msg) => p256.sign(msg, d) };
}

const K = {
  web_sign: keyFrom('pouch vectors: web member sign key'),
  web_enc: keyFrom('pouch vectors: web member enc key'),
  cli_sign: keyFrom('pouch vectors: cli member sign key'),
  cli_enc: keyFrom('pouch vectors: cli member enc key'),
};

const IDS = {
  account_id: '5b0b8c1e-3d2a-4f6b-9c7d-1e2f3a4b5c6d',
  web_member_id: '11111111-2222-4333-8444-555555555555',
  cli_member_id: '66666666-7777-4888-9999-aaaaaaaaaaaa',
  cli_device_id: 'bbbbbbbb-cccc-4ddd-aeee-ffffffffffff',
  pouch_id: '0d6f0c5e-8a4b-4c8e-9a51-2f3f1b8f2b77',
  artifact_id: '3c1e9a70-52f4-4b8e-8d2a-7f0c6b5e4d3a',
  artifact_id_2: '9e8d7c6b-5a49-4837-a625-14f3e2d1c0b9',
  revision_id: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  revision_id_2: 'f0e1d2c3-b4a5-4968-b7a6-958473625140',
  share_id: '7f3a9c2e-1b4d-4e6f-a8c0-d2e4f6a8b0c2',
  request_id: '2c4e6a8b-0d1f-4a3c-b5e7-f9a1c3e5a7b9',
  other_pouch_id: '4a5b6c7d-8e9f-4a0b-9c1d-2e3f4a5b6c7d',
  stranger_member_id: 'c0ffee00-1234-4567-89ab-cdef01234567',
  revision_id_3: '5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9',
};

// The generation the vectors' remove statement fixes: the cli member is removed when the pouch
// is at generation 2, so rotated_to is 3 (what the rotation moves the pouch to).
const ROTATED_TO = 3;

// The order n of P-256, for the high-S twin of a signature (R, n − S), which no signer makes.
const P256_N = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
const bigOf = (bytes) => bytes.reduce((n, b) => (n << 8n) | BigInt(b), 0n);
function highS(sig) {
  let v = P256_N - bigOf(sig.subarray(32));
  const out = new Uint8Array(sig);
  for (let i = 63; i >= 32; i--) { out[i] = Number(v & 0xffn); v >>= 8n; }
  return out;
}

const POUCH_KEY = bytesOf('pouch vectors: pouch key, key_gen 1', 32);
const POUCH_KEY_2 = bytesOf('pouch vectors: pouch key, key_gen 2', 32);
const AT = '2026-11-23T10:00:00Z';

// ---- the vectors -----------------------------------------------------------------------------

async function primitives() {
  const jcsCases = [
    [56, { d: true, 10: null, 1: [] }],
    { '1': { f: { f: 'hi', F: 5 }, '\n': 56 }, '10': {}, '': 'empty', a: {}, '111': [{ e: 'yes', E: 'no' }], A: {} },
    { '\u20ac': 'Euro Sign', '\r': 'Carriage Return', '\ufb33': 'Hebrew Letter Dalet With Dagesh', '1': 'One', '\ud83d\ude00': 'Emoji: Grinning Face', '\u0080': 'Control', '\u00f6': 'Latin Small Letter O With Diaeresis' },
    { name: 'notes/caf\u00e9.txt', size: 9007199254740991, neg: -1, zero: 0, s: 'tab\there "quote" \\ back\u001f' },
  ];
  const blakeCases = [utf8(''), new Uint8Array([0]), utf8('pouch'), Uint8Array.from({ length: 1025 }, (_, i) => i % 251)];
  const hkdfCases = [
    { ikm: POUCH_KEY, salt: new Uint8Array(0), info: utf8('pouch/name-index/v1') },
    { ikm: bytesOf('pouch vectors: recovery code', 20), salt: bytesOf('pouch vectors: salt', 16), info: utf8('pouch/recovery/v1') },
  ];
  const gcmCases = [
    { key: POUCH_KEY, nonce: bytesOf('pouch vectors: nonce 1', 12), aad: utf8('aad'), pt: utf8('hello, pouch') },
    { key: POUCH_KEY_2, nonce: bytesOf('pouch vectors: nonce 2', 12), aad: new Uint8Array(0), pt: new Uint8Array(0) },
  ];
  const message = utf8('pouch vectors: a message to sign');
  const sig = await K.web_sign.sign(message);
  const es = (c) => ({ ...c, low_s: isLowS(unb64(c.signature_b64url)) });
  return {
    jcs: jcsCases.map((input) => ({ input, output: jcsText(input) })),
    blake3: blakeCases.map((x) => ({ input_hex: hex(x), hash_hex: hex(blake3(x)), hash_b64url: b64url(blake3(x)) })),
    hkdf_sha256: await Promise.all(hkdfCases.map(async (c) => ({
      ikm_hex: hex(c.ikm), salt_hex: hex(c.salt), info_hex: hex(c.info), okm_hex: hex(await hkdf(c.ikm, c.info, c.salt)),
    }))),
    hmac_sha256: [{ key_hex: hex(POUCH_KEY), message_hex: hex(utf8('docs/a.txt')), mac_hex: hex(await hmacSha256(POUCH_KEY, utf8('docs/a.txt'))) }],
    aes_256_gcm: await Promise.all(gcmCases.map(async (c) => ({
      key_hex: hex(c.key), nonce_hex: hex(c.nonce), aad_hex: hex(c.aad), plaintext_hex: hex(c.pt),
      sealed_hex: hex(await aesGcmSeal(c.key, c.nonce, c.aad, c.pt)),
    }))),
    // The first two are one signature in its two forms, (R, S) low and (R, n − S) high: both
    // verify; a signer gives the low one.
    es256: [
      { public_jwk: K.web_sign.pub, message_hex: hex(message), signature_b64url: b64url(sig), valid: true },
      { public_jwk: K.web_sign.pub, message_hex: hex(message), signature_b64url: b64url(highS(sig)), valid: true },
      { public_jwk: K.cli_sign.pub, message_hex: hex(message), signature_b64url: b64url(sig), valid: false },
      { public_jwk: K.web_sign.pub, message_hex: hex(utf8('pouch vectors: another message')), signature_b64url: b64url(sig), valid: false },
    ].map(es),
    jwk_thumbprint: await Promise.all(Object.entries(K).map(async ([name, k]) => ({ key: name, public_jwk: k.pub, jkt: await jwkThumbprint(k.pub) }))),
  };
}

function rfc9180() {
  return {
    source: 'RFC 9180 Appendix A.3.1 (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM, base mode), first encryption',
    mode: 0, kem_id: 16, kdf_id: 1, aead_id: 1,
    info_hex: '4f6465206f6e2061204772656369616e2055726e',
    ikmE_hex: '4270e54ffd08d79d5928020af4686d8f6b7d35dbe470265f1f5aa22816ce860e',
    skEm_hex: '4995788ef4b9d6132b249ce59a77281493eb39af373d236a1fe415cb0c2d7beb',
    pkEm_hex: '04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c403ce65c9bfcb9382657222d18c4',
    ikmR_hex: '668b37171f1072f3cf12ea8a236a45df23fc13b82af3609ad1e354f6ef817550',
    skRm_hex: 'f3ce7fdae57e1a310d87f1ebbde6f328be0a99cdbcadf4d6589cf29de4b8ffd2',
    pkRm_hex: '04fe8c19ce0905191ebc298a9245792531f26f0cece2460639e8bc39cb7f706a826a779b4cf969b8a0e539c7f62fb3d30ad6aa8f80e30f1d128aafd68a2ce72ea0',
    enc_hex: '04a92719c6195d5085104f469a8b9814d5838ff72b60501e2c4466e5e67b325ac98536d7b61a1af4b78e5b7f951c0900be863c403ce65c9bfcb9382657222d18c4',
    aad_hex: '436f756e742d30',
    pt_hex: '4265617574792069732074727574682c20747275746820626561757479',
    ct_hex: '5ad590bb8baa577f8619db35a36311226a896e7342a6d836d8b7bcd2f20b6c7f9076ac232e3ab2523f39513434',
  };
}

async function roster() {
  const web = { member_id: IDS.web_member_id, sign_pub: K.web_sign.pub, enc_pub: K.web_enc.pub };
  const cli = { member_id: IDS.cli_member_id, sign_pub: K.cli_sign.pub, enc_pub: K.cli_enc.pub };
  const out = [];
  let prev = '';
  const steps = [
    { kind: 'genesis', by: web.member_id, m: web, label: 'web', device_id: null },
    { kind: 'add', by: web.member_id, m: cli, label: 'laptop', device_id: null },
    { kind: 'remove', by: web.member_id, m: cli, label: 'laptop', device_id: IDS.cli_device_id, rotated_to: ROTATED_TO },
  ];
  for (const [seq, s] of steps.entries()) {
    const body = F.statementBody({ seq, prev, kind: s.kind, by: s.by, member_id: s.m.member_id, sign_pub: s.m.sign_pub,
      enc_pub: s.m.enc_pub, label: s.label, device_id: s.device_id, at: AT, rotated_to: s.rotated_to });
    const signed = await F.signStatement(body, K.web_sign.sign);
    const h = F.statementHash(signed.statement);
    out.push({ index: seq, body, jcs: jcsText(body), statement: signed.statement, signature: signed.signature, hash: h });
    prev = h;
  }
  const verified = await F.verifyRoster(out);
  return {
    signer_public_jwk: K.web_sign.pub,
    entries: out,
    genesis_hash: verified.genesisHash,
    active_after: { 2: [IDS.web_member_id, IDS.cli_member_id].sort(), 3: verified.active.map((m) => m.member_id).sort() },
  };
}

async function keyEnvelope() {
  const ekm = bytesOf('pouch vectors: hpke ekm, key envelope', 32);
  const e = await F.sealKeyEnvelope({ pouchId: IDS.pouch_id, memberId: IDS.cli_member_id, keyGen: 1, pouchKey: POUCH_KEY,
    encPub: K.cli_enc.pub, creatorId: IDS.web_member_id, creatorSignKey: K.web_sign.sign, ekm });
  return {
    pouch_id: IDS.pouch_id, member_id: IDS.cli_member_id, key_gen: 1, created_by_member: IDS.web_member_id,
    pouch_key_hex: hex(POUCH_KEY),
    info_hex: hex(F.keyEnvelopeInfo(IDS.pouch_id, IDS.cli_member_id, 1)),
    recipient_public_jwk: K.cli_enc.pub, recipient_private_jwk: K.cli_enc.priv,
    creator_public_jwk: K.web_sign.pub,
    ekm_hex: hex(ekm),
    signing_input_jcs: new TextDecoder().decode(F.keyEnvelopeSigningInput(e)),
    envelope: e,
  };
}

async function artifacts(chunkEntry) {
  const cases = [
    { artifactId: IDS.artifact_id, revisionId: IDS.revision_id, keyGen: 1, pouchKey: POUCH_KEY, nonce: bytesOf('pouch vectors: artifact nonce 1', 12),
      content: { name: 'notes/hello.txt', kind: 'file', size: 12, mtime: 1795427200000, mode: 420, data: b64url(utf8('hello, pouch')) } },
    { artifactId: IDS.artifact_id_2, revisionId: IDS.revision_id_2, keyGen: 2, pouchKey: POUCH_KEY_2, nonce: bytesOf('pouch vectors: artifact nonce 2', 12),
      content: { name: 'big/photo.raw', kind: 'file', size: chunkEntry.size, mtime: 1795427200000, chunks: [chunkEntry] } },
    { artifactId: IDS.artifact_id, revisionId: IDS.revision_id_2, keyGen: 2, pouchKey: POUCH_KEY_2, nonce: bytesOf('pouch vectors: artifact nonce 3', 12),
      content: { name: 'notes/hello.txt', kind: 'file', size: 0, mtime: 1795427300000, deleted: true } },
  ];
  const out = [];
  for (const c of cases) {
    const envelope = await F.sealArtifact({ pouchId: IDS.pouch_id, ...c });
    const signature = await F.signRevision(K.cli_sign.sign, IDS.pouch_id, c.artifactId, c.revisionId, envelope);
    out.push({
      pouch_id: IDS.pouch_id, artifact_id: c.artifactId, revision_id: c.revisionId, key_gen: c.keyGen,
      pouch_key_hex: hex(c.pouchKey), nonce_hex: hex(c.nonce),
      content: c.content, content_jcs: jcsText(c.content),
      artifact_key_hex: hex(await F.artifactKey(c.pouchKey, c.artifactId)),
      aad_hex: hex(F.artifactAad(IDS.pouch_id, c.artifactId, c.revisionId, c.keyGen)),
      envelope, envelope_hash: b64url(blake3(utf8(envelope))),
      signing_input_hex: hex(F.revisionSigningInput(IDS.pouch_id, c.artifactId, c.revisionId, envelope)),
      signer_public_jwk: K.cli_sign.pub, signature,
      name_index: await F.nameIndex(c.pouchKey, c.content.name),
    });
  }
  return out;
}

async function nameIndexes() {
  const names = ['docs/a.txt', 'caf\u00e9/menu.pdf', 'cafe\u0301/menu.pdf', '\u65e5\u672c/\u30e1\u30e2.txt'];
  return Promise.all(names.map(async (name) => ({
    pouch_key_hex: hex(POUCH_KEY), name, name_hex: hex(utf8(name)), nfc_hex: hex(utf8(name.normalize('NFC'))),
    index_key_hex: hex(await hkdf(POUCH_KEY, utf8('pouch/name-index/v1'))),
    name_index: await F.nameIndex(POUCH_KEY, name),
  })));
}

async function chunks() {
  const cases = [
    // 65,537 bytes: the smallest file that is stored in chunks (artifacts[1] is this file).
    { key: bytesOf('pouch vectors: chunk key 1', 32), nonce: bytesOf('pouch vectors: chunk nonce 1', 12), pt: Uint8Array.from({ length: F.INLINE_MAX + 1 }, (_, i) => (i * 7) % 256) },
    { key: bytesOf('pouch vectors: chunk key 2', 32), nonce: bytesOf('pouch vectors: chunk nonce 2', 12), pt: utf8('the last, short chunk') },
  ];
  return Promise.all(cases.map(async (c) => {
    const { stored, entry } = await F.sealChunk(c.pt, c.key, c.nonce);
    return { key_hex: hex(c.key), nonce_hex: hex(c.nonce), aad_hex: hex(utf8('pouch/chunk/v1')), plaintext_hex: hex(c.pt),
      stored_hex: hex(stored), stored_size: stored.length, entry };
  }));
}

// Content-defined chunk boundaries (CLIENT-FORMAT.md "Chunk boundaries"): streams made of parts
// (BLAKE3's extendable output of a seed string, or a run of one byte value), so no large data is
// stored, and the chunk lengths a writer cuts them into. Seed F is the first of 'A'..'H' whose
// 12 MiB stream has a cut under each mask and a chunk that reaches max with no cut; E has three
// cuts under the hard mask.
const CDC_SEED = 'pouch vectors: cdc stream F';
const CDC_SEED_B = 'pouch vectors: cdc stream E';
export function cdcStream(parts) {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    if ('blake3_xof' in p) out.set(blake3Xof(utf8(p.blake3_xof), { dkLen: p.length }), at);
    else out.fill(p.byte, at, at + p.length);
    at += p.length;
  }
  return out;
}

function cdc() {
  const MiB = 1048576;
  const xof = (seed, length) => ({ blake3_xof: seed, length });
  const run = (byte, length) => ({ byte, length });
  const streams = [
    ['below_min', 'one byte short of min: one chunk', [xof(CDC_SEED, C.CDC_MIN - 1)]],
    ['at_min', 'exactly min: one chunk', [xof(CDC_SEED, C.CDC_MIN)]],
    ['min_plus_1', 'min + 1: the one byte after min is hashed, the chunk is the whole stream', [xof(CDC_SEED, C.CDC_MIN + 1)]],
    ['random_12mib', '12 MiB cut all the way through', [xof(CDC_SEED, 12 * MiB)]],
    ['random_12mib_insert_at_0', 'random_12mib with one byte inserted at the start: every boundary after the first is random_12mib\'s moved by one',
      [run(0x2a, 1), xof(CDC_SEED, 12 * MiB)]],
    ['zeros', 'a run of zero bytes never meets a mask: cut at max, the tail is the rest', [run(0, 9 * MiB)]],
    ['random_zeros_random', 'random, a run of zero bytes that reaches max, random again', [xof(CDC_SEED_B, 3 * MiB), run(0, 6 * MiB), xof(CDC_SEED, 5 * MiB)]],
  ];
  const gear = C.cdcGear();
  return {
    about: 'cdc_cut over streams, each the concatenation of its parts: {blake3_xof: s, length: n} is the first n bytes of BLAKE3\'s '
      + 'extendable output of utf8(s), {byte: b, length: n} is n bytes of value b. chunk_lengths: what a writer cuts the whole stream into, '
      + 'each cut made on min(max, rest) bytes from the chunk start. gear_first: gear[0..3], gear_last: gear[255].',
    gear_context: 'pouch/cdc/v1',
    gear_first: Array.from(gear.subarray(0, 4)),
    gear_last: gear[255],
    min: C.CDC_MIN, normal: C.CDC_NORMAL, max: C.CDC_MAX, mask_hard: C.CDC_MASK_HARD, mask_easy: C.CDC_MASK_EASY,
    streams: streams.map(([name, about, parts]) => ({ name, about, parts, chunk_lengths: C.cdcChunkLengths(cdcStream(parts)) })),
  };
}

async function share() {
  const key = bytesOf('pouch vectors: share key K', 32);
  const data = utf8('Hello from a share link.\n');
  const meta = { v: 1, name: 'hello.txt', kind: 'file', size: data.length, mtime: 1795427200000, type: 'text/plain' };
  const nonce = bytesOf('pouch vectors: share nonce', 12);
  const nonce2 = bytesOf('pouch vectors: share label nonce', 12);
  const label = 'hello.txt for Ada';
  const sealed = await F.sealShare({ shareId: IDS.share_id, key, meta, data, label, nonce, nonce2 });
  return {
    share_id: IDS.share_id, key_hex: hex(key), key_b64url: b64url(key), meta, meta_jcs: jcsText(meta),
    file_hex: hex(data), label, nonce_hex: hex(nonce), nonce2_hex: hex(nonce2),
    payload_hex: hex(F.sharePayload(meta, data)),
    bundle_aad_hex: hex(concat(utf8('pouch/share/v1'), utf8(IDS.share_id))),
    label_aad_hex: hex(concat(utf8('pouch/share-label/v1'), utf8(IDS.share_id))),
    bundle: sealed.bundle, label_enc: sealed.label_enc,
    link: F.shareLink('http://127.0.0.1:8080', IDS.share_id, key),
  };
}

async function welcome(rosterVectors) {
  const add = rosterVectors.entries[1];
  const w = {
    v: 1, account_id: IDS.account_id, genesis_hash: rosterVectors.genesis_hash,
    roster_head: { seq: 1, hash: add.hash },
    approver: { member_id: IDS.web_member_id, sign_pub: K.web_sign.pub, enc_pub: K.web_enc.pub },
  };
  const ekm = bytesOf('pouch vectors: hpke ekm, welcome', 32);
  return {
    request_id: IDS.request_id, info_hex: hex(F.welcomeInfo(IDS.request_id)),
    welcome: w, welcome_jcs: jcsText(w),
    recipient_public_jwk: K.cli_enc.pub, recipient_private_jwk: K.cli_enc.priv, ekm_hex: hex(ekm),
    welcome_string: await F.sealWelcome(K.cli_enc.pub, IDS.request_id, w, ekm),
  };
}

async function recoveryKit() {
  const code = bytesOf('pouch vectors: recovery code', 20);
  const salt = bytesOf('pouch vectors: salt', 16);
  const nonce = bytesOf('pouch vectors: recovery nonce', 12);
  const { code: codeText, kit } = await F.makeRecoveryKit({ accountId: IDS.account_id, memberId: IDS.web_member_id,
    createdAt: AT, signPriv: K.web_sign.priv, encPriv: K.web_enc.priv, code, salt, nonce });
  const typed = codeText.toLowerCase().replace(/-/g, ' ').replace(/0/g, 'o').replace(/1/g, 'l');
  return {
    code_bytes_hex: hex(code), code: codeText, code_as_typed: typed, salt_hex: hex(salt), nonce_hex: hex(nonce),
    kek_hex: hex(await hkdf(code, utf8('pouch/recovery/v1'), salt)),
    aad_hex: hex(concat(utf8('pouch/recovery/v1'), utf8(IDS.web_member_id))),
    secret_jcs: jcsText({ sign_priv: K.web_sign.priv, enc_priv: K.web_enc.priv }),
    kit,
  };
}

async function confirmCodes() {
  const jkt = await jwkThumbprint(K.cli_sign.pub);
  return [
    { request_id: IDS.request_id, jkt, code: await F.confirmCode(IDS.request_id, jkt) },
    { request_id: IDS.share_id, jkt: '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I', code: await F.confirmCode(IDS.share_id, '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I') },
  ];
}

// The approval link, its v2 confirm code and the key fingerprint (decisions §15), made with the
// web app's approval.js.
async function confirmCodesV2() {
  const cases = [
    { origin: 'https://pouch.example', request_id: IDS.request_id, sign: K.cli_sign.pub, enc: K.cli_enc.pub, nonce: bytesOf('pouch vectors: confirm nonce 1', 16) },
    { origin: 'http://127.0.0.1:8080', request_id: IDS.share_id, sign: K.web_sign.pub, enc: K.web_enc.pub, nonce: bytesOf('pouch vectors: confirm nonce 2', 16) },
  ];
  const out = [];
  for (const c of cases) {
    const signJkt = await jwkThumbprint(c.sign);
    const encJkt = await jwkThumbprint(c.enc);
    out.push({
      origin: c.origin, request_id: c.request_id, sign_pub: c.sign, enc_pub: c.enc, nonce_hex: hex(c.nonce),
      sign_jkt: signJkt, enc_jkt: encJkt,
      info_hex: hex(concat(utf8(A.CONFIRM_LABEL), utf8(c.request_id), utf8(signJkt), utf8(encJkt))),
      code: await A.confirmCodeV2(c.nonce, c.request_id, signJkt, encJkt),
      fingerprint: A.keyFingerprint(signJkt),
      link: A.approvalLink(c.origin, c.request_id, c.sign, c.enc, c.nonce),
    });
  }
  return out;
}

// What a reader refuses (CLIENT-FORMAT "Removed members" and "Key envelope"): the reader is the
// web member, the roster is `roster.entries` (cli removed with rotated_to 3), the pouch asked
// for is ids.pouch_id. Key envelopes: `refusal` is null when the reader's checks pass, and
// `accepted` says whether the envelope then opens with a verified signature.
async function refusals() {
  const stranger = keyFrom('pouch vectors: stranger sign key');
  const seal = (label, o) => F.sealKeyEnvelope({ pouchId: IDS.pouch_id, memberId: IDS.web_member_id, pouchKey: POUCH_KEY_2,
    encPub: K.web_enc.pub, creatorId: IDS.web_member_id, creatorSignKey: K.web_sign.sign, ekm: bytesOf(`pouch vectors: hpke ekm, ${label}`, 32), ...o });
  const byRemovedAt = await seal('removed at rotated_to', { keyGen: ROTATED_TO, creatorId: IDS.cli_member_id, creatorSignKey: K.cli_sign.sign });
  const byRemovedBelow = await seal('removed below rotated_to', { keyGen: ROTATED_TO - 1, creatorId: IDS.cli_member_id, creatorSignKey: K.cli_sign.sign });
  const otherPouch = await seal('another pouch', { keyGen: 2, pouchId: IDS.other_pouch_id });
  const otherMember = await seal('another member', { keyGen: 2, memberId: IDS.cli_member_id, encPub: K.cli_enc.pub });
  const unknown = await seal('unknown creator', { keyGen: 2, creatorId: IDS.stranger_member_id, creatorSignKey: stranger.sign });
  const good = await seal('bad signature', { keyGen: 4 });
  const badSig = { ...good, signature: byRemovedBelow.signature };
  const envelope = (name, e, refusal, accepted) => ({
    case: name, envelope: e, refusal, accepted, ...(accepted ? { pouch_key_hex: hex(POUCH_KEY_2) } : {}),
  });
  const revision = async (name, keyGen, revisionId, accepted) => {
    const content = { name: 'notes/late.txt', kind: 'file', size: 4, mtime: 1795427400000, data: b64url(utf8('late')) };
    const envelope = await F.sealArtifact({ pouchId: IDS.pouch_id, artifactId: IDS.artifact_id, revisionId, keyGen, pouchKey: POUCH_KEY_2,
      content, nonce: bytesOf(`pouch vectors: refused revision nonce ${keyGen}`, 12) });
    return {
      case: name, pouch_id: IDS.pouch_id, artifact_id: IDS.artifact_id, revision_id: revisionId, key_gen: keyGen,
      pouch_key_hex: hex(POUCH_KEY_2), envelope,
      signature: await F.signRevision(K.cli_sign.sign, IDS.pouch_id, IDS.artifact_id, revisionId, envelope),
      signer_member_id: IDS.cli_member_id, content_jcs: jcsText(content), accepted,
    };
  };
  return {
    reader_member_id: IDS.web_member_id,
    reader_private_jwk: K.web_enc.priv,
    pouch_id: IDS.pouch_id,
    rotated_to: ROTATED_TO,
    stranger_public_jwk: stranger.pub,
    key_envelopes: [
      envelope('made by a removed member at its rotated_to', byRemovedAt, 'creator_removed', false),
      envelope('made by a removed member below its rotated_to', byRemovedBelow, null, true),
      envelope('for another pouch', otherPouch, 'wrong_pouch', false),
      envelope('sealed to another member', otherMember, 'wrong_member', false),
      envelope('made by a member not in the roster', unknown, 'unknown_creator', false),
      envelope('with another envelope\'s signature', badSig, null, false),
    ],
    revisions: [
      await revision('signed by a removed member at its rotated_to', ROTATED_TO, IDS.revision_id_3, false),
      await revision('signed by a removed member below its rotated_to', ROTATED_TO - 1, IDS.revision_id_3, true),
    ],
  };
}

// ---- sharing (docs/SHARING.md) ----------------------------------------------------------------

// Three accounts, each with a genesis (web) member and an identity; a pouch the owner shares with
// bea and cy. Every key and id here is new: the members above `sharing` are unchanged.
const S = {
  ids: {
    owner_account_id: 'a0000000-0000-4000-8000-00000000000a',
    bea_account_id: 'b0000000-0000-4000-8000-00000000000b',
    cy_account_id: '0c000000-0000-4000-8000-00000000000c',
    owner_member_id: 'a1111111-1111-4111-8111-111111111111',
    bea_member_id: 'b2222222-2222-4222-8222-222222222222',
    cy_member_id: 'c3333333-3333-4333-8333-333333333333',
    bea_cli_member_id: 'b4444444-4444-4444-8444-444444444444',
    pouch_id: 'd5555555-5555-4555-8555-555555555555',
    other_pouch_id: 'e6666666-6666-4666-8666-666666666666',
    stranger_account_id: 'f7777777-7777-4777-8777-777777777777',
  },
  keys: Object.fromEntries(['owner', 'bea', 'cy', 'stranger'].flatMap((a) => [
    [`${a}_member_sign`, keyFrom(`pouch vectors: sharing ${a} member sign key`)],
    [`${a}_member_enc`, keyFrom(`pouch vectors: sharing ${a} member enc key`)],
    [`${a}_identity_sign`, keyFrom(`pouch vectors: sharing ${a} identity sign key`)],
    [`${a}_identity_enc`, keyFrom(`pouch vectors: sharing ${a} identity enc key`)],
  ]).concat([['bea_cli_enc', keyFrom('pouch vectors: sharing bea cli member enc key')]])),
};
const SHARING_AT = '2026-11-27T10:00:00Z';
const accountOf = (name) => S.ids[`${name}_account_id`];
const identityOf = (name) => ({ sign_pub: S.keys[`${name}_identity_sign`].pub, enc_pub: S.keys[`${name}_identity_enc`].pub });
const pouchKeyAt = (gen) => bytesOf(`pouch vectors: sharing pouch key, key_gen ${gen}`, 32);

async function sharingAccount(name) {
  const member = S.ids[`${name}_member_id`] ?? 'f8888888-8888-4888-8888-888888888888';
  const body0 = F.statementBody({ seq: 0, prev: '', kind: 'genesis', by: member, member_id: member,
    sign_pub: S.keys[`${name}_member_sign`].pub, enc_pub: S.keys[`${name}_member_enc`].pub, label: 'web', at: SHARING_AT });
  const genesis = await F.signStatement(body0, S.keys[`${name}_member_sign`].sign);
  const body = F.identityBody({ account_id: accountOf(name), genesis_hash: F.statementHash(genesis.statement), by: member,
    ...identityOf(name), at: SHARING_AT });
  const identity = await F.signIdentity(body, S.keys[`${name}_member_sign`].sign);
  await F.verifyIdentity(identity, genesis);
  return {
    account_id: accountOf(name), genesis_member_id: member, genesis, genesis_hash: body.genesis_hash,
    identity_body: body, identity_jcs: jcsText(body), identity,
    member_sign_private_jwk: S.keys[`${name}_member_sign`].priv, member_enc_private_jwk: S.keys[`${name}_member_enc`].priv,
    identity_sign_private_jwk: S.keys[`${name}_identity_sign`].priv, identity_enc_private_jwk: S.keys[`${name}_identity_enc`].priv,
  };
}

// One access list statement about `about` by `by`, chained after `prev` (a list of signed items).
async function accessItem(items, { kind, by, about, role, key_gen, signer, identity, patch }) {
  const seq = items.length;
  let body = F.accessBody({ pouch_id: S.ids.pouch_id, seq, prev: seq ? F.statementHash(items[seq - 1].statement) : '', kind,
    by: accountOf(by), account_id: accountOf(about), identity: identity ?? identityOf(about), role, key_gen, at: SHARING_AT });
  if (patch) body = patch(body);
  const signed = await F.signAccess(body, S.keys[`${signer ?? by}_identity_sign`].sign);
  return { index: seq, body, jcs: jcsText(body), statement: signed.statement, signature: signed.signature, hash: F.statementHash(signed.statement) };
}

// The list of the vectors: the pouch was at generation 2 when the owner first shared it.
const ACCESS_STEPS = [
  { kind: 'share', by: 'owner', about: 'owner', role: 'admin', key_gen: 2 },
  { kind: 'share', by: 'owner', about: 'bea', role: 'write', key_gen: 2 },
  { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2 },
  { kind: 'role', by: 'owner', about: 'cy', role: 'admin', key_gen: 2 },
  { kind: 'role', by: 'cy', about: 'bea', role: 'read', key_gen: 3 },
  { kind: 'remove', by: 'cy', about: 'bea', role: 'read', key_gen: 4 },
  { kind: 'share', by: 'cy', about: 'bea', role: 'write', key_gen: 4 },
  { kind: 'leave', by: 'owner', about: 'owner', role: 'admin', key_gen: 5 },
];

async function accessList(steps) {
  const items = [];
  for (const s of steps) items.push(await accessItem(items, s));
  return items;
}

async function sharingRefusals(good) {
  const prefix = (n) => good.slice(0, n).map(({ index, statement, signature }) => ({ index, statement, signature }));
  // A list of the first n good statements, then `step`; the reader must refuse statement n.
  const withBad = async (name, n, step, rule) => {
    const items = good.slice(0, n);
    const bad = await accessItem(items, step);
    return { case: name, rule, pouch_id: S.ids.pouch_id, items: [...prefix(n), { index: n, statement: bad.statement, signature: bad.signature }], fails_at: n };
  };
  const lists = [
    await withBad('seq skips an index', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2, patch: (b) => ({ ...b, seq: 3 }) }, 1),
    await withBad('prev does not hash the previous statement', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2, patch: (b) => ({ ...b, prev: good[0].hash }) }, 1),
    await withBad('another pouch', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2, patch: (b) => ({ ...b, pouch_id: S.ids.other_pouch_id }) }, 1),
    await withBad('a share with rotated_to', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2, patch: (b) => ({ ...b, rotated_to: 2 }) }, 1),
    await withBad('a remove whose rotated_to is not its key_gen', 3, { kind: 'remove', by: 'owner', about: 'cy', role: 'read', key_gen: 3, patch: (b) => ({ ...b, rotated_to: 4 }) }, 1),
    await withBad('statement 0 shares with another account', 0, { kind: 'share', by: 'owner', about: 'bea', role: 'admin', key_gen: 2 }, 2),
    await withBad('statement 0 gives the owner role write', 0, { kind: 'share', by: 'owner', about: 'owner', role: 'write', key_gen: 2 }, 2),
    await withBad('statement 0 signed with another identity', 0, { kind: 'share', by: 'owner', about: 'owner', role: 'admin', key_gen: 2, signer: 'bea' }, 2),
    await withBad('signed by a writer', 3, { kind: 'role', by: 'bea', about: 'cy', role: 'write', key_gen: 2 }, 3),
    await withBad('signed by an account not in the list', 2, { kind: 'share', by: 'stranger', about: 'cy', role: 'read', key_gen: 2 }, 3),
    await withBad('signature by another identity', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 2, signer: 'cy' }, 3),
    await withBad('a leave signed by another account', 3, { kind: 'leave', by: 'owner', about: 'cy', role: 'read', key_gen: 3 }, 3),
    await withBad('names an account in the list with another identity', 3, { kind: 'role', by: 'owner', about: 'cy', role: 'write', key_gen: 2, identity: identityOf('stranger') }, 3),
    await withBad('shares with an account already in the list', 2, { kind: 'share', by: 'owner', about: 'bea', role: 'read', key_gen: 2 }, 4),
    await withBad('changes the role of an account not in the list', 2, { kind: 'role', by: 'owner', about: 'cy', role: 'write', key_gen: 2 }, 4),
    await withBad('removes itself', 4, { kind: 'remove', by: 'cy', about: 'cy', role: 'admin', key_gen: 3 }, 4),
    await withBad('key_gen goes down', 2, { kind: 'share', by: 'owner', about: 'cy', role: 'read', key_gen: 1 }, 5),
    await withBad('a remove without a new generation', 3, { kind: 'remove', by: 'owner', about: 'cy', role: 'read', key_gen: 2 }, 5),
    await withBad('lowering a role without a new generation', 3, { kind: 'role', by: 'owner', about: 'bea', role: 'read', key_gen: 2 }, 5),
    await withBad('the last admin leaves', 3, { kind: 'leave', by: 'owner', about: 'owner', role: 'admin', key_gen: 3 }, 6),
  ];
  return lists;
}

async function sharing() {
  const accounts = {};
  for (const name of ['owner', 'bea', 'cy', 'stranger']) accounts[name] = await sharingAccount(name);

  // Bea's web member seals the identity to her CLI member.
  const ekm = bytesOf('pouch vectors: hpke ekm, identity envelope', 32);
  const envelope = await F.sealIdentityEnvelope({ accountId: accountOf('bea'), memberId: S.ids.bea_cli_member_id,
    encPub: S.keys.bea_cli_enc.pub, signPriv: S.keys.bea_identity_sign.priv, encPriv: S.keys.bea_identity_enc.priv,
    creatorId: S.ids.bea_member_id, creatorSignKey: S.keys.bea_member_sign.sign, ekm });
  // The same, sealing the stranger's identity keys under bea's account: opens, but to keys that
  // are not bea's identity statement's.
  const wrongKeys = await F.sealIdentityEnvelope({ accountId: accountOf('bea'), memberId: S.ids.bea_cli_member_id,
    encPub: S.keys.bea_cli_enc.pub, signPriv: S.keys.stranger_identity_sign.priv, encPriv: S.keys.stranger_identity_enc.priv,
    creatorId: S.ids.bea_member_id, creatorSignKey: S.keys.bea_member_sign.sign, ekm: bytesOf('pouch vectors: hpke ekm, wrong identity envelope', 32) });

  const entries = await accessList(ACCESS_STEPS);
  const list = await F.verifyAccessList(S.ids.pouch_id, entries);
  const roleAt = [];
  for (const name of ['owner', 'bea', 'cy', 'stranger']) {
    for (let k = 1; k <= 6; k++) roleAt.push({ account_id: accountOf(name), key_gen: k, role: list.roleAt(accountOf(name), k) });
  }

  // Grants to bea: the owner's of generations 1 and 2 (the invitation), cy's of 3 and 5
  // (rotations), the owner's of 4 (before it left at 5).
  const grant = async (gen, by, o = {}) => F.sealKeyGrant({ pouchId: S.ids.pouch_id, accountId: accountOf('bea'), keyGen: gen,
    pouchKey: pouchKeyAt(gen), encPub: S.keys.bea_identity_enc.pub, grantedBy: accountOf(by),
    granterSignKey: S.keys[`${by}_identity_sign`].sign, ekm: bytesOf(`pouch vectors: hpke ekm, grant ${gen} by ${by}${o.label ?? ''}`, 32), ...o.args });
  const grants = [];
  for (const [gen, by] of [[1, 'owner'], [2, 'owner'], [3, 'cy'], [4, 'owner'], [5, 'cy']]) {
    const g = await grant(gen, by);
    grants.push({ key_gen: gen, granted_by: accountOf(by), pouch_key_hex: hex(pouchKeyAt(gen)),
      info_hex: hex(F.keyGrantInfo(S.ids.pouch_id, accountOf('bea'), gen)),
      ekm_hex: hex(bytesOf(`pouch vectors: hpke ekm, grant ${gen} by ${by}`, 32)),
      signing_input_jcs: new TextDecoder().decode(F.keyGrantSigningInput(g)), grant: g });
  }
  const g2 = grants[1].grant;
  const grantCase = (name, g, refusal, accepted) => ({ case: name, grant: g, refusal, accepted, ...(accepted ? { pouch_key_hex: hex(pouchKeyAt(g.key_gen)) } : {}) });
  const grantRefusals = [
    grantCase('the owner\'s grant of a generation before its share', grants[0].grant, null, true),
    grantCase('for another pouch', await grant(2, 'owner', { label: ', other pouch', args: { pouchId: S.ids.other_pouch_id } }), 'wrong_pouch', false),
    grantCase('to another account', await grant(2, 'owner', { label: ', to cy', args: { accountId: accountOf('cy'), encPub: S.keys.cy_identity_enc.pub } }), 'wrong_account', false),
    grantCase('by an account never in the list', await grant(2, 'stranger'), 'unknown_granter', false),
    grantCase('by an account that left, at its rotated_to', await grant(5, 'owner'), 'unknown_granter', false),
    grantCase('by an account that left, below its rotated_to', grants[3].grant, null, true),
    grantCase('with another grant\'s signature', { ...g2, signature: grants[0].grant.signature }, 'bad_signature', false),
    grantCase('signed by another identity than granted_by\'s', await grant(2, 'owner', { label: ', signed by cy', args: { granterSignKey: S.keys.cy_identity_sign.sign } }), 'bad_signature', false),
    grantCase('sealed to another identity', await grant(2, 'owner', { label: ', sealed to cy', args: { encPub: S.keys.cy_identity_enc.pub } }), null, false),
  ];

  const pub = (name) => ({ account_id: accountOf(name), ...identityOf(name) });
  const safety = [['owner', 'bea'], ['bea', 'owner'], ['bea', 'cy']].map(([a, b]) => ({
    a: pub(a), b: pub(b),
    fingerprint_a_hex: hex(F.identityFingerprint(pub(a))), fingerprint_b_hex: hex(F.identityFingerprint(pub(b))),
    bytes_hex: hex(F.safetyNumberBytes(pub(a), pub(b))), digits: F.safetyNumber(pub(a), pub(b)), qr_text: F.safetyNumberQrText(pub(a), pub(b)),
  }));

  const forgedIdentity = await F.signIdentity(accounts.bea.identity_body, S.keys.bea_identity_sign.sign);
  const byOther = F.identityBody({ ...accounts.bea.identity_body, by: S.ids.bea_cli_member_id });
  return {
    about: 'docs/SHARING.md: identity statements bound to their genesis (§1), an identity envelope, the safety number (§3), '
      + 'an access list with the role at each generation (§4), key grants (§5), and what a reader refuses. For each '
      + 'refusals.access_lists case the first fails_at statements verify and the whole list is refused at statement fails_at '
      + '(rule: the step of §4 it breaks).',
    ids: S.ids,
    accounts,
    identity_envelope: {
      account_id: accountOf('bea'), member_id: S.ids.bea_cli_member_id, created_by_member: S.ids.bea_member_id,
      creator_public_jwk: S.keys.bea_member_sign.pub, recipient_public_jwk: S.keys.bea_cli_enc.pub, recipient_private_jwk: S.keys.bea_cli_enc.priv,
      info_hex: hex(F.identityEnvelopeInfo(accountOf('bea'), S.ids.bea_cli_member_id)),
      secret_jcs: jcsText({ sign_d: S.keys.bea_identity_sign.priv.d, enc_d: S.keys.bea_identity_enc.priv.d }),
      ekm_hex: hex(ekm), signing_input_jcs: new TextDecoder().decode(F.identityEnvelopeSigningInput(envelope)), envelope,
    },
    access_list: {
      pouch_id: S.ids.pouch_id, owner: accountOf('owner'), key_gen: list.keyGen, head: list.head,
      entries, role_at: roleAt,
    },
    key_grants: { reader_account_id: accountOf('bea'), reader_private_jwk: S.keys.bea_identity_enc.priv, pouch_id: S.ids.pouch_id, grants },
    safety_numbers: safety,
    refusals: {
      identities: [
        { case: 'the genesis of another account', identity: accounts.bea.identity, genesis: accounts.cy.genesis },
        { case: 'signed with the identity key, not the genesis member\'s', identity: forgedIdentity, genesis: accounts.bea.genesis },
        { case: 'by a member that is not the genesis member', identity: await F.signIdentity(byOther, S.keys.bea_member_sign.sign), genesis: accounts.bea.genesis },
      ],
      identity_envelopes: [
        { case: 'holds keys other than the identity statement\'s', envelope: wrongKeys, account: 'bea' },
        { case: 'with another envelope\'s signature', envelope: { ...envelope, signature: wrongKeys.signature }, account: 'bea' },
      ],
      access_lists: await sharingRefusals(entries),
      // A revision signed by a member of account_id at key_gen (its own roster aside).
      revisions: [['bea', 2, 'write'], ['bea', 3, 'read'], ['bea', 4, 'write'], ['cy', 2, 'admin'], ['owner', 1, 'admin'],
        ['owner', 5, 'left'], ['bea', 1, 'before its share'], ['stranger', 2, 'never in the list']].map(([name, k, why]) => ({
        case: `${name} at ${k} (${why})`, account_id: accountOf(name), key_gen: k, refusal: list.revisionRefusal(accountOf(name), k),
      })),
      key_grants: grantRefusals,
    },
  };
}

export async function makeVectors() {
  const chunkVectors = await chunks();
  const rosterVectors = await roster();
  return {
    v: 1,
    about: 'Test vectors of docs/CLIENT-FORMAT.md, made by clients/web/tools/vectors.mjs from fixed inputs. '
      + 'Bytes are hex (*_hex) or unpadded base64url (*_b64url and the format\'s own string fields); JSON objects are given as objects '
      + 'and their JCS as strings (*_jcs). Signatures are deterministic ECDSA (RFC 6979), low-S (S <= n/2) as signers make them, '
      + 'but any valid ES256 signature is acceptable, high-S included (primitives.es256[1]): check them by verifying. '
      + 'HPKE seals used the given ekm (ephemeral key material, RFC 9180 DeriveKeyPair): check them by opening.',
    keys: Object.fromEntries(Object.entries(K).map(([name, k]) => [name, { public_jwk: k.pub, private_jwk: k.priv }])),
    ids: IDS,
    primitives: await primitives(),
    hpke_rfc9180_a3: rfc9180(),
    roster: rosterVectors,
    key_envelope: await keyEnvelope(),
    chunks: chunkVectors,
    cdc: cdc(),
    artifacts: await artifacts(chunkVectors[0].entry),
    name_index: await nameIndexes(),
    share: await share(),
    welcome: await welcome(rosterVectors),
    recovery_kit: await recoveryKit(),
    confirm_code: await confirmCodes(),
    confirm_code_v2: await confirmCodesV2(),
    refusals: await refusals(),
    sharing: await sharing(),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = JSON.stringify(await makeVectors(), null, 2) + '\n';
  const [flag, file] = process.argv.slice(2);
  if (flag === '--write') {
    fs.writeFileSync(file, text);
  } else if (flag === '--check') {
    if (fs.readFileSync(file, 'utf8') !== text) {
      console.error(`${file} differs from what tools/vectors.mjs makes`);
      process.exit(1);
    }
  } else {
    process.stdout.write(text);
  }
}
