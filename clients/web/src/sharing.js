// sharing.js -- the web app's side of pouches shared between accounts (docs/SHARING.md §10):
// the account identity (made at genesis or at the first sign-in without one, its keys kept
// non-extractable in IndexedDB, sealed to every member), pins of other accounts' identities
// and safety numbers, invitations, members, roles, removal and leaving with their rotations,
// and pouch keys filled in from key grants. The byte formats are crypto/format.js's, reached
// only through the seam below; the pages (pages/sharing.jsx) call the rest.
import { ApiError, api, get, getAll, getRoster, post } from './api.js';
import { FormatError, randomBytes, randomUuid, uuidText } from './crypto/bytes.js';
import * as F from './crypto/format.js';
import {
  exportJwk, generateEncryptionKey, generateSigningKey, importEncryptionPair, importSigningPair, publicJwk, sameJwk,
} from './crypto/primitives.js';
import * as store from './keystore.js';

const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

// ---- the seam to crypto/format.js (SHARING.md §1-§5) --------------------------------------
// Every sharing format call goes through here, so that this file and the pages never build a
// statement, an envelope or a grant themselves. A build without them says so in words.

export class SharingUnavailable extends Error {
  constructor(what) {
    super(`This web app was built without the sharing formats (${what}); sharing is off.`);
    this.name = 'SharingUnavailable';
  }
}

function fmt(name) {
  const f = F[name];
  if (typeof f !== 'function') throw new SharingUnavailable(name);
  return f;
}

const C = {
  // fields {account_id, genesis_hash, by, sign_pub, enc_pub, at} → {statement, signature}.
  makeIdentity: (fields, genesisSignKey) => fmt('signIdentity')(fmt('identityBody')(fields), genesisSignKey),
  // identity {statement, signature}, genesis {statement, signature} → body (throws FormatError).
  verifyIdentity: (identity, genesis) => fmt('verifyIdentity')(identity, genesis),
  sealIdentityEnvelope: ({ accountId, memberId, memberEncPub, signD, encD, creatorId, creatorSignKey }) =>
    fmt('sealIdentityEnvelope')({ accountId, memberId, encPub: memberEncPub, signPriv: { d: signD }, encPriv: { d: encD }, creatorId, creatorSignKey }),
  // → {sign_d, enc_d} after every check of §1 (throws FormatError).
  openIdentityEnvelope: async (e, memberEncPair, creatorSignPub, expected) => {
    const { signPriv, encPriv } = await fmt('openIdentityEnvelope')(e, memberEncPair, creatorSignPub, expected);
    return { sign_d: signPriv.d, enc_d: encPriv.d };
  },
  safetyNumber: (a, b) => fmt('safetyNumber')(a, b),
  safetyNumberQrText: (a, b) => fmt('safetyNumberQrText')(a, b),
  // fields of SHARING.md §4's body (without v) → {statement, signature}.
  makeAccess: (fields, identitySignKey) => fmt('signAccess')(fmt('accessBody')(fields), identitySignKey),
  // → {owner, accounts: Map(id → {sign_pub, enc_pub, role, in_list, history}), keyGen, hashes, head, roleAt}
  verifyAccessList: (pouchId, items) => fmt('verifyAccessList')(pouchId, items),
  sealKeyGrant: (args) => fmt('sealKeyGrant')(args),
  keyGrantRefusal: (g, list, pouchId, accountId) => fmt('keyGrantRefusal')(g, list, pouchId, accountId),
  openKeyGrant: (g, identityEncPair) => fmt('openKeyGrant')(g, identityEncPair),
};

class NoIdentity extends Error {}

// ---- errors in words -------------------------------------------------------------------

// A pinned account whose identity the service now names differently: nothing involving it is
// written or trusted until the person compares the new safety number (SHARING.md §3).
export class IdentityChanged extends Error {
  constructor(accountId, email) {
    super(`The identity of ${email || accountId} changed since this browser first saw it. Nothing is shared with, accepted from or sealed to that account until you compare the new safety number with them and accept it (the red banner at the top).`);
    this.name = 'IdentityChanged';
    this.accountId = accountId;
  }
}

// The words for a sharing refusal of the service (SHARING.md §9's new codes).
export function sharingErrorWords(e) {
  if (!(e instanceof ApiError)) return null;
  return {
    last_admin: 'The pouch must keep an admin: make another account an admin first (the owner hands the pouch over to the admin who has been in it longest).',
    already_shared: 'That account is already in this pouch (or it is your own account).',
    insufficient_role: `Your role in this pouch${e.details?.role ? ` (${e.details.role})` : ''} does not allow this${e.details?.required ? `; it needs ${e.details.required}` : ''}.`,
    invitation_limit_reached: 'Your account has 100 pending invitations, the most it may hold: withdraw some first.',
    identity_required: 'That account (or yours) has no identity yet: its owner must sign in to the web app once.',
    access_conflict: 'The pouch\'s access list changed meanwhile; reload and try again.',
    invitation_unavailable: `The invitation is no longer pending${e.details?.state ? ` (it is ${e.details.state})` : ''}.`,
    rate_limited: 'Too many look-ups; wait a minute and try again.',
  }[e.code] || null;
}

