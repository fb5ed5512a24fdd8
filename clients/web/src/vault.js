// vault.js -- what the web member does with its keys, on the public API only: genesis and the
// recovery kit, restoring keys, the verified roster, pouch keys from fully checked key
// envelopes (with the per-pouch high-water mark no write goes below), files (inline or
// chunked), history, shares and revoking a device with a key rotation (approving a CLI login
// is approval.js's). Pages call these; the byte formats are crypto/format.js's.
import { ApiError, blobRequest, get, getAll, getRoster, post } from './api.js';
import { openFile, putChunk, sealFile } from './chunks.js';
import { FormatError, b64url, randomBytes, randomUuid, unb64url, uuidText } from './crypto/bytes.js';
import * as F from './crypto/format.js';
import {
  exportJwk, generateEncryptionKey, generateSigningKey, importEncryptionPair, importSigningPair,
  publicJwk, sameJwk,
} from './crypto/primitives.js';
import { describeError } from './errors.js';
import * as store from './keystore.js';
import * as S from './sharing.js';
import { fileNameLabel } from './text.js';

const nowIso = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

// ---- member keys -------------------------------------------------------------------------

// Imports private JWKs as non-extractable keys and keeps them in IndexedDB.
async function keepMemberKeys({ accountId, memberId, signPriv, encPriv }) {
  const sign = await importSigningPair(signPriv, false);
  const enc = await importEncryptionPair(encPriv, false);
  const record = {
    member_id: memberId, account_id: accountId, sign, enc,
    sign_pub: publicJwk(signPriv), enc_pub: publicJwk(encPriv),
  };
  await store.saveMember(record);
  return record;
}

// Onboarding, step 1: keys, ids, the first pouch key, and the recovery kit. Nothing is sent.
export async function prepareGenesis(account) {
  const signPair = await generateSigningKey(true);
  const encPair = await generateEncryptionKey(true);
  const signPriv = await exportJwk(signPair.privateKey);
  const encPriv = await exportJwk(encPair.privateKey);
  const memberId = randomUuid();
  const { code, kit } = await F.makeRecoveryKit({
    accountId: account.storage_account_id, memberId, createdAt: nowIso(), signPriv, encPriv,
  });
  return { memberId, pouchId: randomUuid(), signPriv, encPriv, code, kit };
}

// Onboarding, step 2: keys into IndexedDB (non-extractable), roster statement 0 and the first
// pouch's key envelope to the service.
export async function commitGenesis(account, prep) {
  const member = await keepMemberKeys({ accountId: account.storage_account_id, memberId: prep.memberId, signPriv: prep.signPriv, encPriv: prep.encPriv });
  const body = F.statementBody({
    seq: 0, prev: '', kind: 'genesis', by: prep.memberId, member_id: prep.memberId,
    sign_pub: member.sign_pub, enc_pub: member.enc_pub, label: 'web', device_id: null, at: nowIso(),
  });
  const statement = await F.signStatement(body, member.sign.privateKey);
  const envelope = await F.sealKeyEnvelope({
    pouchId: prep.pouchId, memberId: prep.memberId, keyGen: 1, pouchKey: randomBytes(32),
    encPub: member.enc_pub, creatorId: prep.memberId, creatorSignKey: member.sign.privateKey,
  });
  const r = await post('/v1/account/roster/genesis', { statements: [statement], key_envelopes: [envelope] });
  await store.savePin(account.storage_account_id, { seq: 0, hash: r.genesis_hash });
  return r;
}

// The account's roster, verified against the head this browser last verified (its pin), then
// `check`ed (it throws to refuse); its head becomes the new pin.
async function verifyAccountRoster(accountId, check) {
  const pin = await store.loadPin(accountId);
  const roster = await F.verifyRoster(await getRoster(), pin ? [pin] : []);
  check(roster);
  await store.savePin(accountId, roster.head);
  return roster;
}

// "Restore on this browser": the kit file and its code → keys, checked against the roster.
export async function restoreFromKit(account, kit, code) {
  if (kit.account_id !== account.storage_account_id) throw new FormatError('this recovery kit belongs to another account');
  if (kit.member_id !== account.member_id) throw new FormatError('this recovery kit is for another member of the account');
  const { signPriv, encPriv } = await F.openRecoveryKit(kit, code);
  await verifyAccountRoster(kit.account_id, (roster) => {
    const m = roster.members.get(kit.member_id);
    if (!m || m.removed_seq !== null) throw new FormatError('the kit\'s member is not an active member of the roster');
    if (!sameJwk(m.sign_pub, publicJwk(signPriv)) || !sameJwk(m.enc_pub, publicJwk(encPriv))) {
      throw new FormatError('the kit\'s keys are not the keys the roster names');
    }
  });
  return keepMemberKeys({ accountId: kit.account_id, memberId: kit.member_id, signPriv, encPriv });
}

