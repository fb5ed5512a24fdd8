// approval.js -- approving a CLI login in the browser (decisions §15, docs/CLIENT-FORMAT.md "The
// approval link"): the link's fragment read (the CLI's two public keys and a nonce the service
// never sees), the request details checked against it, the 12-digit confirm code and the key
// fingerprint made from the fragment alone, and the approval itself (the add statement, the key
// envelopes and the sealed welcome) by a signed-in member's vault. The label rule is text.js's.
import { getAll, post } from './api.js';
import { FormatError, b64url, concat, isUuid, randomUuid, unb64url, utf8 } from './crypto/bytes.js';
import * as F from './crypto/format.js';
import { hkdf, importVerifyKey, jwkThumbprint, publicJwk, sameJwk } from './crypto/primitives.js';
import { identityEnvelopeFor } from './sharing.js';
import { labelProblem } from './text.js';

const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

export const CONFIRM_LABEL = 'pouch/confirm/v2';
const FRAGMENT_RE = /^#?keys=([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})\.([A-Za-z0-9_-]{43})&n=([A-Za-z0-9_-]{22})$/;

// Why this login cannot be approved on this page; its message is shown as the reason.
export class ApprovalRefused extends Error {
  constructor(message) {
    super(message);
    this.name = 'ApprovalRefused';
  }
}

// ---- the code and the fingerprint ----------------------------------------------------------

// The confirm code (decisions §15): the first 8 bytes of HKDF-SHA256(ikm = n, salt = empty,
// info = "pouch/confirm/v2" ‖ id(request_id) ‖ utf8(sign_jkt) ‖ utf8(enc_jkt)) as a big-endian
// integer mod 10^12, 12 digits, "dddd-dddd-dddd".
export async function confirmCodeV2(nonce, requestId, signJkt, encJkt) {
  if (!(nonce instanceof Uint8Array) || nonce.length !== 16) throw new FormatError('the confirm nonce must be 16 bytes');
  if (!isUuid(requestId)) throw new FormatError('the request id is not a lower-case UUID');
  const okm = await hkdf(nonce, concat(utf8(CONFIRM_LABEL), utf8(requestId), utf8(signJkt), utf8(encJkt)));
  const v = new DataView(okm.buffer, okm.byteOffset, 8).getBigUint64(0) % 1000000000000n;
  const s = v.toString().padStart(12, '0');
  return `${s.slice(0, 4)}-${s.slice(4, 8)}-${s.slice(8)}`;
}

// The device key fingerprint: sign_jkt's first 16 characters in four groups of four.
export function keyFingerprint(signJkt) {
  if (typeof signJkt !== 'string' || signJkt.length < 16) throw new FormatError('not a key thumbprint');
  return signJkt.slice(0, 16).match(/.{4}/g).join(' ');
}

// The approval link the CLI prints: {origin}/cli/approve?request={id}#keys=sx.sy.ex.ey&n=N.
export function approvalLink(origin, requestId, signPub, encPub, nonce) {
  return `${origin.replace(/\/+$/, '')}/cli/approve?request=${requestId}#keys=${signPub.x}.${signPub.y}.${encPub.x}.${encPub.y}&n=${b64url(nonce)}`;
}

// ---- the fragment and the checks -----------------------------------------------------------

// The approval link's fragment → {sign_pub, enc_pub, nonce}; ApprovalRefused naming the problem
// when it is missing or malformed (both keys must be points of P-256).
export async function parseApprovalFragment(hash) {
  if (!hash || hash === '#') {
    throw new ApprovalRefused('this page was opened without the part of the link after "#", which holds the terminal\'s keys and its check value. Open the full link your terminal shows.');
  }
  const m = FRAGMENT_RE.exec(hash);
  let nonce = null;
  try { nonce = m && unb64url(m[5]); } catch { nonce = null; }
  if (!m || !nonce || nonce.length !== 16) {
    throw new ApprovalRefused('the part of the link after "#" is malformed (it must be keys=… with four 43-character values, then &n= with 22 characters). Open the full link your terminal shows, unchanged.');
  }
  const jwk = (x, y) => publicJwk({ kty: 'EC', crv: 'P-256', x, y });
  try {
    const keys = { sign_pub: jwk(m[1], m[2]), enc_pub: jwk(m[3], m[4]), nonce };
    await importVerifyKey(keys.sign_pub);
    await importVerifyKey(keys.enc_pub);  // the same curve check for the HPKE key
    return keys;
  } catch {
    throw new ApprovalRefused('the keys in the link are not valid P-256 public keys. Open the full link your terminal shows, unchanged.');
  }
}