// ---- this account's identity -------------------------------------------------------------

const pubOf = (rec) => ({ account_id: rec.account_id, sign_pub: rec.sign_pub, enc_pub: rec.enc_pub });

// Keeps the identity's private keys as non-extractable CryptoKeys (IndexedDB), beside the
// statement they belong to.
async function keepIdentity(accountId, body, identity, signD, encD) {
  const sign = await importSigningPair({ ...body.sign_pub, d: signD }, false);
  const enc = await importEncryptionPair({ ...body.enc_pub, d: encD }, false);
  const rec = {
    account_id: uuidText(accountId), sign, enc, sign_pub: publicJwk(body.sign_pub), enc_pub: publicJwk(body.enc_pub),
    statement: identity.statement, signature: identity.signature, genesis_hash: body.genesis_hash,
  };
  await store.saveIdentity(rec);
  return rec;
}

// The account's genesis statement {statement, signature} (roster statement 0).
async function genesisOf() {
  const items = await getRoster();
  if (!items.length) throw new FormatError('the account has no roster');
  return { statement: items[0].statement, signature: items[0].signature };
}

// The identity's secret scalars, opened from this member's own envelope (the keys kept in
// IndexedDB cannot be exported: sealing the identity to another member opens it again).
async function identitySecret(vault, roster) {
  const r = await get('/v1/account/identity');
  if (!r.identity || !r.envelope) throw new NoIdentity();
  const body = await C.verifyIdentity(r.identity, await genesisOf());
  await checkOwnIdentity(vault, body);
  const creator = roster.members.get(String(r.envelope.created_by_member).toLowerCase());
  if (!creator || creator.removed_seq !== null) throw new FormatError('this member\'s identity envelope was made by someone not active in the roster');
  return { body, secret: await C.openIdentityEnvelope(r.envelope, vault.member.enc, creator.sign_pub, body) };
}

async function checkOwnIdentity(vault, b) {
  if (uuidText(b.account_id) !== vault.accountId) throw new FormatError('the service names another account\'s identity as this account\'s');
  const kept = await store.loadIdentity(vault.accountId);
  if (kept && (!sameJwk(kept.sign_pub, b.sign_pub) || !sameJwk(kept.enc_pub, b.enc_pub))) {
    throw new FormatError('the service names another identity for this account than the one this browser holds: it is not used');
  }
}

// The account's identity, ready to sign and open: from IndexedDB, else opened from this
// member's envelope, else (none on the service yet, and this browser holds the genesis member)
// made now and sealed to every active member (SHARING.md §1). → the IndexedDB record.
export async function ensureIdentity(vault) {
  const roster = await vault.verifiedRoster();
  const kept = await store.loadIdentity(vault.accountId);
  const r = await get('/v1/account/identity');
  if (r.identity) {
    const genesis = await genesisOf();
    const body = await C.verifyIdentity(r.identity, genesis);
    if (body.genesis_hash !== roster.genesisHash) throw new FormatError('the account identity is bound to another roster than this account\'s');
    await checkOwnIdentity(vault, body);
    if (kept) return kept;
    if (!r.envelope) throw new FormatError('the account has an identity but this browser\'s member has no envelope of it');
    if (String(r.envelope.member_id).toLowerCase() !== vault.memberId) throw new FormatError('the identity envelope the service gives is sealed to another member');
    const creator = roster.members.get(String(r.envelope.created_by_member).toLowerCase());
    if (!creator || creator.removed_seq !== null) throw new FormatError('this member\'s identity envelope was made by someone not active in the roster');
    const s = await C.openIdentityEnvelope(r.envelope, vault.member.enc, creator.sign_pub, body);
    return keepIdentity(vault.accountId, body, r.identity, s.sign_d, s.enc_d);
  }
  return makeIdentity(vault, roster);
}

