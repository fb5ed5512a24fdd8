// format.js -- the client format of docs/CLIENT-FORMAT.md, one function per construction:
// roster statements and chain verification, key envelopes and the reader's checks of them,
// artifact envelopes, content shapes and chunks, name_index, share bundles, the welcome, the
// recovery kit and the service's v1 confirm code (for its vectors; the approval page's v2 code
// is approval.js's). Every random
// input (nonces, keys, HPKE ephemeral key material) can be passed in, so the vectors in
// docs/client-format-vectors.json are made by this very code. Relies on primitives.js.
import {
  FormatError, b64url, concat, fromUtf8, id, packBits, randomBytes, readU32be, u32be,
  u64be, unb64url, unpackBits, utf8, uuidText,
} from './bytes.js';
import {
  aesGcmOpen, aesGcmSeal, blake3, es256Sign, es256Verify, hkdf, hmacSha256, hpkeOpen,
  hpkeSeal, jcs, jcsText, publicJwk, sameJwk, sha256,
} from './primitives.js';

const LABELS = {
  keyEnvelope: 'pouch/key-envelope/v1',
  artifact: 'pouch/artifact/v1',
  nameIndex: 'pouch/name-index/v1',
  chunk: 'pouch/chunk/v1',
  share: 'pouch/share/v1',
  shareLabel: 'pouch/share-label/v1',
  welcome: 'pouch/welcome/v1',
  recovery: 'pouch/recovery/v1',
  confirm: 'pouch-confirm-v1',
};

export const INLINE_MAX = 65536;
export const CHUNK_SIZE = 4 * 1024 * 1024;

// ---- roster statements -------------------------------------------------------------------

export const statementHash = (statement) => b64url(blake3(utf8(statement)));

// The body of a statement, fields in the table's order (JCS sorts them anyway). A `remove`
// carries rotated_to (an integer >= 2: the generation its rotation moves the pouches to);
// genesis and add never do.
export function statementBody({ seq, prev, kind, by, member_id, sign_pub, enc_pub, label, device_id = null, at, rotated_to }) {
  const body = {
    v: 1, seq, prev, kind, by: uuidText(by), member_id: uuidText(member_id),
    sign_pub: publicJwk(sign_pub), enc_pub: publicJwk(enc_pub), label,
    device_id: device_id === null ? null : uuidText(device_id), at,
  };
  if (kind === 'remove') {
    if (!Number.isSafeInteger(rotated_to) || rotated_to < 2) throw new FormatError('a remove statement needs rotated_to, an integer of 2 or more');
    body.rotated_to = rotated_to;
  } else if (rotated_to !== undefined) {
    throw new FormatError('only a remove statement carries rotated_to');
  }
  return body;
}

// rotated_to for pouches whose current generations are `gens`: the highest + 1, at least 2.
export const rotatedToOf = (gens) => Math.max(1, ...gens) + 1;

export async function signStatement(body, signKey) {
  const bytes = jcs(body);
  return { statement: b64url(bytes), signature: b64url(await es256Sign(signKey, bytes)) };
}

