// keystore.js -- IndexedDB on this browser: the web member's keys as non-extractable
// CryptoKeys (structured clone keeps them unexportable), the roster head last verified per
// account (the pin that makes the roster grow only), the keys of share links made here, and
// per (account, pouch) the highest key generation held (the high-water mark no write goes
// below: CLIENT-FORMAT "Rollback"). Pins and marks are filed under the ids' canonical
// lower-case text, so a server cannot reach a fresh, empty record by spelling an id another way.
// Version 3 (docs/SHARING.md §1, §3): the account identity's key pairs (non-extractable, like
// the member's) and, per signed-in account, the identities of other accounts it has pinned.
import { uuidText } from './crypto/bytes.js';

const DB = 'pouch';
const VERSION = 3;

const STORES = {
  members: { keyPath: 'member_id' },
  pins: { keyPath: 'account_id' },
  share_keys: { keyPath: 'share_id' },
  high_water: { keyPath: ['account_id', 'pouch_id'] },  // version 2
  identities: { keyPath: 'account_id' },                 // version 3: this account's identity keys
  identity_pins: { keyPath: ['owner', 'account_id'] },   // version 3: other accounts' identities
  access_heads: { keyPath: ['account_id', 'pouch_id'] }, // version 3: a shared pouch's access list head
};

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      for (const [name, opts] of Object.entries(STORES)) {
        if (!db.objectStoreNames.contains(name)) db.createObjectStore(name, opts);
      }
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error);
  });
}

async function tx(store, mode, fn) {
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction(store, mode);
      const r = fn(t.objectStore(store));
      t.oncomplete = () => resolve(r?.result);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}

export const saveMember = (record) => tx('members', 'readwrite', (s) => s.put(record));
export const loadMember = (memberId) => tx('members', 'readonly', (s) => s.get(memberId));
export const savePin = (accountId, pin) => tx('pins', 'readwrite', (s) => s.put({ ...pin, account_id: uuidText(accountId) }));
export const loadPin = (accountId) => tx('pins', 'readonly', (s) => s.get(uuidText(accountId)));
export const saveIdentity = (record) => tx('identities', 'readwrite', (s) => s.put({ ...record, account_id: uuidText(record.account_id) }));
export const loadIdentity = (accountId) => tx('identities', 'readonly', (s) => s.get(uuidText(accountId)));
// The identity `owner` (the signed-in account) pinned for `accountId`, or undefined.
export const loadIdentityPin = (owner, accountId) => tx('identity_pins', 'readonly', (s) => s.get([uuidText(owner), uuidText(accountId)]));
export const saveIdentityPin = (owner, pin) => tx('identity_pins', 'readwrite', (s) => s.put({ ...pin, owner: uuidText(owner), account_id: uuidText(pin.account_id) }));
// Every pin of `owner`.
export const loadIdentityPins = (owner) => tx('identity_pins', 'readonly', (s) => s.getAll(IDBKeyRange.bound([uuidText(owner), ''], [uuidText(owner), '\uffff'])));
// The head {seq, hash} of a shared pouch's access list last verified here (it only grows).
export const loadAccessHead = (accountId, pouchId) => tx('access_heads', 'readonly', (s) => s.get([uuidText(accountId), uuidText(pouchId)])).then((r) => r && { seq: r.seq, hash: r.hash });
export const saveAccessHead = (accountId, pouchId, head) => tx('access_heads', 'readwrite', (s) => s.put({ account_id: uuidText(accountId), pouch_id: uuidText(pouchId), seq: head.seq, hash: head.hash }));
export const saveShareKey = (shareId, key) => tx('share_keys', 'readwrite', (s) => s.put({ share_id: shareId, key }));
export const loadShareKey = (shareId) => tx('share_keys', 'readonly', (s) => s.get(shareId));

// The highest key generation this browser has held for the pouch (0 when none).
export async function loadHighWater(accountId, pouchId) {
  const r = await tx('high_water', 'readonly', (s) => s.get([uuidText(accountId), uuidText(pouchId)]));
  return r?.high ?? 0;
}

// Raises the mark to `gen` if it is higher, in one transaction; the mark never goes down.
export async function raiseHighWater(accountId, pouchId, gen) {
  const key = [uuidText(accountId), uuidText(pouchId)];
  const db = await open();
  try {
    return await new Promise((resolve, reject) => {
      const t = db.transaction('high_water', 'readwrite');
      const s = t.objectStore('high_water');
      let high = gen;
      const get = s.get(key);
      get.onsuccess = () => {
        const cur = get.result?.high ?? 0;
        high = Math.max(cur, gen);
        if (high > cur) s.put({ account_id: key[0], pouch_id: key[1], high });
      };
      t.oncomplete = () => resolve(high);
      t.onerror = () => reject(t.error);
      t.onabort = () => reject(t.error);
    });
  } finally {
    db.close();
  }
}