async function makeIdentity(vault, roster) {
  const genesisMember = [...roster.members.values()].find((m) => m.added_seq === 0);
  if (!genesisMember || genesisMember.member_id !== vault.memberId) {
    throw new FormatError('the account has no identity yet, and only its first web member (the one that made the account) can make it');
  }
  const signPriv = await exportJwk((await generateSigningKey(true)).privateKey);
  const encPriv = await exportJwk((await generateEncryptionKey(true)).privateKey);
  const fields = {
    account_id: vault.accountId, genesis_hash: roster.genesisHash, by: vault.memberId,
    sign_pub: publicJwk(signPriv), enc_pub: publicJwk(encPriv), at: nowIso(),
  };
  const identity = await C.makeIdentity(fields, vault.member.sign.privateKey);
  const envelopes = [];
  for (const m of roster.active) {
    envelopes.push(await C.sealIdentityEnvelope({
      accountId: vault.accountId, memberId: m.member_id, memberEncPub: m.enc_pub,
      signD: signPriv.d, encD: encPriv.d, creatorId: vault.memberId, creatorSignKey: vault.member.sign.privateKey,
    }));
  }
  try {
    await api('PUT', '/v1/account/identity', { body: { ...identity, envelopes } });
  } catch (e) {
    // Another tab (or a retry) made it first: that one is the account's, opened as any other.
    if (e instanceof ApiError && e.code === 'identity_exists') return ensureIdentity(vault);
    throw e;
  }
  return keepIdentity(vault.accountId, fields, identity, signPriv.d, encPriv.d);
}

// Made at sign-in and after genesis: a failure (an old service, a build without the formats)
// leaves the account as it was, with the reason kept for the pages (vault.identityProblem).
export async function ensureIdentityQuietly(vault) {
  try {
    vault.identity = await ensureIdentity(vault);
    vault.identityProblem = null;
  } catch (e) {
    vault.identity = null;
    vault.identityProblem = e;
  }
  return vault.identity;
}

// The identity envelope of a CLI member being approved (approve body `identity_envelope`), or
// undefined when the account has no identity yet (it gets one when the identity is made).
export async function identityEnvelopeFor(vault, roster, memberId, memberEncPub) {
  let r;
  try {
    r = await identitySecret(vault, roster);
  } catch (e) {
    // No identity to seal (none yet, a build or a service without sharing): the approval goes
    // on without one. An identity that fails its checks stops the approval.
    if (e instanceof SharingUnavailable || e instanceof NoIdentity) return undefined;
    if (e instanceof ApiError && e.status === 404) return undefined;
    throw e;
  }
  return C.sealIdentityEnvelope({
    accountId: vault.accountId, memberId, memberEncPub, signD: r.secret.sign_d, encD: r.secret.enc_d,
    creatorId: vault.memberId, creatorSignKey: vault.member.sign.privateKey,
  });
}

async function ownIdentity(vault) {
  if (!vault.identity) vault.identity = await ensureIdentity(vault);
  return vault.identity;
}

// ---- pins and safety numbers (SHARING.md §3) --------------------------------------------

// Compares `ident` {account_id, genesis_hash, sign_pub, enc_pub, email?} with this account's pin
// of it, pinning it the first time; a different one is kept beside the pin as `changed` and
// throws IdentityChanged. → the pin.
export async function pinIdentity(vault, ident) {
  const accountId = uuidText(ident.account_id);
  if (accountId === vault.accountId) return { ...ident, own: true };
  const pin = await store.loadIdentityPin(vault.accountId, accountId);
  const seen = { genesis_hash: ident.genesis_hash ?? pin?.genesis_hash ?? null, sign_pub: publicJwk(ident.sign_pub), enc_pub: publicJwk(ident.enc_pub) };
  if (!pin) {
    const rec = { account_id: accountId, email: ident.email ?? null, ...seen, verified: false, changed: null, pinned_at: nowIso() };
    await store.saveIdentityPin(vault.accountId, rec);
    return rec;
  }
  const same = sameJwk(pin.sign_pub, seen.sign_pub) && sameJwk(pin.enc_pub, seen.enc_pub) &&
    (!ident.genesis_hash || !pin.genesis_hash || pin.genesis_hash === ident.genesis_hash);
  if (same) {
    if (ident.email && pin.email !== ident.email) await store.saveIdentityPin(vault.accountId, { ...pin, email: ident.email });
    if (pin.changed) throw new IdentityChanged(accountId, pin.email);
    return pin;
  }
  await store.saveIdentityPin(vault.accountId, { ...pin, email: pin.email ?? ident.email ?? null, changed: { ...seen, seen_at: nowIso() } });
  notifyPins();
  throw new IdentityChanged(accountId, pin.email ?? ident.email);
}

// Pins whose account's identity changed (the red banner's).
export async function changedIdentities(vault) {
  return (await store.loadIdentityPins(vault.accountId)).filter((p) => p.changed);
}

// "I compared the new safety number": the new identity replaces the pin, marked verified.
export async function acceptNewIdentity(vault, accountId) {
  const pin = await store.loadIdentityPin(vault.accountId, accountId);
  if (!pin?.changed) return;
  const { seen_at: _, ...next } = pin.changed;
  await store.saveIdentityPin(vault.accountId, { ...pin, ...next, changed: null, verified: true, pinned_at: nowIso() });
  notifyPins();
}

// "I compared the safety number" for a pin that had not changed.
export async function markVerified(vault, accountId) {
  const pin = await store.loadIdentityPin(vault.accountId, accountId);
  if (pin && !pin.changed) await store.saveIdentityPin(vault.accountId, { ...pin, verified: true });
  notifyPins();
}

