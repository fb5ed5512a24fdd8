// format.js -- the client format of docs/CLIENT-FORMAT.md, one function per construction:
// roster statements and chain verification, key envelopes and the reader's checks of them,
// artifact envelopes, content shapes and chunks, name_index, share bundles, the welcome, the
// recovery kit and the service's v1 confirm code (for its vectors; the approval page's v2 code
// is approval.js's); and sharing (docs/SHARING.md): identity statements and envelopes, the
// safety number, the access list and key grants. Every random
// input (nonces, keys, HPKE ephemeral key material) can be passed in, so the vectors in
// docs/client-format-vectors.json are made by this very code. Relies on primitives.js.
import {
  FormatError, b64url, concat, fromUtf8, id, packBits, randomBytes, readU32be, u32be,
  u64be, unb64url, unpackBits, utf8, uuidText,
} from './bytes.js';
import {
  aesGcmOpen, aesGcmSeal, blake3, es256Sign, es256Verify, hkdf, hmacSha256, hpkeOpen,
  hpkeSeal, importEncryptionPair, importSigningPair, jcs, jcsText, publicJwk, sameJwk, sha256,
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

// One chunk of a large file → the bytes to upload and its entry in `content.chunks`. `hash`
// is BLAKE3-256 (bytes → 32 bytes); the chunk workers pass a faster one (chunk_worker.js).
export async function sealChunk(plaintext, key = randomBytes(32), nonce = randomBytes(12), hash = blake3) {
  const stored = concat(nonce, await aesGcmSeal(key, nonce, utf8(LABELS.chunk), plaintext));
  return {
    stored,
    entry: { blob_id: b64url(hash(stored)), size: plaintext.length, key: b64url(key), hash: b64url(hash(plaintext)) },
  };
}

export async function openChunk(stored, entry, hash = blake3) {
  if (!BLOB_ID.test(entry?.blob_id) || b64url(hash(stored)) !== entry.blob_id) throw new FormatError('a chunk does not match its blob id');
  const pt = await aesGcmOpen(unb64url(entry.key), stored.subarray(0, 12), utf8(LABELS.chunk), stored.subarray(12));
  if (pt.length !== entry.size || b64url(hash(pt)) !== entry.hash) throw new FormatError('a chunk does not match its hash');
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


// ---- sharing: account identity (docs/SHARING.md §1) ---------------------------------------

const SHARING_LABELS = {
  identityEnvelope: 'pouch/identity-envelope/v1',
  safetyNumber: 'pouch/safety-number/v1',
  keyGrant: 'pouch/key-grant/v1',
  qr: 'pouch-sn1:',
};

// Decodes b64url(JCS(object)) and refuses anything that is not exactly JCS of an object.
function decodeJcsObject(statement, what) {
  let text;
  let body;
  try {
    text = fromUtf8(unb64url(statement));
    body = JSON.parse(text);
  } catch {
    throw new FormatError(`${what} is not b64url of JSON`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new FormatError(`${what} is not an object`);
  if (jcsText(body) !== text) throw new FormatError(`${what} is not in canonical (JCS) form`);
  return body;
}

const lowerUuid = (s, what) => {
  if (typeof s !== 'string' || uuidText(s) !== s) throw new FormatError(`${what} must be a lower-case UUID`);
  return s;
};

export function identityBody({ account_id, genesis_hash, by, sign_pub, enc_pub, at }) {
  return {
    v: 1, kind: 'identity', account_id: uuidText(account_id), genesis_hash, by: uuidText(by),
    sign_pub: publicJwk(sign_pub), enc_pub: publicJwk(enc_pub), at,
  };
}

// Signed by the genesis member's signing key; the statement has the roster's shape.
export const signIdentity = (body, genesisMemberSignKey) => signStatement(body, genesisMemberSignKey);

export function decodeIdentity(statement) {
  const body = decodeJcsObject(statement, 'an identity statement');
  const keys = Object.keys(body).sort().join(',');
  if (keys !== 'account_id,at,by,enc_pub,genesis_hash,kind,sign_pub,v') throw new FormatError(`an identity statement has the wrong fields (${keys})`);
  if (body.v !== 1 || body.kind !== 'identity') throw new FormatError('not a v1 identity statement');
  lowerUuid(body.account_id, 'account_id');
  lowerUuid(body.by, 'by');
  if (typeof body.genesis_hash !== 'string' || body.genesis_hash.length !== 43 || unb64url(body.genesis_hash).length !== 32) {
    throw new FormatError('genesis_hash is not a BLAKE3 hash');
  }
  publicJwk(body.sign_pub);
  publicJwk(body.enc_pub);
  if (typeof body.at !== 'string') throw new FormatError('bad identity time');
  return body;
}

// The binding of SHARING.md §1: `genesis` is roster statement 0 of the account (its own
// signature verifies), it hashes to genesis_hash, its member_id is `by`, and the statement's
// signature verifies with its sign_pub. Returns the identity body.
export async function verifyIdentity(identity, genesis) {
  const body = decodeIdentity(identity.statement);
  let roster;
  try {
    roster = await verifyRoster([{ statement: genesis.statement, signature: genesis.signature }]);
  } catch (e) {
    throw new FormatError(`the identity's genesis does not verify (${e.message})`);
  }
  if (roster.genesisHash !== body.genesis_hash) throw new FormatError('genesis_hash does not hash the genesis given');
  const member = roster.active[0];
  if (member.member_id !== body.by) throw new FormatError('the identity is not signed by the genesis member');
  let sig;
  try { sig = unb64url(identity.signature); } catch { throw new FormatError('bad identity signature encoding'); }
  if (!(await es256Verify(member.sign_pub, unb64url(identity.statement), sig))) {
    throw new FormatError('the identity signature does not verify with the genesis member\'s key');
  }
  return body;
}

export const identityEnvelopeInfo = (accountId, memberId) =>
  concat(utf8(SHARING_LABELS.identityEnvelope), id(accountId), id(memberId));

export function identityEnvelopeSigningInput(e) {
  return jcs({
    account_id: uuidText(e.account_id), member_id: uuidText(e.member_id), hpke_enc: e.hpke_enc,
    ciphertext: e.ciphertext, created_by_member: uuidText(e.created_by_member),
  });
}

// Seals the identity's private keys (private JWKs, their `d`) to a member's enc_pub, signed by
// the creating member.
export async function sealIdentityEnvelope({ accountId, memberId, encPub, signPriv, encPriv, creatorId, creatorSignKey, ekm }) {
  const secret = jcs({ sign_d: signPriv.d, enc_d: encPriv.d });
  const { enc, ct } = await hpkeSeal(encPub, identityEnvelopeInfo(accountId, memberId), secret, ekm);
  const e = {
    account_id: uuidText(accountId), member_id: uuidText(memberId), hpke_enc: b64url(enc), ciphertext: b64url(ct),
    created_by_member: uuidText(creatorId),
  };
  e.signature = b64url(await es256Sign(creatorSignKey, identityEnvelopeSigningInput(e)));
  return e;
}

// Whether the scalar d belongs to the public key: a signature made with (pub, d) verifies with
// pub, and ECDH with d agrees with ECDH against pub (WebCrypto cannot derive a public key).
async function signScalarMatches(pub, d) {
  try {
    const pair = await importSigningPair({ ...pub, d });
    const msg = utf8('pouch/identity-check');
    return await es256Verify(pub, msg, await es256Sign(pair.privateKey, msg));
  } catch {
    return false;
  }
}
async function encScalarMatches(pub, d) {
  try {
    const subtle = globalThis.crypto.subtle;
    const ecdh = { name: 'ECDH', namedCurve: 'P-256' };
    const pair = await importEncryptionPair({ ...pub, d });
    const eph = await subtle.generateKey(ecdh, false, ['deriveBits']);
    const a = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: eph.publicKey }, pair.privateKey, 256));
    const b = new Uint8Array(await subtle.deriveBits({ name: 'ECDH', public: pair.publicKey }, eph.privateKey, 256));
    return a.length === 32 && a.every((x, i) => x === b[i]);
  } catch {
    return false;
  }
}

// Opens an identity envelope addressed to us: the creator's signature first, then HPKE, then
// the scalars must give exactly the identity statement's public keys. Returns private JWKs
// {signPriv, encPriv}.
export async function openIdentityEnvelope(e, encPair, creatorSignPub, identity) {
  if (e.account_id !== identity.account_id) throw new FormatError('an identity envelope of another account');
  if (!(await es256Verify(creatorSignPub, identityEnvelopeSigningInput(e), unb64url(e.signature)))) {
    throw new FormatError('an identity envelope signature does not verify');
  }
  const pt = await hpkeOpen(encPair, identityEnvelopeInfo(e.account_id, e.member_id), unb64url(e.hpke_enc), unb64url(e.ciphertext));
  const secret = decodeJcsObject(b64url(pt), 'an identity envelope\'s secret');
  if (Object.keys(secret).sort().join(',') !== 'enc_d,sign_d') throw new FormatError('an identity envelope\'s secret must be {sign_d, enc_d}');
  for (const d of [secret.sign_d, secret.enc_d]) {
    if (typeof d !== 'string' || d.length !== 43 || unb64url(d).length !== 32) throw new FormatError('an identity scalar is not 32 bytes');
  }
  const signPriv = { ...publicJwk(identity.sign_pub), d: secret.sign_d };
  const encPriv = { ...publicJwk(identity.enc_pub), d: secret.enc_d };
  if (!(await signScalarMatches(identity.sign_pub, secret.sign_d)) || !(await encScalarMatches(identity.enc_pub, secret.enc_d))) {
    throw new FormatError('the identity envelope holds keys other than the account identity\'s');
  }
  return { signPriv, encPriv };
}

// ---- sharing: the safety number (§3) ----------------------------------------------------

// fp(X) of an identity {account_id, sign_pub, enc_pub}: 32 bytes.
export const identityFingerprint = (x) => blake3(concat(utf8(SHARING_LABELS.safetyNumber), id(x.account_id),
  jcs(publicJwk(x.sign_pub)), jcs(publicJwk(x.enc_pub))));

export function safetyNumberBytes(a, b) {
  const ia = uuidText(a.account_id);
  const ib = uuidText(b.account_id);
  if (ia === ib) throw new FormatError('a safety number needs two different accounts');
  const [p, q] = ia < ib ? [a, b] : [b, a];
  return concat(identityFingerprint(p), identityFingerprint(q));
}

// 12 groups of 5 digits separated by single spaces (shown in 3 rows of 4).
export function safetyNumber(a, b) {
  const bytes = safetyNumberBytes(a, b);
  const groups = [];
  for (let i = 0; i < 12; i++) {
    const n = bytes.subarray(5 * i, 5 * i + 5).reduce((acc, x) => acc * 256 + x, 0);  // < 2^40: exact
    groups.push(String(n % 100000).padStart(5, '0'));
  }
  return groups.join(' ');
}

export const safetyNumberQrText = (a, b) => SHARING_LABELS.qr + b64url(safetyNumberBytes(a, b));

// ---- sharing: the access list (§4) ------------------------------------------------------

const ROLES = ['read', 'write', 'admin'];
const ROTATING = ['remove', 'leave'];

export function accessBody({ pouch_id, seq, prev, kind, by, account_id, identity, role, key_gen, at, rotated_to }) {
  const body = {
    v: 1, pouch_id: uuidText(pouch_id), seq, prev, kind, by: uuidText(by), account_id: uuidText(account_id),
    identity: { sign_pub: publicJwk(identity.sign_pub), enc_pub: publicJwk(identity.enc_pub) }, role, key_gen, at,
  };
  if (ROTATING.includes(kind)) body.rotated_to = rotated_to ?? key_gen;
  else if (rotated_to !== undefined) throw new FormatError('only a remove or leave carries rotated_to');
  return body;
}

export const signAccess = (body, identitySignKey) => signStatement(body, identitySignKey);

export function decodeAccess(statement) {
  const body = decodeJcsObject(statement, 'an access statement');
  if (body.v !== 1) throw new FormatError('unknown access statement version');
  if (!['share', 'role', ...ROTATING].includes(body.kind)) throw new FormatError(`unknown access statement kind ${body.kind}`);
  const keys = Object.keys(body).sort().join(',');
  const want = 'account_id,at,by,identity,key_gen,kind,pouch_id,prev,role,' + (ROTATING.includes(body.kind) ? 'rotated_to,' : '') + 'seq,v';
  if (keys !== want) throw new FormatError(`an access ${body.kind} statement has the wrong fields (${keys})`);
  lowerUuid(body.pouch_id, 'pouch_id');
  lowerUuid(body.by, 'by');
  lowerUuid(body.account_id, 'account_id');
  if (!Number.isSafeInteger(body.seq) || typeof body.prev !== 'string') throw new FormatError('bad seq or prev');
  const ident = body.identity;
  if (!ident || typeof ident !== 'object' || Object.keys(ident).sort().join(',') !== 'enc_pub,sign_pub') {
    throw new FormatError('identity must have exactly sign_pub and enc_pub');
  }
  publicJwk(ident.sign_pub);
  publicJwk(ident.enc_pub);
  if (!ROLES.includes(body.role)) throw new FormatError('role must be read, write or admin');
  if (!Number.isSafeInteger(body.key_gen) || body.key_gen < 1) throw new FormatError('key_gen must be 1 or more');
  if (typeof body.at !== 'string') throw new FormatError('bad access statement time');
  if (ROTATING.includes(body.kind) && body.rotated_to !== body.key_gen) throw new FormatError('rotated_to must equal key_gen');
  return body;
}

// The role at generation k of an account entry (SHARING.md §4): of the last statement about it
// with key_gen <= k; '' when none, or removed or left by then. The owner's statement 0 applies
// from generation 1.
export function roleAt(entry, k) {
  let role = '';
  for (const [from, r] of entry?.history ?? []) if (from <= k) role = r;
  return role;
}

// Whether a grant the account made at generation k is trusted: in the list now, or removed or
// left with rotated_to > k.
export function grantsTrustedAt(entry, k) {
  if (!entry) return false;
  if (entry.in_list) return true;
  for (let i = entry.history.length - 1; i >= 0; i--) if (entry.history[i][1] === '') return k < entry.history[i][0];
  return false;
}

const RANK = { read: 1, write: 2, admin: 3 };

// Verifies the whole access list of `pouchId` (SHARING.md §4 steps 1 to 6). `items` are
// [{index?, statement, signature}] in index order. Throws FormatError('access statement i: …')
// at the first statement that fails; returns {pouchId, owner, accounts: Map(account_id →
// {account_id, sign_pub, enc_pub, role, in_list, shared_seq, history}), keyGen, hashes, head,
// roleAt(account, k), mayWriteAt(account, k), revisionRefusal(account, k)}.
export async function verifyAccessList(pouchId, items) {
  const pouch = uuidText(pouchId);
  if (!items.length) throw new FormatError('the access list is empty');
  const accounts = new Map();
  const hashes = [];
  let owner = null;
  let keyGen = 0;
  for (let i = 0; i < items.length; i++) {
    const fail = (why) => new FormatError(`access statement ${i}: ${why}`);
    const { statement, signature } = items[i];
    if (items[i].index !== undefined && items[i].index !== i) throw fail(`has index ${items[i].index}`);
    let b;
    try { b = decodeAccess(statement); } catch (e) { throw fail(e.message); }
    if (b.pouch_id !== pouch) throw fail(`names pouch ${b.pouch_id}`);
    if (b.seq !== i) throw fail(`seq is ${b.seq}`);
    if (b.prev !== (i === 0 ? '' : hashes[i - 1])) throw fail('prev does not hash the previous statement');
    let sig;
    try { sig = unb64url(signature); } catch { throw fail('bad signature encoding'); }
    const msg = unb64url(statement);
    const ident = b.identity;
    if (i === 0) {
      if (b.kind !== 'share') throw fail('statement 0 must be a share');
      if (b.by !== b.account_id) throw fail('statement 0 must be the owner\'s own share');
      if (b.role !== 'admin') throw fail('statement 0 must give the owner role admin');
      if (!(await es256Verify(ident.sign_pub, msg, sig))) throw fail('signature does not verify with the owner\'s identity');
      owner = b.account_id;
      accounts.set(owner, { account_id: owner, sign_pub: ident.sign_pub, enc_pub: ident.enc_pub, role: 'admin', in_list: true, shared_seq: 0, history: [[1, 'admin']] });
    } else {
      const signer = accounts.get(b.by);
      if (b.kind === 'leave') {
        if (b.by !== b.account_id) throw fail('a leave must be signed by its own account');
        if (!signer?.in_list) throw fail(`leave by ${b.by}, not in the list`);
      } else {
        if (!signer?.in_list) throw fail(`signed by ${b.by}, not in the list`);
        if (signer.role !== 'admin') throw fail(`signed by ${b.by} with role ${signer.role}, not admin`);
      }
      if (!(await es256Verify(signer.sign_pub, msg, sig))) throw fail(`signature does not verify with ${b.by}'s identity`);
      const about = accounts.get(b.account_id);
      const inList = !!about?.in_list;
      if (inList && (!sameJwk(about.sign_pub, ident.sign_pub) || !sameJwk(about.enc_pub, ident.enc_pub))) {
        throw fail(`names ${b.account_id} with an identity other than its own`);
      }
      if (b.kind === 'share' && inList) throw fail(`shares with ${b.account_id}, already in the list`);
      if (b.kind !== 'share' && !inList) throw fail(`${b.kind} of ${b.account_id}, not in the list`);
      if (b.kind === 'remove' && b.account_id === b.by) throw fail('an account cannot remove itself (it leaves)');
      if (ROTATING.includes(b.kind) && b.role !== about.role) throw fail(`${b.kind} of ${b.account_id} names role ${b.role}, not its role ${about.role}`);
      if (b.key_gen < keyGen) throw fail(`key_gen ${b.key_gen} is below ${keyGen}`);
      const lowers = b.kind === 'role' && RANK[b.role] < RANK[about.role];
      if ((ROTATING.includes(b.kind) || lowers) && b.key_gen <= keyGen) {
        throw fail(`${b.kind}${lowers ? ' lowering a role' : ''} must move to a new generation above ${keyGen}`);
      }
      const e = about ?? { account_id: b.account_id, history: [] };
      if (b.kind === 'share') {
        e.sign_pub = ident.sign_pub;
        e.enc_pub = ident.enc_pub;
        e.shared_seq = i;
      }
      const out = ROTATING.includes(b.kind);
      e.in_list = !out;
      e.role = out ? '' : b.role;
      e.history.push([b.key_gen, e.role]);
      accounts.set(b.account_id, e);
    }
    keyGen = b.key_gen;
    if (![...accounts.values()].some((a) => a.in_list && a.role === 'admin')) throw fail('leaves the pouch without an admin');
    hashes.push(statementHash(statement));
  }
  return {
    pouchId: pouch, owner, accounts, keyGen, hashes,
    head: { seq: hashes.length - 1, hash: hashes[hashes.length - 1] },
    roleAt: (account, k) => roleAt(accounts.get(String(account).toLowerCase()), k),
    mayWriteAt: (account, k) => ['write', 'admin'].includes(roleAt(accounts.get(String(account).toLowerCase()), k)),
    // Why a revision signed by a member of `account` at generation k is refused, or null.
    revisionRefusal: (account, k) => {
      const role = roleAt(accounts.get(String(account).toLowerCase()), k);
      if (!role) return 'not_in_access_list';
      return role === 'read' ? 'role_forbids_write' : null;
    },
  };
}

// ---- sharing: key grants (§5) -----------------------------------------------------------

export const keyGrantInfo = (pouchId, accountId, keyGen) =>
  concat(utf8(SHARING_LABELS.keyGrant), id(pouchId), id(accountId), u64be(keyGen));

export function keyGrantSigningInput(g) {
  return jcs({
    pouch_id: uuidText(g.pouch_id), account_id: uuidText(g.account_id), key_gen: g.key_gen,
    hpke_enc: g.hpke_enc, ciphertext: g.ciphertext, granted_by: uuidText(g.granted_by),
  });
}

// Seals `pouchKey` to an account identity's enc_pub, signed with the granting account's
// identity signing key.
export async function sealKeyGrant({ pouchId, accountId, keyGen, pouchKey, encPub, grantedBy, granterSignKey, ekm }) {
  if (pouchKey.length !== 32) throw new FormatError('a pouch key is 32 bytes');
  const { enc, ct } = await hpkeSeal(encPub, keyGrantInfo(pouchId, accountId, keyGen), pouchKey, ekm);
  const g = {
    pouch_id: uuidText(pouchId), account_id: uuidText(accountId), key_gen: keyGen,
    hpke_enc: b64url(enc), ciphertext: b64url(ct), granted_by: uuidText(grantedBy),
  };
  g.signature = b64url(await es256Sign(granterSignKey, keyGrantSigningInput(g)));
  return g;
}

// Why a reader refuses a grant, or null: 'wrong_pouch', 'wrong_account', 'unknown_granter'
// (granted_by never in the verified list `list`, or removed or left at a rotated_to <= key_gen),
// 'bad_signature' (not by granted_by's identity as the list holds it).
export async function keyGrantRefusal(g, list, pouchId, accountId) {
  if (typeof g?.pouch_id !== 'string' || g.pouch_id.toLowerCase() !== String(pouchId).toLowerCase() || list.pouchId !== g.pouch_id.toLowerCase()) return 'wrong_pouch';
  if (typeof g.account_id !== 'string' || g.account_id.toLowerCase() !== String(accountId).toLowerCase()) return 'wrong_account';
  if (!Number.isSafeInteger(g.key_gen) || g.key_gen < 1) return 'unknown_granter';
  const granter = typeof g.granted_by === 'string' ? list.accounts.get(g.granted_by.toLowerCase()) : undefined;
  if (!grantsTrustedAt(granter, g.key_gen)) return 'unknown_granter';
  let ok = false;
  try { ok = await es256Verify(granter.sign_pub, keyGrantSigningInput(g), unb64url(g.signature)); } catch { ok = false; }
  return ok ? null : 'bad_signature';
}

// Opens the pouch key with the account identity's HPKE key pair (after keyGrantRefusal said null).
export async function openKeyGrant(g, identityEncPair) {
  const key = await hpkeOpen(identityEncPair, keyGrantInfo(g.pouch_id, g.account_id, g.key_gen), unb64url(g.hpke_enc), unb64url(g.ciphertext));
  if (key.length !== 32) throw new FormatError('a pouch key is not 32 bytes');
  return key;
}