// statement string → body; refuses anything that is not exactly JCS of a v1 body.
export function decodeStatement(statement) {
  let text;
  let body;
  try {
    text = fromUtf8(unb64url(statement));
    body = JSON.parse(text);
  } catch {
    throw new FormatError('a roster statement is not b64url of JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new FormatError('a roster statement is not an object');
  if (jcsText(body) !== text) throw new FormatError('a roster statement is not in canonical (JCS) form');
  if (body.v !== 1) throw new FormatError('unknown roster statement version');
  if (!['genesis', 'add', 'remove'].includes(body.kind)) throw new FormatError(`unknown statement kind ${body.kind}`);
  const keys = Object.keys(body).sort().join(',');
  const want = body.kind === 'remove'
    ? 'at,by,device_id,enc_pub,kind,label,member_id,prev,rotated_to,seq,sign_pub,v'
    : 'at,by,device_id,enc_pub,kind,label,member_id,prev,seq,sign_pub,v';
  if (keys !== want) throw new FormatError(`a roster ${body.kind} statement has the wrong fields (${keys})`);
  if (body.kind === 'remove' && (!Number.isSafeInteger(body.rotated_to) || body.rotated_to < 2)) {
    throw new FormatError('a remove statement\'s rotated_to must be an integer of 2 or more');
  }
  uuidText(body.by);
  uuidText(body.member_id);
  if (body.by !== body.by.toLowerCase() || body.member_id !== body.member_id.toLowerCase()) {
    throw new FormatError('roster ids must be lower case');
  }
  publicJwk(body.sign_pub);
  publicJwk(body.enc_pub);
  if (typeof body.label !== 'string' || [...body.label].length > 64) throw new FormatError('bad roster label');
  if (body.device_id !== null) uuidText(body.device_id);
  if (typeof body.at !== 'string') throw new FormatError('bad roster time');
  return body;
}

// Verifies the whole chain (CLIENT-FORMAT "Verifying the chain"). `items` are the roster
// entries [{index, statement, signature}] in index order. `pins` = [{seq, hash}] that must
// still hold (a welcome's head, the last verified head). Returns the membership.
export async function verifyRoster(items, pins = []) {
  const members = new Map();   // member_id → {member_id, sign_pub, enc_pub, label, added_seq, removed_seq, rotated_to, device_id}
  let prevHash = '';
  const hashes = [];
  for (let i = 0; i < items.length; i++) {
    const { statement, signature } = items[i];
    if (items[i].index !== undefined && items[i].index !== i) throw new FormatError(`roster entry ${i} has index ${items[i].index}`);
    const body = decodeStatement(statement);
    if (body.seq !== i) throw new FormatError(`roster statement ${i} says seq ${body.seq}`);
    if (body.prev !== prevHash) throw new FormatError(`roster statement ${i} does not follow statement ${i - 1}`);
    const msg = unb64url(statement);
    let sig;
    try { sig = unb64url(signature); } catch { throw new FormatError(`roster statement ${i}: bad signature encoding`); }
    if (i === 0) {
      if (body.kind !== 'genesis' || body.by !== body.member_id) throw new FormatError('roster statement 0 is not a genesis');
      if (!(await es256Verify(body.sign_pub, msg, sig))) throw new FormatError('the genesis signature does not verify');
      members.set(body.member_id, memberOf(body, i));
    } else {
      if (body.kind === 'genesis') throw new FormatError(`roster statement ${i} is a second genesis`);
      const signer = members.get(body.by);
      if (!signer || signer.removed_seq !== null) throw new FormatError(`roster statement ${i} is signed by a non-member`);
      if (!(await es256Verify(signer.sign_pub, msg, sig))) throw new FormatError(`roster statement ${i}: signature does not verify`);
      if (body.kind === 'add') {
        if (members.has(body.member_id)) throw new FormatError(`roster statement ${i} adds a member twice`);
        members.set(body.member_id, memberOf(body, i));
      } else {
        const m = members.get(body.member_id);
        if (!m || m.removed_seq !== null) throw new FormatError(`roster statement ${i} removes a non-member`);
        if (!sameJwk(m.sign_pub, body.sign_pub) || !sameJwk(m.enc_pub, body.enc_pub)) {
          throw new FormatError(`roster statement ${i} removes a member with other keys`);
        }
        m.removed_seq = i;
        m.rotated_to = body.rotated_to;
        if (body.device_id) m.device_id = body.device_id;
      }
    }
    prevHash = statementHash(statement);
    hashes.push(prevHash);
  }
  for (const pin of pins) {
    if (pin.seq >= hashes.length || hashes[pin.seq] !== pin.hash) {
      throw new FormatError(`the roster no longer holds the statement pinned at ${pin.seq}`);
    }
  }
  const active = [...members.values()].filter((m) => m.removed_seq === null);
  return {
    members, active, hashes,
    genesisHash: hashes[0] ?? null,
    head: hashes.length ? { seq: hashes.length - 1, hash: hashes[hashes.length - 1] } : null,
  };
}

function memberOf(body, seq) {
  return {
    member_id: body.member_id, sign_pub: body.sign_pub, enc_pub: body.enc_pub, label: body.label,
    added_seq: seq, removed_seq: null, rotated_to: null, device_id: body.device_id,
  };
}

// Whether a key envelope `m` created, or a revision it signed, at keyGen is trusted
// (CLIENT-FORMAT "Removed members"): an active member, or one removed with rotated_to > keyGen.
export const trustedAt = (m, keyGen) => !!m && (m.removed_seq === null || keyGen < m.rotated_to);

// ---- key envelopes -----------------------------------------------------------------------

export const keyEnvelopeInfo = (pouchId, memberId, keyGen) =>
  concat(utf8(LABELS.keyEnvelope), id(pouchId), id(memberId), u64be(keyGen));

export function keyEnvelopeSigningInput(e) {
  return jcs({
    pouch_id: uuidText(e.pouch_id), member_id: uuidText(e.member_id), key_gen: e.key_gen,
    hpke_enc: e.hpke_enc, ciphertext: e.ciphertext, created_by_member: uuidText(e.created_by_member),
  });
}

// Seals `pouchKey` to the member's enc_pub and signs it with the creator's signing key.
export async function sealKeyEnvelope({ pouchId, memberId, keyGen, pouchKey, encPub, creatorId, creatorSignKey, ekm }) {
  const { enc, ct } = await hpkeSeal(encPub, keyEnvelopeInfo(pouchId, memberId, keyGen), pouchKey, ekm);
  const e = {
    pouch_id: uuidText(pouchId), member_id: uuidText(memberId), key_gen: keyGen,
    hpke_enc: b64url(enc), ciphertext: b64url(ct), created_by_member: uuidText(creatorId),
  };
  e.signature = b64url(await es256Sign(creatorSignKey, keyEnvelopeSigningInput(e)));
  return e;
}

// Why a reader refuses a key envelope before opening it (the vectors' `refusals`), or null:
// 'wrong_pouch' (not the pouch asked for), 'wrong_member' (not the reader's own member),
// 'bad_key_gen' (not an integer of 1 or more: no generation to file it under),
// 'unknown_creator' (not in the verified roster), 'creator_removed' (removed with
// rotated_to <= key_gen). The signature and HPKE are openKeyEnvelope's.
export function keyEnvelopeRefusal(e, roster, pouchId, memberId) {
  if (typeof e?.pouch_id !== 'string' || e.pouch_id.toLowerCase() !== String(pouchId).toLowerCase()) return 'wrong_pouch';
  if (typeof e.member_id !== 'string' || e.member_id.toLowerCase() !== String(memberId).toLowerCase()) return 'wrong_member';
  if (!Number.isSafeInteger(e.key_gen) || e.key_gen < 1) return 'bad_key_gen';
  const creator = typeof e.created_by_member === 'string' ? roster.members.get(e.created_by_member.toLowerCase()) : undefined;
  if (!creator) return 'unknown_creator';
  if (!trustedAt(creator, e.key_gen)) return 'creator_removed';
  return null;
}

// Opens an envelope addressed to us. `creatorSignPub` is the verified roster key of
// created_by_member; the signature is checked before anything is decrypted.
export async function openKeyEnvelope(e, encPair, creatorSignPub) {
  if (!(await es256Verify(creatorSignPub, keyEnvelopeSigningInput(e), unb64url(e.signature)))) {
    throw new FormatError('a key envelope signature does not verify');
  }
  const key = await hpkeOpen(encPair, keyEnvelopeInfo(e.pouch_id, e.member_id, e.key_gen),
    unb64url(e.hpke_enc), unb64url(e.ciphertext));
  if (key.length !== 32) throw new FormatError('a pouch key is not 32 bytes');
  return key;
}

// ---- artifact envelopes ------------------------------------------------------------------

export const artifactKey = (pouchKey, artifactId) => hkdf(pouchKey, concat(utf8(LABELS.artifact), id(artifactId)));

export const artifactAad = (pouchId, artifactId, revisionId, keyGen) =>
  concat(id(pouchId), id(artifactId), id(revisionId), u64be(keyGen));

export async function sealArtifact({ pouchId, artifactId, revisionId, keyGen, pouchKey, content, nonce = randomBytes(12) }) {
  const k = await artifactKey(pouchKey, artifactId);
  const sealed = await aesGcmSeal(k, nonce, artifactAad(pouchId, artifactId, revisionId, keyGen), jcs(content));
  return b64url(concat(nonce, sealed));
}

export async function openArtifact({ pouchId, artifactId, revisionId, keyGen, pouchKey, envelope }) {
  const raw = unb64url(envelope);
  if (raw.length < 28) throw new FormatError('an artifact envelope is too short');
  const k = await artifactKey(pouchKey, artifactId);
  const pt = await aesGcmOpen(k, raw.subarray(0, 12), artifactAad(pouchId, artifactId, revisionId, keyGen), raw.subarray(12));
  const content = JSON.parse(fromUtf8(pt));
  checkContent(content);
  return content;
}

export const revisionSigningInput = (pouchId, artifactId, revisionId, envelope) =>
  blake3(concat(id(pouchId), id(artifactId), id(revisionId), utf8(envelope)));

export async function signRevision(signKey, pouchId, artifactId, revisionId, envelope) {
  return b64url(await es256Sign(signKey, revisionSigningInput(pouchId, artifactId, revisionId, envelope)));
}

export async function verifyRevision(signPub, pouchId, artifactId, revisionId, envelope, signature) {
  let sig;
  try { sig = unb64url(signature); } catch { return false; }
  return es256Verify(signPub, revisionSigningInput(pouchId, artifactId, revisionId, envelope), sig);
}

// A path inside a pouch: NFC, `/`-separated, no leading `/`, no empty, `.` or `..` segment.
export function checkName(name) {
  if (typeof name !== 'string' || name.length === 0) return 'a name is required';
  if (name !== name.normalize('NFC')) return 'the name is not in Unicode NFC form';
  if (name.startsWith('/')) return 'a name must not start with /';
  for (const seg of name.split('/')) {
    if (seg === '') return 'a name must not have an empty segment (//, or / at the end)';
    if (seg === '.' || seg === '..') return 'a name must not have a . or .. segment';
  }
  return null;
}

// 43 b64url characters (32 bytes: the last one carries 4 bits, so only these 16 end one).
export const BLOB_ID = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
const B64URL = /^[A-Za-z0-9_-]*$/;

// The content's shape (CLIENT-FORMAT "Artifact envelope"), so nothing a writer chose reaches a
// URL or a buffer unchecked: `data` is b64url of exactly `size` bytes and only for
// size <= 65,536; `chunks` otherwise, each {blob_id: 43 b64url characters,
// size 1..4 MiB, key and hash: 43 b64url characters each}, sizes adding up to `size`; a
// file or note that is not a tombstone has one of them.
export function checkContent(c) {
  const bad = (why) => { throw new FormatError(`an artifact envelope holds no valid content: ${why}`); };
  if (!c || typeof c !== 'object' || Array.isArray(c)) bad('not an object');
  if (typeof c.name !== 'string' || !['file', 'note', 'folder'].includes(c.kind)) bad('name or kind');
  if (!Number.isSafeInteger(c.size) || c.size < 0 || !Number.isSafeInteger(c.mtime)) bad('size or mtime');
  if (c.mode !== undefined && (!Number.isSafeInteger(c.mode) || c.mode < 0 || c.mode > 0o7777)) bad('mode');
  if (c.deleted !== undefined && c.deleted !== true) bad('deleted');
  if (c.data !== undefined && c.chunks !== undefined) bad('both data and chunks');
  if (c.data !== undefined) {
    if (typeof c.data !== 'string' || !B64URL.test(c.data) || c.size > INLINE_MAX) bad('data');
    if (unb64url(c.data).length !== c.size) bad('data does not have `size` bytes');
  } else if (c.chunks !== undefined) {
    // (A writer follows the size rule exactly; a reader takes chunks for a smaller file too,
    // as a file can shrink while its chunks are made.)
    if (!Array.isArray(c.chunks)) bad('chunks');
    let total = 0;
    for (const ch of c.chunks) {
      if (!ch || typeof ch !== 'object' || !BLOB_ID.test(ch.blob_id) || !BLOB_ID.test(ch.key) || !BLOB_ID.test(ch.hash) ||
          !Number.isSafeInteger(ch.size) || ch.size < 1 || ch.size > CHUNK_SIZE) bad('a chunk entry');
      total += ch.size;
    }
    if (total !== c.size) bad('the chunks do not add up to `size`');
  } else if (c.kind !== 'folder' && c.deleted !== true) {
    bad('a file has neither data nor chunks');
  }
}

export async function nameIndex(pouchKey, name) {
  const k = await hkdf(pouchKey, utf8(LABELS.nameIndex));
  return b64url(await hmacSha256(k, utf8(name.normalize('NFC'))));
}

// ---- chunks ------------------------------------------------------------------------------

// One chunk of a large file → the bytes to upload and its entry in `content.chunks`.
export async function sealChunk(plaintext, key = randomBytes(32), nonce = randomBytes(12)) {
  const stored = concat(nonce, await aesGcmSeal(key, nonce, utf8(LABELS.chunk), plaintext));
  return {
    stored,
    entry: { blob_id: b64url(blake3(stored)), size: plaintext.length, key: b64url(key), hash: b64url(blake3(plaintext)) },
  };
}

export async function openChunk(stored, entry) {
  if (!BLOB_ID.test(entry?.blob_id) || b64url(blake3(stored)) !== entry.blob_id) throw new FormatError('a chunk does not match its blob id');
  const pt = await aesGcmOpen(unb64url(entry.key), stored.subarray(0, 12), utf8(LABELS.chunk), stored.subarray(12));
  if (pt.length !== entry.size || b64url(blake3(pt)) !== entry.hash) throw new FormatError('a chunk does not match its hash');
  return pt;
}

// ---- share links -------------------------------------------------------------------------

export function sharePayload(meta, data) {
  const m = jcs({ v: 1, name: meta.name, kind: meta.kind, size: meta.size, mtime: meta.mtime, type: meta.type ?? '' });
  return concat(u32be(m.length), m, data);
}

function parseSharePayload(payload) {
  if (payload.length < 4) throw new FormatError('a share payload is too short');
  const n = readU32be(payload, 0);
  if (4 + n > payload.length) throw new FormatError('a share payload is truncated');
  const meta = JSON.parse(fromUtf8(payload.subarray(4, 4 + n)));
  if (meta.v !== 1) throw new FormatError('unknown share format version');
  const data = payload.subarray(4 + n);
  if (meta.size !== data.length) throw new FormatError('a share payload has the wrong size');
  return { meta, data };
}

export async function sealShare({ shareId, key, meta, data, label, nonce = randomBytes(12), nonce2 = randomBytes(12) }) {
  const bundle = concat(nonce, await aesGcmSeal(key, nonce, concat(utf8(LABELS.share), id(shareId)), sharePayload(meta, data)));
  const labelEnc = concat(nonce2, await aesGcmSeal(key, nonce2, concat(utf8(LABELS.shareLabel), id(shareId)), utf8(label)));
  return { bundle: b64url(bundle), label_enc: b64url(labelEnc) };
}

export async function openShareLabel({ shareId, key, labelEnc }) {
  const raw = unb64url(labelEnc);
  return fromUtf8(await aesGcmOpen(key, raw.subarray(0, 12), concat(utf8(LABELS.shareLabel), id(shareId)), raw.subarray(12)));
}

export async function openShare({ shareId, key, bundle, labelEnc }) {
  const raw = unb64url(bundle);
  const payload = await aesGcmOpen(key, raw.subarray(0, 12), concat(utf8(LABELS.share), id(shareId)), raw.subarray(12));
  const { meta, data } = parseSharePayload(payload);
  const label = labelEnc ? await openShareLabel({ shareId, key, labelEnc }) : '';
  return { meta, data, label };
}

export const shareLink = (webUrl, shareId, key) => `${webUrl.replace(/\/$/, '')}/s/${uuidText(shareId)}#${b64url(key)}`;

// ---- welcome -----------------------------------------------------------------------------

export const welcomeInfo = (requestId) => concat(utf8(LABELS.welcome), id(requestId));

export async function sealWelcome(cliEncPub, requestId, welcome, ekm) {
  const { enc, ct } = await hpkeSeal(cliEncPub, welcomeInfo(requestId), jcs(welcome), ekm);
  return b64url(concat(enc, ct));
}

export async function openWelcome(encPair, requestId, welcomeString) {
  const raw = unb64url(welcomeString);
  if (raw.length < 65 + 16) throw new FormatError('a welcome is too short');
  const pt = await hpkeOpen(encPair, welcomeInfo(requestId), raw.subarray(0, 65), raw.subarray(65));
  const w = JSON.parse(fromUtf8(pt));
  if (w.v !== 1) throw new FormatError('unknown welcome version');
  return w;
}

// ---- recovery kit ------------------------------------------------------------------------

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// 20 bytes → 32 Crockford base32 characters in eight groups of four, most significant bit first.
function encodeRecoveryCode(bytes) {
  if (bytes.length !== 20) throw new FormatError('a recovery code is 20 bytes');
  return unpackBits(bytes, 5).map((v) => CROCKFORD[v]).join('').match(/.{4}/g).join('-');
}

// Typed text → 20 bytes: case, spaces and hyphens do not matter; O reads as 0, I and L as 1.
export function decodeRecoveryCode(text) {
  const s = String(text).toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  if (s.length !== 32) throw new FormatError('a recovery code has 32 characters');
  const chars = [...s];
  return packBits(chars.length, 5, (i) => {
    const v = CROCKFORD.indexOf(chars[i]);
    if (v < 0) throw new FormatError(`a recovery code cannot contain “${chars[i]}”`);
    return v;
  }).bytes;
}

const privateJwk = ({ kty, crv, x, y, d }) => ({ kty, crv, x, y, d });

export async function makeRecoveryKit({ accountId, memberId, createdAt, signPriv, encPriv,
  code = randomBytes(20), salt = randomBytes(16), nonce = randomBytes(12) }) {
  const kek = await hkdf(code, utf8(LABELS.recovery), salt);
  const secret = jcs({ sign_priv: privateJwk(signPriv), enc_priv: privateJwk(encPriv) });
  const ct = await aesGcmSeal(kek, nonce, concat(utf8(LABELS.recovery), id(memberId)), secret);
  return {
    code: encodeRecoveryCode(code),
    kit: {
      v: 1, kind: 'pouch-recovery-kit', account_id: uuidText(accountId), member_id: uuidText(memberId),
      created_at: createdAt, salt: b64url(salt), nonce: b64url(nonce), ciphertext: b64url(ct),
    },
  };
}

export async function openRecoveryKit(kit, codeText) {
  if (!kit || kit.v !== 1 || kit.kind !== 'pouch-recovery-kit') throw new FormatError('this file is not a Pouch recovery kit');
  const kek = await hkdf(decodeRecoveryCode(codeText), utf8(LABELS.recovery), unb64url(kit.salt));
  let pt;
  try {
    pt = await aesGcmOpen(kek, unb64url(kit.nonce), concat(utf8(LABELS.recovery), id(kit.member_id)), unb64url(kit.ciphertext));
  } catch {
    throw new FormatError('the recovery code does not open this kit');
  }
  const { sign_priv, enc_priv } = JSON.parse(fromUtf8(pt));
  return { signPriv: sign_priv, encPriv: enc_priv };
}

// ---- the service's v1 confirm code ----------------------------------------------------------

// LOGIN.md §2's code, which the service still checks when a client sends one (decisions §15).
// The web app no longer sends it; it is here for the vectors' `confirm_code`.
export async function confirmCode(requestId, jkt) {
  const h = await sha256(utf8(LABELS.confirm + uuidText(requestId) + jkt));
  const n = new DataView(h.buffer).getBigUint64(0) % 100000000n;
  const s = n.toString().padStart(8, '0');
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