const pinListeners = new Set();
export const onPinsChanged = (fn) => { pinListeners.add(fn); return () => pinListeners.delete(fn); };
function notifyPins() { pinListeners.forEach((fn) => fn()); }

// The safety number of this account's identity with `other` {account_id, sign_pub, enc_pub}:
// {digits: "12345 …" (12 groups), rows: [[4 groups] × 3], qr: text of the QR code}. A person's
// own identity with itself is not a safety number (FormatError).
export async function safetyNumberWith(vault, other) {
  const me = await ownIdentity(vault);
  if (uuidText(other.account_id) === vault.accountId) throw new FormatError('your own account has no safety number with itself');
  const a = pubOf(me);
  const b = { account_id: uuidText(other.account_id), sign_pub: publicJwk(other.sign_pub), enc_pub: publicJwk(other.enc_pub) };
  const digits = await C.safetyNumber(a, b);
  const groups = String(digits).trim().split(/\s+/);
  if (groups.length !== 12 || !groups.every((g) => /^[0-9]{5}$/.test(g))) throw new FormatError('the safety number is not 12 groups of 5 digits');
  return { digits: groups.join(' '), rows: [groups.slice(0, 4), groups.slice(4, 8), groups.slice(8, 12)], qr: await C.safetyNumberQrText(a, b) };
}

// ---- looking an account up (SHARING.md §2) -----------------------------------------------

// E-mail → {account_id, email, genesis_hash, sign_pub, enc_pub, pin}: the identity verified
// against the genesis it came with, then pinned or compared (IdentityChanged).
export async function lookUp(vault, email) {
  const r = await get('/v1/identities', { query: { email } });
  const body = await C.verifyIdentity(r.identity, r.genesis);
  if (uuidText(body.account_id) !== uuidText(r.account_id)) throw new FormatError('the looked-up identity names another account than the answer');
  if (uuidText(body.account_id) === vault.accountId) throw new FormatError('that is your own account');
  const ident = { account_id: uuidText(body.account_id), email: r.email, genesis_hash: body.genesis_hash, sign_pub: body.sign_pub, enc_pub: body.enc_pub };
  const pin = await pinIdentity(vault, ident);
  return { ...ident, pin };
}

// ---- the access list (SHARING.md §4) ----------------------------------------------------

// The pouch's access list, verified in full against the head this browser last verified (a
// list only grows), every account it names pinned or compared. → the verified list, or null for
// a pouch never shared. IdentityChanged for a changed account (the list is still returned in
// `e.list` for reading, never for writing).
export async function accessList(vault, pouchId) {
  const items = await getAll(`/v1/pouches/${pouchId}/access`);
  if (!items.length) return null;
  const pinned = await store.loadAccessHead(vault.accountId, pouchId);
  const list = await C.verifyAccessList(pouchId, items);
  if (pinned && list.hashes[pinned.seq] !== pinned.hash) {
    throw new FormatError(`the pouch's access list no longer holds the statement this browser verified at ${pinned.seq}: it was rewritten`);
  }
  await store.saveAccessHead(vault.accountId, pouchId, list.head);
  let changed = null;
  for (const [accountId, entry] of accountsOf(list)) {
    try {
      await pinIdentity(vault, { account_id: accountId, sign_pub: entry.sign_pub, enc_pub: entry.enc_pub });
    } catch (e) {
      if (!(e instanceof IdentityChanged)) throw e;
      changed = e;
    }
  }
  vault.accessHeads ??= new Map();
  vault.accessHeads.set(uuidText(pouchId), list.head);
  if (changed) {
    changed.list = list;
    throw changed;
  }
  return list;
}

// [account id, entry] of every account the list names (format.js verifyAccessList's Map).
const accountsOf = (list) => [...list.accounts.entries()];
const entryOf = (list, accountId) => list.accounts.get(uuidText(accountId));
const inList = (e) => !!e?.in_list;

// This account's role in the pouch: the list's, or `admin` for a pouch never shared.
export function roleIn(list, accountId) {
  if (!list) return 'admin';
  const e = entryOf(list, accountId);
  return inList(e) ? e.role : null;
}

// The role of `accountId` at key generation k (SHARING.md §4), or '' for none.
export const roleAt = (list, accountId, k) => list.roleAt(accountId, k);

function nextSeq(list) { return list ? list.head.seq + 1 : 0; }
function prevOf(list) { return list ? list.head.hash : ''; }

async function signAccess(vault, me, fields) {
  return C.makeAccess({ by: vault.accountId, at: nowIso(), ...fields }, me.sign.privateKey);
}

// ---- keys: grants out and in (SHARING.md §5) ---------------------------------------------