// ---- the vault of a signed-in member -------------------------------------------------------

export class Vault {
  // `member` is this browser's record (keystore.js); its account_id, not the service's word,
  // files the roster pin and the high-water marks, and the service must name that account.
  constructor(account, member) {
    if (uuidText(account.storage_account_id) !== uuidText(member.account_id)) {
      throw new FormatError('the service names another account than the one this browser\'s keys belong to');
    }
    this.account = account;
    this.member = member;
    this.accountId = uuidText(member.account_id);
    this.rosterPromise = null;  // the verified roster, shared by every caller until invalidated
    this.lastRoster = null;     // the newest verified roster, for labels while a page renders
    this.keys = new Map();      // pouch id → Map(key_gen → key bytes)
    this.creators = new Map();  // pouch id → Map(key_gen → member id of the envelope's creator)
    this.refused = new Map();   // pouch id → Map(key_gen → why its envelope was refused)
    this.readers = new Map();   // pouch id → sharing.js SharedReaders (access list, other rosters)
    this.foreignLabels = new Map();  // member id of another account in a shared pouch → its label
    this.identity = null;       // the account identity's record (sharing.js), once opened
    this.identityProblem = null;
  }

  get memberId() { return this.member.member_id; }

  // Fetches and verifies the roster afresh; callers meanwhile share this fetch.
  refreshRoster() {
    const p = verifyAccountRoster(this.accountId, (roster) => {
      const me = roster.members.get(this.memberId);
      if (!me || !sameJwk(me.sign_pub, this.member.sign_pub) || !sameJwk(me.enc_pub, this.member.enc_pub)) {
        throw new FormatError('the roster does not hold this browser\'s keys');
      }
    }).then((roster) => {
      if (!this.lastRoster || roster.hashes.length >= this.lastRoster.hashes.length) this.lastRoster = roster;
      return roster;
    });
    this.rosterPromise = p;
    p.catch(() => { if (this.rosterPromise === p) this.rosterPromise = null; });
    return p;
  }

  verifiedRoster() { return this.rosterPromise || this.refreshRoster(); }

  // Forgets the keys held for `pouchId` (every pouch's when none is given) and the roster: the
  // next use fetches and verifies them again (after a key rotation or a roster change).
  invalidate(pouchId) {
    if (pouchId === undefined) {
      this.keys.clear();
      this.readers.clear();
    } else {
      this.keys.delete(pouchId);
      this.readers.delete(pouchId);
    }
    this.rosterPromise = null;
  }

  // ---- shared pouches (docs/SHARING.md; sharing.js does the work) ----

  sharedReaders(pouchId) {
    if (!this.readers.has(pouchId)) this.readers.set(pouchId, new S.SharedReaders(this, pouchId));
    return this.readers.get(pouchId);
  }

