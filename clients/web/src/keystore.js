// keystore.js -- IndexedDB on this browser: the web member's keys as non-extractable
// CryptoKeys (structured clone keeps them unexportable), the roster head last verified per
// account (the pin that makes the roster grow only), and the keys of share links made here.

const DB = 'pouch';
const VERSION = 1;

function open() {
  return new Promise((resolve, reject) => {
    const req = indexedDB.open(DB, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      db.createObjectStore('members', { keyPath: 'member_id' });
      db.createObjectStore('pins', { keyPath: 'account_id' });
      db.createObjectStore('share_keys', { keyPath: 'share_id' });
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
export const savePin = (accountId, pin) => tx('pins', 'readwrite', (s) => s.put({ account_id: accountId, ...pin }));
export const loadPin = (accountId) => tx('pins', 'readonly', (s) => s.get(accountId));
export const saveShareKey = (shareId, key) => tx('share_keys', 'readwrite', (s) => s.put({ share_id: shareId, key }));
export const loadShareKey = (shareId) => tx('share_keys', 'readonly', (s) => s.get(shareId));