// Grants of every generation this browser holds, 1 to the pouch's current, to `to` {account_id,
// enc_pub}.
async function grantsOfHistory(vault, pouch, to, me) {
  const held = await vault.pouchKeys(pouch.id, { fresh: true });
  const grants = [];
  for (const [gen, key] of [...held.entries()].sort((a, b) => a[0] - b[0])) {
    if (gen > pouch.key_gen) continue;
    grants.push(await C.sealKeyGrant({
      pouchId: pouch.id, accountId: to.account_id, keyGen: gen, encPub: to.enc_pub, pouchKey: key,
      grantedBy: vault.accountId, granterSignKey: me.sign.privateKey,
    }));
  }
  return grants;
}

// A new pouch key at generation `gen`: envelopes to this account's active members and grants to
// every other account in `list` except `without`. → {key_envelopes, key_grants}
export async function rotation(vault, pouchId, gen, list, { without = [] } = {}) {
  const roster = await vault.refreshRoster();
  const key = randomBytes(32);
  const key_envelopes = [];
  for (const m of await sealableMembers(vault, roster)) {
    key_envelopes.push(await F.sealKeyEnvelope({ pouchId, memberId: m.member_id, keyGen: gen, pouchKey: key,
      encPub: m.enc_pub, creatorId: vault.memberId, creatorSignKey: vault.member.sign.privateKey }));
  }
  const key_grants = await grantsForKey(vault, pouchId, gen, key, list, { without });
  return { key_envelopes, key_grants };
}

// The members a new key is sealed to: the roster's active ones, less those whose device the
// service lists as revoked while the roster has no removal yet (a device that revoked itself):
// as Devices' "Rotate keys now" does. This browser's own member is never left out.
async function sealableMembers(vault, roster) {
  const revoked = new Set((await getAll('/v1/devices')).filter((d) => d.revoked_at).map((d) => String(d.member_id).toLowerCase()));
  return roster.active.filter((m) => m.member_id === vault.memberId || !revoked.has(m.member_id));
}

// Grants to this account at generations its members hold no envelope of (after accepting,
// and after another account rotated): each checked (§4, §5), opened with the identity's key
// and sealed to every active member, then posted. → how many generations were filled in.
export async function fillFromGrants(vault, pouchId) {
  const list = await accessList(vault, pouchId);
  if (!list) return 0;
  const held = await vault.pouchKeys(pouchId, { fresh: true });
  const envs = await envelopesFromGrants(vault, pouchId, list, held);
  for (let at = 0; at < envs.length; at += 2000) {
    await post(`/v1/pouches/${pouchId}/key-envelopes`, { key_envelopes: envs.slice(at, at + 2000) });
  }
  if (envs.length) vault.invalidate(pouchId);
  return envs.length;
}

// The key envelopes, for every active member of this account, of each grant to it at a
// generation not in `held` (Map key_gen → key), the grant checked (§4, §5) and opened with the
// identity's HPKE key. A refused grant is skipped.
async function envelopesFromGrants(vault, pouchId, list, held) {
  const me = await ownIdentity(vault);
  const grants = await getAll(`/v1/pouches/${pouchId}/key-grants`);
  const roster = await vault.refreshRoster();
  const envs = [];
  for (const g of grants) {
    if (!Number.isSafeInteger(g?.key_gen) || held.has(g.key_gen)) continue;
    if (await C.keyGrantRefusal(g, list, pouchId, vault.accountId)) continue;
    let key;
    try { key = await C.openKeyGrant(g, me.enc); } catch { continue; }
    held.set(g.key_gen, key);
    for (const m of await sealableMembers(vault, roster)) {
      envs.push(await F.sealKeyEnvelope({ pouchId, memberId: m.member_id, keyGen: g.key_gen, pouchKey: key,
        encPub: m.enc_pub, creatorId: vault.memberId, creatorSignKey: vault.member.sign.privateKey }));
    }
  }
  return envs;
}

// ---- inviting (SHARING.md §6) -------------------------------------------------------------

// Invites `target` (a lookUp answer) to `pouch` with `role`: the owner's statement 0 when the
// pouch has no access list yet, the share statement, and a grant of every generation held.
export async function invite(vault, pouch, target, role, expiresIn) {
  if (!['read', 'write', 'admin'].includes(role)) throw new FormatError('choose a role: read, write or admin');
  const me = await ownIdentity(vault);
  await pinIdentity(vault, target);
  await vault.writeKey(pouch);
  const list = await accessList(vault, pouch.id);
  if (roleIn(list, vault.accountId) !== 'admin') throw new FormatError('only an admin of the pouch can invite');
  const statements = [];
  let seq = nextSeq(list);
  let prev = prevOf(list);
  if (!list) {
    const s0 = await signAccess(vault, me, {
      pouch_id: pouch.id, seq, prev, kind: 'share', account_id: vault.accountId,
      identity: { sign_pub: me.sign_pub, enc_pub: me.enc_pub }, role: 'admin', key_gen: pouch.key_gen,
    });
    statements.push(s0);
    seq += 1;
    prev = F.statementHash(s0.statement);
  }
  statements.push(await signAccess(vault, me, {
    pouch_id: pouch.id, seq, prev, kind: 'share', account_id: target.account_id,
    identity: { sign_pub: target.sign_pub, enc_pub: target.enc_pub }, role, key_gen: pouch.key_gen,
  }));
  const key_grants = await grantsOfHistory(vault, pouch, target, me);
  return post(`/v1/pouches/${pouch.id}/invitations`, {
    id: randomUuid(), account_id: target.account_id, email: target.email, role,
    ...(expiresIn ? { expires_in: expiresIn } : {}), statements, key_grants,
  });
}

