// vectors.mjs -- makes docs/client-format-vectors.json from fixed inputs with the web app's own
// crypto module (src/crypto/format.js). Everything is deterministic: nonces, keys and HPKE
// ephemeral key material are fixed inputs, and ES256 signatures are made with RFC 6979
// deterministic ECDSA (@noble/curves) through the module's signer hook, so running it again
// gives the same bytes. `node tools/vectors.mjs` prints the JSON; `--write FILE` writes it;
// `--check FILE` fails when FILE differs (the interop suite compares makeVectors() with the file
// itself).
import * as fs from 'node:fs';

import { p256 } from '@noble/curves/nist.js';
import { sha256 } from '@noble/hashes/sha2.js';

import * as A from '../src/approval.js';
import { b64url, concat, hex, unb64url as unb64, utf8 } from '../src/crypto/bytes.js';
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
    artifacts: await artifacts(chunkVectors[0].entry),
    name_index: await nameIndexes(),
    share: await share(),
    welcome: await welcome(rosterVectors),
    recovery_kit: await recoveryKit(),
    confirm_code: await confirmCodes(),
    confirm_code_v2: await confirmCodesV2(),
    refusals: await refusals(),
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