  // The pouch's verified access list, or null for a pouch never shared (or a service without
  // sharing, which answers 404 for the list).
  async accessListOf(pouchId) {
    try {
      return await this.sharedReaders(pouchId).list();
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }

  labelOf(memberId) {
    const m = this.lastRoster?.members.get(memberId);
    return m ? m.label : (this.foreignLabels.get(memberId) ?? 'unknown member');
  }

  // Every pouch key this member holds for the pouch, by key_gen. Each envelope is checked in
  // full before its key is used (CLIENT-FORMAT "Key envelope"): for this pouch, sealed to this
  // member, made by a member of the verified roster trusted at its generation (active, or
  // removed with rotated_to above it), signature, HPKE. A refused envelope is skipped and its
  // reason kept for the files that need that key. The highest generation held raises this
  // browser's high-water mark for the pouch.
  async pouchKeys(pouchId, { fresh = false, roster } = {}) {
    if (!fresh && this.keys.has(pouchId)) return this.keys.get(pouchId);
    roster ??= await this.verifiedRoster();
    const envelopes = await getAll(`/v1/pouches/${pouchId}/key-envelopes`, { member_id: this.memberId });
    const keys = new Map();
    const creators = new Map();
    const refused = new Map();
    for (const e of envelopes) {
      const gen = e?.key_gen;
      if (keys.has(gen)) continue;
      const why = F.keyEnvelopeRefusal(e, roster, pouchId, this.memberId);
      if (why) {
        refused.set(gen, refusalWords(why, e, roster));
        continue;
      }
      const creatorId = e.created_by_member.toLowerCase();
      try {
        keys.set(gen, await F.openKeyEnvelope(e, this.member.enc, roster.members.get(creatorId).sign_pub));
        creators.set(gen, creatorId);
        refused.delete(gen);
      } catch (err) {
        refused.set(gen, `its key envelope does not check out (${err.message})`);
      }
    }
    this.keys.set(pouchId, keys);
    this.creators.set(pouchId, creators);
    this.refused.set(pouchId, refused);
    if (keys.size) await store.raiseHighWater(this.accountId, pouchId, Math.max(...keys.keys()));
    return keys;
  }

  // The pouch key of `keyGen`; one not held yet sends for the envelopes again (a rotation
  // elsewhere), unless `refreshed` (a Set of pouch ids, one per listing) says this was done.
  // Its creator is checked again against the roster as it is now (a removal seen later counts).
  async keyFor(pouchId, keyGen, { roster, refreshed } = {}) {
    let keys = await this.pouchKeys(pouchId, { roster });
    if (!keys.has(keyGen) && !refreshed?.has(pouchId)) {
      refreshed?.add(pouchId);
      keys = await this.pouchKeys(pouchId, { fresh: true, roster });
      // A shared pouch another account rotated: its grant to this account becomes envelopes.
      if (!keys.has(keyGen) && (await this.accessListOf(pouchId))) {
        if (await S.fillFromGrants(this, pouchId)) keys = await this.pouchKeys(pouchId, { fresh: true, roster });
      }
    }
    if (!keys.has(keyGen)) {
      const why = this.refused.get(pouchId)?.get(keyGen);
      throw why ? new FormatError(`the key of generation ${keyGen} was refused: ${why}`) : noKey(keyGen);
    }
    roster ??= await this.verifiedRoster();
    const creator = roster.members.get(this.creators.get(pouchId)?.get(keyGen));
    if (!F.trustedAt(creator, keyGen)) {
      throw new FormatError(`the key of generation ${keyGen} was made by a member removed from the roster at or below it, and is not used`);
    }
    return keys.get(keyGen);
  }

  // Throws WriteRefused when the service names a key generation for `pouch` below the highest
  // this browser holds (CLIENT-FORMAT "Rollback": back to keys a removed member may hold).
  async checkRollback(pouch) {
    const high = await store.loadHighWater(this.accountId, pouch.id);
    if (!Number.isSafeInteger(pouch.key_gen) || pouch.key_gen < high) {
      throw new WriteRefused(`The service names key generation ${pouch.key_gen} for pouch ${shortId(pouch.id)}, below generation ${high}, which this browser has held: a rollback, as after a restore from an old backup, or an attack. This browser writes nothing to the pouch (no upload, delete, key rotation or CLI approval) until the service names generation ${high} or later again; reading goes on. Tell whoever runs the service.`);
    }
  }

  // The key a write (upload, delete, a CLI approval's envelopes) uses when the service names
  // `fresh.key_gen` as the pouch's current generation. Refuses with WriteRefused, writing
  // nothing: a generation below the highest this browser has held (a rollback), and a key made
  // by a member since removed (it may have made it after its removal: the writes wait for a
  // key rotation). A key this browser lacks or refused is a FormatError.
  async writeKey(fresh) {
    const checkRollback = () => this.checkRollback(fresh);
    await checkRollback();
    const roster = await this.verifiedRoster();
    // Fetching the keys may raise the mark (envelopes of a higher generation were offered):
    // checked again after, whether the key was found or not.
    let key;
    try {
      key = await this.keyFor(fresh.id, fresh.key_gen, { roster });
    } catch (e) {
      await checkRollback();
      throw e;
    }
    await checkRollback();
    const creator = roster.members.get(this.creators.get(fresh.id)?.get(fresh.key_gen));
    if (!creator || creator.removed_seq !== null) {
      throw new WriteRefused(`The current key of pouch ${shortId(fresh.id)} was made by a member since removed from the account, so this browser writes nothing under it (no upload, delete or CLI approval): waiting for a key rotation (Devices: “Rotate keys now”). Reading goes on.`);
    }
    return key;
  }

  // Why nothing may be written to the pouch now (its page shows it and turns uploads and deletes
  // off), or null.
  async writeProblem(pouch) {
    try {
      await this.checkRole(pouch);
      await this.writeKey(pouch);
      return null;
    } catch (e) {
      if (e instanceof WriteRefused) return e.message;
      if (e instanceof FormatError) return describeError(e);
      throw e;
    }
  }

  // Throws WriteRefused when this account's role in the pouch (the verified access list's,
  // else the service's word) is below write: uploads and deletes are off.
  async checkRole(pouch) {
    const list = await this.accessListOf(pouch.id).catch((e) => { if (e instanceof S.IdentityChanged) return null; throw e; });
    const role = list ? S.roleIn(list, this.accountId) : (pouch.role ?? 'admin');
    if (role !== 'write' && role !== 'admin') {
      throw new WriteRefused(`Your account's role in this pouch is ${role ?? 'none'}: you can read its files but not upload, change or delete them. An admin of the pouch can change your role.`);
    }
  }

  // ---- pouches ----

  async createPouch() {
    const id = randomUuid();
    const key = randomBytes(32);
    const env = await F.sealKeyEnvelope({ pouchId: id, memberId: this.memberId, keyGen: 1, pouchKey: key,
      encPub: this.member.enc_pub, creatorId: this.memberId, creatorSignKey: this.member.sign.privateKey });
    const pouch = await post('/v1/pouches', { id, key_envelopes: [env] });
    this.keys.set(id, new Map([[1, key]]));
    return pouch;
  }

  // ---- artifacts ----

  // One revision → {content} or {error}; the signature is checked against `roster` (the
  // verified roster the caller awaited) first. `refreshed`: as keyFor's, shared by a listing.
  async openRevision(pouchId, rev, roster, refreshed) {
    let signer = roster.members.get(rev.signer_member_id);
    let list = null;
    try {
      list = await this.accessListOf(pouchId);
    } catch (e) {
      return { error: `the pouch's access list does not check out (${e.message}), so no signature is trusted` };
    }
    if (list) {
      // A shared pouch: the signer's account's roster and its role at the revision's generation.
      const r = await this.sharedReaders(pouchId).signer(String(rev.signer_member_id).toLowerCase(), rev.key_gen, roster);
      if (r.error) return r;
      signer = r.signer;
    } else {
      if (!signer) return { error: 'signed by someone who is not in the roster' };
      if (!F.trustedAt(signer, rev.key_gen)) {
        return { error: `signed at key generation ${rev.key_gen} by a member removed from the roster at generation ${signer.rotated_to}: refused` };
      }
    }
    if (!(await F.verifyRevision(signer.sign_pub, pouchId, rev.artifact_id, rev.id, rev.envelope, rev.signature))) {
      return { error: 'its signature does not verify' };
    }
    try {
      const pouchKey = await this.keyFor(pouchId, rev.key_gen, { roster, refreshed });
      const content = await F.openArtifact({ pouchId, artifactId: rev.artifact_id, revisionId: rev.id, keyGen: rev.key_gen, pouchKey, envelope: rev.envelope });
      // The revision's `kind` is the service's word; the signed content decides what it is.
      if ((rev.kind === 'delete') !== (content.deleted === true)) {
        return { error: 'the service lists it as another kind of change than its signed content says' };
      }
      return { content };
    } catch (e) {
      return { error: e.message };
    }
  }

  async listArtifacts(pouchId, { signal } = {}) {
    const roster = await this.verifiedRoster();
    const items = await getAll(`/v1/pouches/${pouchId}/artifacts`, { limit: 500 }, { signal });
    const refreshed = new Set();
    const out = [];
    for (const a of items) out.push(await this.itemOf(pouchId, a?.id, a?.head, a?.updated_at, { roster, refreshed }));
    return out;
  }

  // A file list item {id, head, updated_at, content | error} from the head the service names
  // for artifact `id`. The head must be a revision of this very artifact: its id is what a
  // delete or a replacement names, the head's what was verified.
  async itemOf(pouchId, id, head, updatedAt, { roster, refreshed }) {
    const opened = head?.artifact_id === id
      ? await this.openRevision(pouchId, head, roster, refreshed)
      : { error: 'the service lists it with a revision of another file' };
    return { id, head, updated_at: updatedAt, ...opened };
  }

  // The list item a `revision` event makes (docs/SYNC.md, the events extension): from the
  // revision the event brings when it is the one the event names, else from the artifact's head
  // read from the service (one request); either is verified exactly as a listed head. null when
  // the artifact is gone or its head is a delete (the list shows live files only).
  async eventItem(pouchId, ev, { roster, refreshed, signal } = {}) {
    roster ??= await this.verifiedRoster();
    let head = ev.revision;
    if (!head || typeof head !== 'object' || head.id !== ev.revision_id || head.artifact_id !== ev.artifact_id) {
      head = await this.headOf(pouchId, ev.artifact_id, { signal });
    }
    if (!head) return null;
    if (head.kind === 'delete') return null;
    return this.itemOf(pouchId, ev.artifact_id, head, head.created_at, { roster, refreshed });
  }

  // The artifact's head as the service names it now (its newest revision), or null when there
  // is none.
  async headOf(pouchId, artifactId, { signal } = {}) {
    try {
      const page = await get(`/v1/pouches/${pouchId}/artifacts/${artifactId}/revisions`, { query: { limit: 1 }, signal });
      return page?.items?.[0] ?? null;
    } catch (e) {
      if (e instanceof ApiError && e.status === 404) return null;
      throw e;
    }
  }

  async history(pouchId, artifactId) {
    const roster = await this.verifiedRoster();
    const revs = await getAll(`/v1/pouches/${pouchId}/artifacts/${artifactId}/revisions`, { limit: 500 });
    const refreshed = new Set();
    const out = [];
    for (const r of revs) {
      const opened = r?.artifact_id === artifactId ? await this.openRevision(pouchId, r, roster, refreshed)
        : { error: 'the service lists a revision of another file in its history' };
      out.push({ rev: r, ...opened });
    }
    return out;
  }

  // Posts the ops as one operation; the answer ({results, high_water}). A refused op throws,
  // unless `refusals: 'return'`, when the caller reads r.results itself.
  async commit(pouch, ops, { refusals = 'throw' } = {}) {
    const r = await post(`/v1/pouches/${pouch.id}/operations`, { operation_id: randomUuid(), epoch: pouch.epoch, ops });
    const bad = r.results.find((x) => x.status !== 'applied');
    if (bad && refusals === 'throw') throw refusal(bad);
    return r;
  }

  // The pouch as the service names it now (its current key_gen and epoch), for a write.
  async freshPouch(pouch) {
    const fresh = await get(`/v1/pouches/${pouch.id}`);
    if (fresh.id !== pouch.id) throw new FormatError('the service answered for another pouch');
    return fresh;
  }

  // One op sealed under the generation `pouch` names (the pouch as the page holds it, kept
  // current by the event log, or freshPouch's): nothing is fetched here, writeKey checks the
  // generation against this browser's high-water mark and the key's creator. A generation that
  // moved meanwhile comes back as `stale_key_gen` (commitOne reads the pouch then).
  async makeOp(pouch, { type, artifactId, baseRevisionId, content, blobIds = [], conflictId = null }) {
    const keyGen = pouch.key_gen;
    const pouchKey = await this.writeKey(pouch);
    const revisionId = randomUuid();
    const envelope = await F.sealArtifact({ pouchId: pouch.id, artifactId, revisionId, keyGen, pouchKey, content });
    return {
      type, artifact_id: artifactId, revision_id: revisionId, base_revision_id: baseRevisionId ?? null,
      merge_parent_id: null, name_index: await F.nameIndex(pouchKey, content.name), conflict_id: conflictId,
      key_gen: keyGen, envelope,
      signature: await F.signRevision(this.member.sign.privateKey, pouch.id, artifactId, revisionId, envelope),
      signer_member_id: this.memberId, blob_ids: blobIds,
    };
  }

  // makeOp + commit of one op. When the service answers stale_key_gen (a rotation the page has
  // not heard of yet) the pouch is read again, once, and the op sealed anew under the generation
  // it names now (makeOp checks it). → {pouch, op, res (the op's result), r (the answer)}
  async commitOne(pouch, spec) {
    let p = pouch;
    for (let round = 0; ; round++) {
      const op = await this.makeOp(p, spec);
      const r = await this.commit(p, [op], { refusals: 'return' });
      const res = r.results[0];
      if (res?.status === 'rejected' && res.code === 'stale_key_gen' && round === 0) {
        p = await this.freshPouch(pouch);
        continue;
      }
      return { pouch: p, op, res, r };
    }
  }

  // The list item of a put this browser committed (applied at `seq`): its content is what was
  // sealed here, so nothing is read back.
  ownItem(op, content, seq) {
    const head = {
      id: op.revision_id, artifact_id: op.artifact_id, seq, kind: op.type, key_gen: op.key_gen,
      signer_member_id: op.signer_member_id, envelope: op.envelope, signature: op.signature, blob_ids: op.blob_ids,
      base_revision_id: op.base_revision_id, merge_parent_id: null, conflict_id: op.conflict_id, origin: 'web',
      created_at: nowIso(),
    };
    return { id: op.artifact_id, head, updated_at: head.created_at, content };
  }

  // Upload of a File (a Blob) as `name`; replaces `existing` (an item of listArtifacts) when
  // given. onProgress(done, total, phase). → {written: [list items], stale: [artifact ids whose
  // head moved elsewhere], conflictCopy?}: what the page updates without reading the list again.
  async upload(pouch, file, name, existing, onProgress = () => {}) {
    const problem = F.checkName(name);
    if (problem) throw new FormatError(problem);
    // Nothing is sent, not even a chunk, to a pouch this browser may not write to now: the pouch
    // is read once per upload, here, and its ops are sealed under what it names.
    const fresh = await this.freshPouch(pouch);
    await this.checkRole(fresh);
    await this.writeKey(fresh);
    const content = { name, kind: 'file', size: file.size, mtime: file.lastModified || Date.now() };
    let blobIds = [];
    if (file.size <= F.INLINE_MAX) {
      const bytes = new Uint8Array(await file.arrayBuffer());
      content.size = bytes.length;
      content.data = b64url(bytes);
      onProgress(bytes.length, bytes.length, 'encrypting');
    } else {
      content.chunks = await this.sendChunks(pouch, file, existing, onProgress);
      blobIds = [...new Set(content.chunks.map((c) => c.blob_id))];
    }
    const artifactId = existing?.id || randomUuid();
    onProgress(1, 1, 'saving');
    const first = await this.commitOne(fresh, {
      type: 'put', artifactId, baseRevisionId: existing?.head?.id ?? null, content, blobIds,
    });
    const res = first.res;
    if (res.status === 'conflict' && res.code === 'stale_base' && res.head_revision_id) {
      // Someone else changed the file meanwhile: theirs stays, ours is kept beside it as a
      // conflict copy (CLIENT-FORMAT "Conflicts").
      const copy = { ...content, name: conflictName(name, fileNameLabel(this.labelOf(this.memberId))) };
      const unsafe = F.checkName(copy.name);
      if (unsafe) throw new FormatError(`the conflict copy's name: ${unsafe}`);
      const again = await this.commitOne(first.pouch, {
        type: 'put', artifactId: randomUuid(), baseRevisionId: null, content: copy, blobIds, conflictId: res.head_revision_id,
      });
      if (again.res.status !== 'applied') throw refusal(again.res);
      return { conflictCopy: copy.name, written: [this.ownItem(again.op, copy, again.res.seq)], stale: [artifactId] };
    }
    if (res.status !== 'applied') throw refusal(res);
    return { written: [this.ownItem(first.op, content, res.seq)], stale: [] };
  }

  // A large file's chunks (CLIENT-FORMAT "Chunks"), sealed in the chunk workers (chunks.js)
  // and each checked and uploaded as soon as it is sealed, a few at once; a chunk whose
  // plaintext hash equals one of the existing head's is not sealed again: its entry is reused.
  // onProgress(bytes, file size, 'uploading'), at most every 100 ms. → content.chunks.
  async sendChunks(pouch, file, existing, onProgress) {
    const reuse = new Map((existing?.content?.chunks || []).map((c) => [c.hash, c]));
    const check = blobChecker(pouch.id);
    const partial = new Map();  // chunk index → plaintext bytes its upload has sent so far
    let done = 0;
    let shown = 0;
    const report = (now) => {
      if (!now && performance.now() - shown < 100) return;
      shown = performance.now();
      let n = done;
      for (const v of partial.values()) n += v;
      onProgress(Math.min(n, file.size), file.size, 'uploading');
    };
    return sealFile(file, [...reuse.keys()], async (i, sealed) => {
      const entry = sealed.hash !== undefined ? reuse.get(sealed.hash) : sealed.entry;
      // Each new chunk has its own random key, so its blob id is new: checking it reserves it.
      if (sealed.hash === undefined && (await check({ id: entry.blob_id, stored_size: sealed.stored.byteLength }))) {
        await putChunk(sealed.stored, blobRequest(pouch.id, entry.blob_id), (n) => {
          partial.set(i, Math.min(n, entry.size));
          report(false);
        });
      }
      partial.delete(i);
      done += entry.size;
      report(true);
      return entry;
    });
  }

  // Deletes the file under the generation the page's `pouch` names. → {removed: [{id, seq}]}
  async remove(pouch, item) {
    await this.checkRole(pouch);
    const c = item.content;
    const { res } = await this.commitOne(pouch, {
      type: 'delete', artifactId: item.id, baseRevisionId: item.head.id,
      content: { name: c.name, kind: c.kind, size: 0, mtime: Date.now(), deleted: true },
    });
    if (res.status !== 'applied') throw refusal(res);
    return { removed: [{ id: item.id, seq: res.seq }] };
  }

  // The plaintext of one revision's content as a Blob, its chunks fetched and opened a few at
  // once (chunks.js). The content's shape is checked first: a blob id reaches a URL only as 43
  // b64url characters. onProgress(done, total).
  async fileBlob(pouchId, content, onProgress = () => {}) {
    F.checkContent(content);
    if (content.data !== undefined) return new Blob([unb64url(content.data)]);
    return openFile(content.chunks, content.size, (entry) => {
      if (!F.BLOB_ID.test(entry.blob_id)) throw new FormatError('a chunk has an invalid blob id');
      return blobRequest(pouchId, entry.blob_id);
    }, (done) => onProgress(done, content.size));
  }

  // The same as bytes.
  async fileBytes(pouchId, content, onProgress) {
    return new Uint8Array(await (await this.fileBlob(pouchId, content, onProgress)).arrayBuffer());
  }

  // ---- shares ----

  async createShare(pouch, item, { expires, oneTime }) {
    const data = await this.fileBytes(pouch.id, item.content);
    const shareId = randomUuid();
    const key = randomBytes(32);
    const name = item.content.name.split('/').pop();
    const meta = { v: 1, name, kind: item.content.kind, size: data.length, mtime: item.content.mtime, type: '' };
    const sealed = await F.sealShare({ shareId, key, meta, data, label: name });
    const share = await post(`/v1/pouches/${pouch.id}/shares`, { id: shareId, bundle: sealed.bundle, label_enc: sealed.label_enc, expires, one_time: oneTime });
    await store.saveShareKey(shareId, b64url(key));
    return { share, link: F.shareLink(location.origin, shareId, key), name };
  }

  async shareInfo(share) {
    const rec = await store.loadShareKey(share.id);
    if (!rec) return { label: null, link: null };
    const key = unb64url(rec.key);
    let label = null;
    try { label = await F.openShareLabel({ shareId: share.id, key, labelEnc: share.label_enc }); } catch { /* shown as unknown */ }
    return { label, link: F.shareLink(location.origin, share.id, key) };
  }

  // ---- revoking a device ----

  // Removes the device's member from the roster and rotates every pouch to key_gen + 1 for the
  // remaining members, in the revoke request where one key_gen fits all (decisions §13), the
  // rest with key-envelope posts. onProgress(text).
  async revokeDevice(device, onProgress = () => {}) {
    // The device list is the service's word; the one member it must never name is this one
    // (the browser would sign its own removal and lock the account out of its keys).
    if (String(device.member_id).toLowerCase() === this.memberId) {
      throw new Error('The service lists this browser\'s own member as that device\'s. Nothing was revoked: this browser does not remove itself.');
    }
    const roster = await this.refreshRoster();
    const m = roster.members.get(device.member_id);
    if (!m || m.removed_seq !== null) {
      onProgress('Revoking (its member was already removed)…');
      return post(`/v1/devices/${device.id}/revoke`, {});
    }
    const remaining = roster.active.filter((x) => x.member_id !== m.member_id);
    const rotations = await this.newPouchKeys(remaining, onProgress);
    // The removal names the generation the rotation moves the pouches to (the highest):
    // readers refuse anything the removed member makes at or above it.
    onProgress('Signing the removal…');
    const body = F.statementBody({
      seq: roster.hashes.length, prev: roster.head.hash, kind: 'remove', by: this.memberId, member_id: m.member_id,
      sign_pub: m.sign_pub, enc_pub: m.enc_pub, label: m.label, device_id: device.id, at: nowIso(),
      rotated_to: F.rotatedToOf(rotations.map((g) => g.pouch.key_gen)),
    });
    const statement = await F.signStatement(body, this.member.sign.privateKey);
    // The server takes one key_gen per pouch in a revoke (current + 1 for each), so every
    // pouch's new keys go with the removal when they fit one request (2,000 envelopes).
    const all = rotations.flatMap((g) => g.envs);
    const grants = rotations.flatMap((g) => g.grants || []);
    const fits = all.length <= 2000 && grants.length <= 1000;
    onProgress('Revoking the device…');
    let result;
    try {
      result = await post(`/v1/devices/${device.id}/revoke`, {
        roster: { statements: [statement], key_envelopes: fits ? all : [], ...(fits && grants.length ? { key_grants: grants } : {}) }, reason: 'revoked in the web app',
      });
    } catch (e) {
      if (!(e instanceof ApiError) || e.code !== 'key_gen_conflict') throw e;
      // A pouch was re-keyed meanwhile: revoke with the removal alone, then re-key afresh.
      result = await post(`/v1/devices/${device.id}/revoke`, { roster: { statements: [statement], key_envelopes: [] }, reason: 'revoked in the web app' });
      this.invalidate();
      return { ...result, ...(await this.rotateKeys([m.member_id], onProgress)) };
    }
    if (!fits) result = { ...result, ...(await this.storeKeys(rotations, onProgress)) };
    this.invalidate();
    return result;
  }

  // A fresh pouch key at key_gen + 1 for every pouch, sealed to each of `members`:
  // [{pouch, envs}]. A pouch whose key_gen is below this browser's high-water mark is a
  // rollback: nothing is rotated.
  async newPouchKeys(members, onProgress) {
    const pouches = await getAll('/v1/pouches');
    const out = [];
    for (const [i, pouch] of pouches.entries()) {
      await this.checkRollback(pouch);
      onProgress(`Making new keys: pouch ${i + 1} of ${pouches.length}…`);
      const gen = pouch.key_gen + 1;
      const key = randomBytes(32);
      const envs = [];
      for (const r of members) {
        envs.push(await F.sealKeyEnvelope({ pouchId: pouch.id, memberId: r.member_id, keyGen: gen, pouchKey: key,
          encPub: r.enc_pub, creatorId: this.memberId, creatorSignKey: this.member.sign.privateKey }));
      }
      // A shared pouch's rotation carries a grant for every other account in its list.
      const list = pouch.shared ? await this.accessListOf(pouch.id) : null;
      const grants = await S.grantsForKey(this, pouch.id, gen, key, list);
      out.push({ pouch, envs, grants });
    }
    return out;
  }

  // POST key-envelopes per pouch, 2,000 at a time; the last answer ({key_gen, rotation_pending}).
  async storeKeys(rotations, onProgress) {
    let last = {};
    for (const [i, g] of rotations.entries()) {
      onProgress(`Storing new keys: pouch ${i + 1} of ${rotations.length}…`);
      for (let at = 0; at < g.envs.length; at += 2000) {
        // The grants of a shared pouch go with its first envelopes (one request per rotation).
        const grants = at === 0 && g.grants?.length ? { key_grants: g.grants } : {};
        last = await post(`/v1/pouches/${g.pouch.id}/key-envelopes`, { key_envelopes: g.envs.slice(at, at + 2000), ...grants });
      }
    }
    return last;
  }

  // Finishes a key rotation that a revoke left pending (a device that revoked itself, or a
  // revoke from elsewhere): new keys for every pouch, for the active members of the verified
  // roster except `excluded` (members of revoked devices). Answers {rotation_pending}.
  async rotateKeys(excluded, onProgress = () => {}) {
    const roster = await this.refreshRoster();
    // (`excluded` comes from the service's device list: this member is never left out.)
    const members = roster.active.filter((x) => x.member_id === this.memberId || !excluded.includes(x.member_id));
    const result = await this.storeKeys(await this.newPouchKeys(members, onProgress), onProgress);
    this.invalidate();
    return result;
  }
}

const shortId = (id) => String(id).slice(0, 8);

// blob → whether the service misses it (and so reserved it): the blobs asked about while a
// check is on its way go together in the next one (≤ 1,000 a request, SYNC.md "Blobs").
function blobChecker(pouchId) {
  const queue = [];
  let busy = false;
  const flush = async () => {
    busy = true;
    while (queue.length) {
      const batch = queue.splice(0, 1000);
      try {
        const { missing } = await post(`/v1/pouches/${pouchId}/blobs/check`, { blobs: batch.map((q) => q.blob) });
        const miss = new Set(missing);
        for (const q of batch) q.resolve(miss.has(q.blob.id));
      } catch (e) {
        for (const q of batch) q.reject(e);
      }
    }
    busy = false;
  };
  return (blob) => new Promise((resolve, reject) => {
    queue.push({ blob, resolve, reject });
    if (!busy) flush();
  });
}

const noKey = (keyGen) => new FormatError(`this browser holds no pouch key of generation ${keyGen}`);

// A write refused by this browser, not by the service: a rollback, or a current key made by a
// removed member. Its message is for people as it is.
export class WriteRefused extends Error {
  constructor(message) {
    super(message);
    this.name = 'WriteRefused';
  }
}

// A key envelope's refusal (format.js keyEnvelopeRefusal), in words.
function refusalWords(why, e, roster) {
  const m = typeof e?.created_by_member === 'string' ? roster.members.get(e.created_by_member.toLowerCase()) : null;
  return {
    wrong_pouch: 'its envelope names another pouch',
    wrong_member: 'its envelope is sealed to another member',
    bad_key_gen: 'its envelope has no valid key generation',
    unknown_creator: 'its envelope was made by someone who is not in the roster',
    creator_removed: `its envelope was made by a member removed from the roster at generation ${m?.rotated_to}`,
  }[why] || why;
}

// A refused op of a commit, in words.
function refusal(res) {
  const words = {
    stale_base: 'someone changed this file meanwhile; reload and try again',
    artifact_exists: 'a file with this name appeared meanwhile; reload and try again',
    stale_key_gen: 'the pouch keys were rotated meanwhile; reload and try again',
    quota_exceeded: 'your storage plan is full',
    missing_blob: 'an uploaded piece is missing on the server; try again',
  };
  return new ApiError(409, res.code, `The change was not saved: ${words[res.code] || res.message || res.code}.`);
}

// `<stem> (conflict <label> <YYYY-MM-DD>)<.ext>`, the extension being the last segment's;
// `label` is already in its file-name form (text.js fileNameLabel).
function conflictName(name, label, date = new Date()) {
  const slash = name.lastIndexOf('/');
  const dot = name.lastIndexOf('.');
  const cut = dot > slash + 1 ? dot : name.length;
  return `${name.slice(0, cut)} (conflict ${label} ${date.toISOString().slice(0, 10)})${name.slice(cut)}`;
}