// ---- members, roles, removal, leaving (SHARING.md §7) ---------------------------------------

const RANK = { read: 1, write: 2, admin: 3 };

// The members page's data: {members (the service's list), list (verified), myRole, changed}.
// null from a service without sharing (404 for the members).
export async function members(vault, pouchId) {
  let rows;
  try {
    rows = (await get(`/v1/pouches/${pouchId}/members`)).items || [];
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null;
    throw e;
  }
  // The list the pouch's files were checked with (verified once per access change).
  const readers = vault.sharedReaders(pouchId);
  const list = await readers.list();
  const changed = readers.changed;
  // The service's rows are shown; the role each has is the verified list's word.
  const checked = rows.map((m) => {
    const id = uuidText(m.account_id);
    const entry = list ? entryOf(list, id) : null;
    const listed = entry ? (inList(entry) ? entry.role : null) : null;
    return { ...m, account_id: id, role_checked: list ? listed : (id === vault.accountId ? 'admin' : null),
      differs: !!list && listed !== null && listed !== m.role, identity: entry ? { sign_pub: entry.sign_pub, enc_pub: entry.enc_pub } : m.identity };
  });
  return { members: checked, list, myRole: roleIn(list, vault.accountId), changed };
}

// Changes `accountId`'s role: raising is one statement; lowering rotates the pouch key.
export async function changeRole(vault, pouch, accountId, role) {
  const me = await ownIdentity(vault);
  await vault.writeKey(pouch);
  const list = await accessList(vault, pouch.id);
  const entry = list && entryOf(list, accountId);
  if (!inList(entry)) throw new FormatError('that account is not in the pouch');
  const lowers = RANK[role] < RANK[entry.role];
  const gen = lowers ? pouch.key_gen + 1 : pouch.key_gen;
  const s = await signAccess(vault, me, {
    pouch_id: pouch.id, seq: nextSeq(list), prev: prevOf(list), kind: 'role', account_id: accountId,
    identity: { sign_pub: entry.sign_pub, enc_pub: entry.enc_pub }, role, key_gen: gen,
  });
  const keys = lowers ? await rotation(vault, pouch.id, gen, list) : {};
  const r = await post(`/v1/pouches/${pouch.id}/access`, { ...s, ...keys });
  vault.invalidate(pouch.id);
  return r;
}

// Removes `accountId` from the pouch, with the rotation that goes with it (no grant to it).
export async function removeAccount(vault, pouch, accountId) {
  const { s, keys } = await removal(vault, pouch, accountId);
  const r = await post(`/v1/pouches/${pouch.id}/access`, { ...s, ...keys });
  vault.invalidate(pouch.id);
  return r;
}

async function removal(vault, pouch, accountId) {
  const me = await ownIdentity(vault);
  await vault.writeKey(pouch);
  const list = await accessList(vault, pouch.id);
  const entry = list && entryOf(list, accountId);
  if (!inList(entry)) throw new FormatError('that account is not in the pouch');
  if (accountId === vault.accountId) throw new FormatError('to take your own account out, leave the pouch');
  const gen = pouch.key_gen + 1;
  const s = await signAccess(vault, me, {
    pouch_id: pouch.id, seq: nextSeq(list), prev: prevOf(list), kind: 'remove', account_id: accountId,
    identity: { sign_pub: entry.sign_pub, enc_pub: entry.enc_pub }, role: entry.role, key_gen: gen, rotated_to: gen,
  });
  return { s, keys: await rotation(vault, pouch.id, gen, list, { without: [accountId] }) };
}

// This account leaves the pouch (no keys: an admin's client owes the rotation). 409 last_admin
// comes back as the ApiError.
export async function leave(vault, pouchId) {
  const me = await ownIdentity(vault);
  const list = await accessList(vault, pouchId);
  const entry = list && entryOf(list, vault.accountId);
  if (!inList(entry)) throw new FormatError('this account is not in the pouch\'s access list');
  const gen = Math.max(list.keyGen, await pouchGen(pouchId)) + 1;
  const s = await signAccess(vault, me, {
    pouch_id: pouchId, seq: nextSeq(list), prev: prevOf(list), kind: 'leave', account_id: vault.accountId,
    identity: { sign_pub: me.sign_pub, enc_pub: me.enc_pub }, role: entry.role, key_gen: gen, rotated_to: gen,
  });
  const r = await post(`/v1/pouches/${pouchId}/leave`, s);
  vault.invalidate(pouchId);
  return r;
}