// The request details against the URL and the fragment: the same request, the same two keys,
// sign_jkt of that sign key, a valid device name. → {keys, code, fingerprint}; else
// ApprovalRefused with the reason. `requestId` is the URL's `request`.
export async function checkApproval(details, requestId, fragment) {
  if (!isUuid(requestId)) {
    throw new ApprovalRefused('the address names no valid login request. Open the link your terminal shows.');
  }
  if (details.id !== requestId) {
    throw new ApprovalRefused('the service answered with another login request than the one in this address.');
  }
  let signPub;
  let encPub;
  try {
    signPub = publicJwk(details.sign_pub || {});
    encPub = publicJwk(details.enc_pub || {});
  } catch {
    throw new ApprovalRefused('the service does not show the keys of this login request, so they cannot be compared with the link\'s.');
  }
  if (!sameJwk(signPub, fragment.sign_pub) || !sameJwk(encPub, fragment.enc_pub)) {
    throw new ApprovalRefused('the keys in the link differ from the keys this login request was started with. Someone may be trying to get another device approved: deny it.');
  }
  const signJkt = await jwkThumbprint(fragment.sign_pub);
  if (details.sign_jkt !== signJkt) {
    throw new ApprovalRefused('the service\'s thumbprint of this request\'s signing key is not the thumbprint of the key in the link.');
  }
  const why = labelProblem(details.device_name);
  if (why) {
    throw new ApprovalRefused(`the device name of this login request cannot be a device name: ${why}. Start the login again with another --name.`);
  }
  const encJkt = await jwkThumbprint(fragment.enc_pub);
  return {
    keys: { sign_pub: fragment.sign_pub, enc_pub: fragment.enc_pub },
    code: await confirmCodeV2(fragment.nonce, requestId, signJkt, encJkt),
    fingerprint: keyFingerprint(signJkt),
  };
}

// The 12 digits of what a person typed ("1234 5678-9012" and the like), or null.
export function typedDigits(text) {
  const d = String(text).replace(/[\s-]/g, '');
  return /^[0-9]{12}$/.test(d) ? d : null;
}

// ---- the approval --------------------------------------------------------------------------

// Adds the CLI's member to the roster, seals every pouch key generation the vault holds (up to
// each pouch's current one) and the welcome to its enc_pub, and sends the approval. The
// details must have passed checkApproval with these keys; the label is the checked
// device_name. No confirm_code is sent: the service cannot know the v2 code.
// Sealing keys is a write: a pouch the vault may not write to (a rolled-back generation, a
// current key a removed member made) refuses the whole approval, nothing sent. Re-sealed here,
// such a key would reach the new device as this member's, its origin no longer to be seen.
export async function approveLogin(vault, details, keys) {
  const roster = await vault.refreshRoster();
  const newMember = randomUuid();
  const seq = roster.hashes.length;
  const body = F.statementBody({
    seq, prev: roster.head.hash, kind: 'add', by: vault.memberId, member_id: newMember,
    sign_pub: keys.sign_pub, enc_pub: keys.enc_pub, label: details.device_name, device_id: null, at: nowIso(),
  });
  const statement = await F.signStatement(body, vault.member.sign.privateKey);
  // Every generation this browser holds, up to each pouch's current one: revisions written
  // before a rotation stay under their old key, and the new device must read them too.
  const envelopes = [];
  for (const pouch of await getAll('/v1/pouches')) {
    const held = await vault.pouchKeys(pouch.id, { fresh: true, roster });
    await vault.writeKey(pouch);
    for (const [gen, key] of [...held.entries()].sort((a, b) => a[0] - b[0])) {
      if (gen > pouch.key_gen) continue;
      envelopes.push(await F.sealKeyEnvelope({ pouchId: pouch.id, memberId: newMember, keyGen: gen, pouchKey: key,
        encPub: keys.enc_pub, creatorId: vault.memberId, creatorSignKey: vault.member.sign.privateKey }));
    }
  }
  const welcome = {
    v: 1, account_id: vault.account.storage_account_id, genesis_hash: roster.genesisHash,
    roster_head: { seq, hash: F.statementHash(statement.statement) },
    approver: { member_id: vault.memberId, sign_pub: vault.member.sign_pub, enc_pub: vault.member.enc_pub },
  };
  const sealed = await F.sealWelcome(keys.enc_pub, details.id, welcome);
  // The account identity, sealed to the new member (docs/SHARING.md §1); none while the
  // account has no identity yet (the CLI gets its envelope when the identity is made).
  const identityEnvelope = await identityEnvelopeFor(vault, roster, newMember, keys.enc_pub);
  const r = await post(`/v1/cli-auth/requests/${details.id}/approve`, {
    statement, welcome: sealed, key_envelopes: envelopes, ...(identityEnvelope ? { identity_envelope: identityEnvelope } : {}),
  });
  vault.invalidate();
  return r;
}
