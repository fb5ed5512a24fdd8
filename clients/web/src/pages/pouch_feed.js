// pouch_feed.js -- the data of one pouch's page, apart from its rendering: the pouch, its
// decrypted file list and why nothing may be written to it, loaded once and then kept current
// by the event log item by item (docs/SYNC.md, the events extension), and by the page's own writes.
// Only what an event does not bring is read: a revision past the events' inline budget (its
// head), the pouch's keys after a rotation, everything again after a roster change or a reset log.
import { useEffect, useRef, useState } from 'preact/hooks';

import { ApiError, api, get } from '../api.js';
import { useApp } from '../ui.jsx';

// The state of one pouch's page and how it changes. `show({pouch, items, writeBlock})` is
// called after every change; `items` keeps the list's order (by the seq of each file's head).
export class PouchFeed {
  constructor(vault, pouchId, show) {
    this.vault = vault;
    this.pouchId = pouchId;
    this.show = show;
    this.pouch = null;
    this.items = null;
    this.writeBlock = null;
    this.after = 0;            // the last seq applied
    this.queue = Promise.resolve();  // changes apply one at a time, in order
  }

  // Runs fn after every change queued before it.
  serial(fn) {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => {});
    return run;
  }

  publish() {
    this.show({ pouch: this.pouch, items: this.items, writeBlock: this.writeBlock });
  }

  // Everything read again: the pouch, the whole list, the write check.
  async load(signal) {
    const p = await get(`/v1/pouches/${this.pouchId}`, { signal });
    const items = await this.vault.listArtifacts(this.pouchId, { signal });
    this.pouch = p;
    this.items = items;
    this.after = p.high_water;
    this.writeBlock = await this.vault.writeProblem(p);
    this.publish();
    return p;
  }

  // Applies a page of events (those after `after`). A roster change re-verifies everything (a
  // removal changes whose signatures count); a key rotation takes the new generation from the
  // event and checks it as a fetched pouch's (writeProblem: the high-water mark, the key's
  // creator); a revision replaces its file's item with the event's last revision of it.
  async apply(events, signal) {
    const fresh = events.filter((e) => Number.isSafeInteger(e?.seq) && e.seq > this.after);
    if (!fresh.length) return;
    // An access change (docs/SHARING.md) also changes whose signatures count and which keys.
    if (fresh.some((e) => e.kind === 'roster' || e.kind === 'access')) {
      this.vault.invalidate(this.pouchId);
      await this.load(signal);
      return;
    }
    const last = new Map();      // artifact id -> its last revision event of the page
    let rotated = false;
    for (const e of fresh) {
      if (e.kind === 'key_rotation') {
        rotated = true;
        if (Number.isSafeInteger(e.key_gen)) this.pouch = { ...this.pouch, key_gen: e.key_gen };
      } else if (e.kind === 'revision' && typeof e.artifact_id === 'string') {
        last.delete(e.artifact_id);
        last.set(e.artifact_id, e);
      }
    }
    if (rotated) {
      this.vault.invalidate(this.pouchId);
      // An event without the extension's key_gen: the pouch as the service names it now.
      if (fresh.some((e) => e.kind === 'key_rotation' && !Number.isSafeInteger(e.key_gen))) {
        this.pouch = await this.vault.freshPouch(this.pouch);
      }
    }
    const roster = await this.vault.verifiedRoster();
    const refreshed = new Set();
    for (const [id, e] of last) {
      const held = this.items.find((i) => i.id === id);
      if (held && held.head?.seq >= e.seq) continue;  // already newer here (the page's own write)
      const item = await this.vault.eventItem(this.pouchId, e, { roster, refreshed, signal });
      this.replace(id, item);
    }
    this.after = fresh[fresh.length - 1].seq;
    this.pouch = { ...this.pouch, high_water: Math.max(this.pouch.high_water, this.after) };
    if (rotated) this.writeBlock = await this.vault.writeProblem(this.pouch);
    this.publish();
  }

  // Puts `item` (null: none) in the place of artifact `id`'s, at the end: the newest head last.
  replace(id, item) {
    this.items = this.items.filter((i) => i.id !== id);
    if (item) this.items.push(item);
  }

  // The page's own write (vault.upload / vault.remove answers): its items as sealed here, and
  // the heads of the files it found changed elsewhere (a stale base) read from the service.
  own({ written = [], removed = [], stale = [] }) {
    return this.serial(async () => {
      for (const item of written) this.replace(item.id, item);
      for (const r of removed) this.replace(r.id, null);
      if (stale.length) {
        const roster = await this.vault.verifiedRoster();
        const refreshed = new Set();
        for (const id of stale) {
          const head = await this.vault.headOf(this.pouchId, id);
          this.replace(id, head && head.kind !== 'delete'
            ? await this.vault.itemOf(this.pouchId, id, head, head.created_at, { roster, refreshed }) : null);
        }
      }
      this.publish();
    });
  }

  // Live updates: long-polls the event log and applies each page. Runs until stopped() or the
  // signal aborts; `setLive` says how it goes ('live', 'paused').
  async follow({ signal, stopped, setLive }) {
    while (!stopped()) {
      try {
        setLive('live');
        const r = await api('GET', `/v1/pouches/${this.pouchId}/events`,
          { query: { epoch: this.pouch.epoch, after: this.after, wait: 25 }, signal });
        await this.serial(() => this.apply(r.data.items, signal));
      } catch (e) {
        if (stopped() || e.name === 'AbortError') return;
        let failure = e;
        if (e instanceof ApiError && e.code === 'epoch_mismatch') {
          const ok = await this.serial(() => this.load(signal)).then(() => true, (err) => { failure = err; return false; });
          if (ok) continue;
          if (stopped() || failure.name === 'AbortError') return;
        }
        setLive('paused');
        const wait = failure instanceof ApiError && failure.retryAfter ? Number(failure.retryAfter) * 1000 : 5000;
        await new Promise((res) => setTimeout(res, wait));
      }
    }
  }
}

// The pouch page's data as a hook: {pouch, items, live, writeBlock, feed}. A failure of the
// first load goes to setError.
export function usePouchFiles(pouchId, setError) {
  const { vault } = useApp();
  const [state, setState] = useState({ pouch: null, items: null, writeBlock: null });
  const [live, setLive] = useState('connecting');
  const feed = useRef(null);

  useEffect(() => {
    const ctl = new AbortController();
    let stopped = false;
    const f = new PouchFeed(vault, pouchId, (s) => { if (!stopped) setState(s); });
    feed.current = f;
    (async () => {
      try {
        await f.serial(() => f.load(ctl.signal));
      } catch (e) {
        if (!stopped) setError(e);
        return;
      }
      await f.follow({ signal: ctl.signal, stopped: () => stopped, setLive });
    })();
    return () => { stopped = true; ctl.abort(); };
  }, [pouchId]);
  return { ...state, live, feed: feed.current };
}