// The pouch's key_gen as the service names it (0 when it does not show the pouch: an invitee
// before accepting).
async function pouchGen(pouchId) {
  try {
    const p = await get(`/v1/pouches/${pouchId}`);
    return Number.isSafeInteger(p?.key_gen) ? p.key_gen : 0;
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return 0;
    throw e;
  }
}

// ---- invitations (SHARING.md §6) --------------------------------------------------------

export const invitations = (direction, state) => getAll('/v1/invitations', { direction, state });

// A received invitation checked before it is shown as acceptable: the inviter's identity
// against its genesis (then pinned or compared), the access list naming this account with the
// role. → {inviter: {…identity}, safety, list}
export async function checkInvitation(vault, inv) {
  const ii = inv.inviter_identity || {};
  const body = await C.verifyIdentity({ statement: ii.statement, signature: ii.signature }, ii.genesis);
  if (uuidText(body.account_id) !== uuidText(inv.inviter_account_id)) throw new FormatError('the inviter\'s identity names another account');
  const inviter = { account_id: uuidText(body.account_id), email: inv.inviter_email, genesis_hash: body.genesis_hash, sign_pub: body.sign_pub, enc_pub: body.enc_pub };
  await pinIdentity(vault, inviter);
  const list = await accessList(vault, inv.pouch_id);
  const mine = list && entryOf(list, vault.accountId);
  if (!inList(mine) || mine.role !== inv.role) throw new FormatError('the pouch\'s access list does not name this account with the invitation\'s role');
  const by = entryOf(list, inviter.account_id);
  if (!by || !sameJwk(by.sign_pub, inviter.sign_pub)) throw new FormatError('the access list holds another identity for the inviter');
  return { inviter, list, safety: await safetyNumberWith(vault, inviter) };
}

// Accepts: the grants opened and sealed to this account's members, sent with the acceptance
// (SHARING.md §6). A service that shows an invitee no grant before it accepts gets the
// acceptance alone, and the keys are filled in right after it (as after any rotation).
export async function accept(vault, inv) {
  const { list } = await checkInvitation(vault, inv);
  let envs = [];
  try {
    envs = await envelopesFromGrants(vault, inv.pouch_id, list, new Map());
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e;
  }
  if (envs.length > 2000) envs = [];  // a long history: filled in after, 2,000 at a time
  const r = await post(`/v1/invitations/${inv.id}/accept`, { key_envelopes: envs });
  vault.invalidate(inv.pouch_id);
  await fillFromGrants(vault, inv.pouch_id);
  return r;
}

// Declines: a `leave` signed by this account, which owes a rotation like any leave.
export async function decline(vault, inv) {
  const me = await ownIdentity(vault);
  const list = await accessList(vault, inv.pouch_id);
  const entry = list && entryOf(list, vault.accountId);
  if (!inList(entry)) throw new FormatError('the pouch\'s access list does not name this account');
  const gen = Math.max(list.keyGen, await pouchGen(inv.pouch_id)) + 1;
  const s = await signAccess(vault, me, {
    pouch_id: inv.pouch_id, seq: nextSeq(list), prev: prevOf(list), kind: 'leave', account_id: vault.accountId,
    identity: { sign_pub: me.sign_pub, enc_pub: me.enc_pub }, role: entry.role, key_gen: gen, rotated_to: gen,
  });
  return post(`/v1/invitations/${inv.id}/decline`, s);
}

// Withdraws a pending invitation this account sent: a removal with its rotation.
export async function withdraw(vault, inv) {
  const pouch = await get(`/v1/pouches/${inv.pouch_id}`);
  const { s, keys } = await removal(vault, pouch, uuidText(inv.invitee_account_id));
  const r = await post(`/v1/invitations/${inv.id}/withdraw`, { ...s, key_envelopes: keys.key_envelopes, key_grants: keys.key_grants });
  vault.invalidate(inv.pouch_id);
  return r;
}

// ---- reading a shared pouch (SHARING.md §4 "What clients refuse", §10) ------------------------

// The signers of a shared pouch: the verified access list and, fetched when first needed, the
// verified roster of each other account (chained to its pinned genesis_hash; the first roster
// seen pins it when the identity came from the list alone). Kept per pouch until invalidated.
export class SharedReaders {
  constructor(vault, pouchId) {
    this.vault = vault;
    this.pouchId = pouchId;
    this.listPromise = null;
    this.rosters = new Map();  // account id → Promise(verified roster)
  }

  list() {
    this.listPromise ??= accessList(this.vault, this.pouchId).catch((e) => {
      // A changed identity is refused where it signs; the list is still read.
      if (e instanceof IdentityChanged && e.list) {
        this.changed = e;
        return e.list;
      }
      // A service without sharing: the pouch is as before sharing existed.
      if (e instanceof ApiError && e.status === 404) return null;
      this.listPromise = null;
      throw e;
    });
    return this.listPromise;
  }

  roster(accountId) {
    if (!this.rosters.has(accountId)) {
      const p = this.fetchRoster(accountId);
      p.catch(() => this.rosters.delete(accountId));
      this.rosters.set(accountId, p);
    }
    return this.rosters.get(accountId);
  }

  async fetchRoster(accountId) {
    const items = await getAll(`/v1/pouches/${this.pouchId}/rosters/${accountId}`, { limit: 1000 });
    const roster = await F.verifyRoster(items);
    const pin = await store.loadIdentityPin(this.vault.accountId, accountId);
    if (!pin) throw new FormatError('the account is not pinned');
    if (pin.changed) throw new IdentityChanged(accountId, pin.email);
    if (pin.genesis_hash && pin.genesis_hash !== roster.genesisHash) {
      throw new FormatError(`the roster the service shows for ${pin.email || accountId} is not the one its identity is bound to`);
    }
    if (!pin.genesis_hash) {
      // Pinned from the access list alone: the roster is bound to the identity by the account's
      // identity statement (…/members), checked against this roster's statement 0, never taken
      // on trust. The pin then keeps the genesis (the roster stays bound after the account
      // leaves the list, for its older revisions).
      const rows = (await get(`/v1/pouches/${this.pouchId}/members`)).items || [];
      const row = rows.find((m) => uuidText(m.account_id) === accountId);
      if (!row || !row.identity_statement) throw new FormatError('the account\'s roster is not bound to its identity');
      const body = await F.verifyIdentity(row.identity_statement, items[0]);
      if (uuidText(body.account_id) !== accountId || !sameJwk(body.sign_pub, pin.sign_pub) || !sameJwk(body.enc_pub, pin.enc_pub)) {
        throw new FormatError('the roster the service shows is bound to another identity than the pinned one');
      }
      await store.saveIdentityPin(this.vault.accountId, { ...pin, genesis_hash: roster.genesisHash });
    }
    return roster;
  }

  // Why a revision signed by `memberId` at `keyGen` is refused, or null; `ownRoster` is the
  // reader's account's. → {error} | {signer (the member, with sign_pub)}
  async signer(memberId, keyGen, ownRoster) {
    const list = await this.list();
    const own = ownRoster.members.get(memberId);
    let accountId = own ? this.vault.accountId : null;
    let member = own;
    if (!member) {
      for (const [id] of accountsOf(list)) {
        if (id === this.vault.accountId) continue;
        let r;
        try { r = await this.roster(id); } catch (e) {
          if (e instanceof IdentityChanged) return { error: `signed by a member of ${e.accountId}, whose identity changed: refused until you accept the new one` };
          continue;
        }
        if (r.members.has(memberId)) { accountId = id; member = r.members.get(memberId); break; }
      }
    }
    if (!member) return { error: 'signed by someone who is in no roster of the accounts in this pouch' };
    if (accountId !== this.vault.accountId) {
      const pin = await store.loadIdentityPin(this.vault.accountId, accountId);
      this.vault.foreignLabels.set(memberId, `${member.label} (${pin?.email || accountId.slice(0, 8)})`);
    }
    if (!F.trustedAt(member, keyGen)) return { error: `signed at key generation ${keyGen} by a member removed from its account's roster at generation ${member.rotated_to}: refused` };
    const why = list.revisionRefusal(accountId, keyGen);
    if (why === 'not_in_access_list') return { error: `signed by a member of an account that was not in the pouch at key generation ${keyGen}: refused` };
    if (why) return { error: `signed by a member of an account whose role at key generation ${keyGen} was ${roleAt(list, accountId, keyGen)}, which may not write: refused` };
    return { signer: member };
  }
}

// Grants of `key` at generation `gen` to every account in `list` but this one and `without`
// (a rotation of a shared pouch, SHARING.md §7). [] for a pouch never shared.
export async function grantsForKey(vault, pouchId, gen, key, list, { without = [] } = {}) {
  if (!list) return [];
  const me = await ownIdentity(vault);
  const out = [];
  for (const [accountId, entry] of accountsOf(list)) {
    if (accountId === vault.accountId || without.includes(accountId) || !inList(entry)) continue;
    const pin = await pinIdentity(vault, { account_id: accountId, sign_pub: entry.sign_pub, enc_pub: entry.enc_pub });
    out.push(await C.sealKeyGrant({ pouchId, accountId, keyGen: gen, encPub: pin.enc_pub, pouchKey: key,
      grantedBy: vault.accountId, granterSignKey: me.sign.privateKey }));
  }
  return out;
}
