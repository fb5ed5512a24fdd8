// pouches.jsx -- the pouch list, and one pouch: its files (names decrypted here), upload with
// progress, download, delete, history, share links, and live updates (its data: pouch_feed.js).
// Uploads and deletes are off, with a banner saying why, while the vault refuses to write (a
// rolled-back key generation, or a current key made by a removed member).
import { useEffect, useState } from 'preact/hooks';

import { api, getAll } from '../api.js';
import { formatBytes, formatTime } from '../errors.js';
import { isolated, plainText } from '../text.js';
import { ErrorBox, Link, Notice, Page, Progress, Untrusted, copyText, downloadBytes, navigate, useAction, useApp } from '../ui.jsx';
import { usePouchFiles } from './pouch_feed.js';
import { PouchSharing } from './sharing.jsx';

const shortId = (id) => id.slice(0, 8);

export function PouchesPage() {
  const { vault } = useApp();
  const [pouches, setPouches] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setPouches(await getAll('/v1/pouches')));
  useEffect(() => { load(); }, []);
  const create = () => run(async () => {
    const p = await vault.createPouch();
    navigate(`/pouches/${p.id}`);
  });
  return (
    <Page title="Pouches">
      <p class="muted">A pouch is an encrypted folder. Everything in it is encrypted in this browser or on your devices.</p>
      <ErrorBox error={error} />
      {pouches === null && !error && <Progress label="Loading pouches" />}
      {pouches && (
        <ul class="list" aria-label="Your pouches">
          {pouches.map((p, i) => (
            <li key={p.id}>
              <Link href={`/pouches/${p.id}`}>Pouch {i + 1}</Link>
              <span class="muted"> · id {shortId(p.id)} · key generation {p.key_gen} · {p.file_changes} file change{p.file_changes === 1 ? '' : 's'} · created {formatTime(p.created_at)}</span>
            </li>
          ))}
          {pouches.length === 0 && <li class="muted">No pouches yet.</li>}
        </ul>
      )}
      <button onClick={create} disabled={busy}>New pouch</button>
    </Page>
  );
}

// What the pouch page does with its files -- upload (with a conflict copy when a file changed
// elsewhere meanwhile), download, delete -- apart from how it is shown: `progress` and `notice`
// say how it goes; the page's own writes go into the list through feed.own, not a reload.
function useFileActions(pouchId, { pouch, items, feed }, run) {
  const { vault } = useApp();
  const [progress, setProgress] = useState(null);
  const [notice, setNotice] = useState(null);
  const upload = (files) => {
    setNotice(null);
    run(async () => {
      for (const f of files) {
        const existing = items?.find((i) => i.content?.name === f.name);
        setProgress({ label: `Encrypting ${f.name}`, done: 0, total: f.size });
        const r = await vault.upload(pouch, f, f.name, existing, (done, total, phase) => {
          const label = phase === 'uploading' ? `Uploading ${f.name}` : phase === 'saving' ? `Saving ${f.name}` : `Encrypting ${f.name}`;
          setProgress({ label, done, total });
        });
        if (r.conflictCopy) setNotice(`${f.name} was changed elsewhere meanwhile; your version was kept as “${r.conflictCopy}”.`);
        await feed.own(r);
      }
      setProgress(null);
    }).finally(() => setProgress(null));
  };
  const download = (item, content = item.content) => run(async () => {
    const label = `Downloading ${plainText(content.name)}`;
    setProgress({ label, done: 0, total: content.size });
    const file = await vault.fileBlob(pouchId, content, (done, total) => setProgress({ label, done, total }));
    downloadBytes(file, plainText(content.name.split('/').pop()));
  }).finally(() => setProgress(null));
  const remove = (item) => {
    if (!confirm(`Delete ${isolated(item.content.name)}? Its history stays.`)) return;
    run(async () => {
      await feed.own(await vault.remove(pouch, item));
    });
  };
  return { progress, notice, upload, download, remove };
}

export function PouchPage({ pouchId }) {
  const { busy, error, setError, run } = useAction();
  const data = usePouchFiles(pouchId, setError);
  const { pouch, items, live, writeBlock } = data;
  const { progress, notice, upload, download, remove } = useFileActions(pouchId, data, run);
  const [selected, setSelected] = useState(null);     // {mode: 'history'|'share', item}
  const uploadOff = busy || !pouch || !!writeBlock;
  const chosen = (e) => {
    const files = [...e.currentTarget.files];
    e.currentTarget.value = '';
    upload(files);
  };

  return (
    <Page title={pouch ? `Pouch ${shortId(pouch.id)}` : 'Pouch'} wide>
      <p class="muted">
        <Link href="/pouches">All pouches</Link>
        {pouch && <> · key generation {pouch.key_gen} · <span data-testid="live">{live === 'live' ? 'live updates on' : live === 'paused' ? 'live updates paused, retrying' : 'connecting'}</span></>}
      </p>
      <div class="toolbar">
        {/* The input sits inside its label, so the label shows the input's keyboard focus
            (:focus-within) and looks disabled exactly while the input is. */}
        <label class={`button primary${uploadOff ? ' disabled' : ''}`}>
          Upload files
          <input id="upload" type="file" multiple class="visually-hidden" onChange={chosen} disabled={uploadOff} />
        </label>
      </div>
      {writeBlock && <p class="error" role="alert" data-testid="write-blocked">{plainText(writeBlock)}</p>}
      {progress && <Progress {...progress} />}
      {notice && <Notice kind="warn">{plainText(notice)}</Notice>}
      <ErrorBox error={error} />
      {items === null && !error && <Progress label="Loading and decrypting file names" />}
      {items && (
        <FileTable items={items} busy={busy} writeBlock={writeBlock} onDownload={download}
          onSelect={(mode, item) => setSelected({ mode, item })} onDelete={remove} />
      )}
      {selected?.mode === 'history' && <History pouchId={pouchId} item={selected.item} onDownload={download} onClose={() => setSelected(null)} />}
      {selected?.mode === 'share' && <ShareDialog pouch={pouch} item={selected.item} onClose={() => setSelected(null)} />}
      <PouchSharing pouch={pouch} />
    </Page>
  );
}

function FileTable({ items, busy, writeBlock, onDownload, onSelect, onDelete }) {
  return (
    <table class="files">
      <caption class="visually-hidden">Files in this pouch</caption>
      <thead><tr><th scope="col">Name</th><th scope="col">Size</th><th scope="col">Changed</th><th scope="col">By</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
      <tbody>
        {items.length === 0 && <tr><td colSpan={5} class="muted">No files yet. Upload one.</td></tr>}
        {items.map((item) => (
          <FileRow key={item.id} item={item} busy={busy} writeBlock={writeBlock} onDownload={() => onDownload(item)}
            onSelect={(mode) => onSelect(mode, item)} onDelete={() => onDelete(item)} />
        ))}
      </tbody>
    </table>
  );
}

// One file. Its name and its writer's label are another member's text: shown through
// <Untrusted>, so a name cannot reorder the row (a right-to-left override in "x\u202Efdp.exe").
function FileRow({ item, busy, writeBlock, onDownload, onSelect, onDelete }) {
  const { vault } = useApp();
  if (!item.content) {
    return <tr><td colSpan={5} class="error">A file ({shortId(item.id)}) cannot be opened: <Untrusted text={item.error} />.</td></tr>;
  }
  const name = plainText(item.content.name);
  return (
    <tr>
      <td data-label="Name" class="name"><Untrusted text={item.content.name} /></td>
      <td data-label="Size">{formatBytes(item.content.size)}</td>
      <td data-label="Changed">{formatTime(item.head.created_at)}</td>
      <td data-label="By"><Untrusted text={vault.labelOf(item.head.signer_member_id)} /></td>
      <td class="actions">
        <button onClick={onDownload} aria-label={`Download ${name}`} disabled={busy}>Download</button>
        <button onClick={() => onSelect('share')} aria-label={`Share ${name}`}>Share</button>
        <button onClick={() => onSelect('history')} aria-label={`History of ${name}`}>History</button>
        <button class="danger" onClick={onDelete} aria-label={`Delete ${name}`} disabled={busy || !!writeBlock}>Delete</button>
      </td>
    </tr>
  );
}

function History({ pouchId, item, onDownload, onClose }) {
  const { vault } = useApp();
  const [revs, setRevs] = useState(null);
  const { error, run } = useAction();
  useEffect(() => { run(async () => setRevs(await vault.history(pouchId, item.id))); }, [item.id]);
  return (
    <section class="card panel" aria-labelledby="history-title">
      <h2 id="history-title">History of <Untrusted text={item.content.name} /></h2>
      <ErrorBox error={error} />
      {!revs && !error && <Progress label="Loading history" />}
      {revs && (
        <ol class="list">
          {revs.map(({ rev, content, error: e }) => (
            <li key={rev.id}>
              {formatTime(rev.created_at)} · {content?.deleted ? 'deleted' : content ? <><Untrusted text={content.name} />, {formatBytes(content.size)}</> : <>cannot be opened: <Untrusted text={e} /></>}
              {' '}· by <Untrusted text={vault.labelOf(rev.signer_member_id)} /> (<Untrusted text={rev.origin} />)
              {content && rev.kind !== 'delete' && <> <button onClick={() => onDownload(item, content)} aria-label={`Download the version of ${formatTime(rev.created_at)}`}>Download this version</button></>}
            </li>
          ))}
        </ol>
      )}
      <button onClick={onClose}>Close history</button>
    </section>
  );
}

function ShareDialog({ pouch, item, onClose }) {
  const { vault } = useApp();
  const [expires, setExpires] = useState('7d');
  const [oneTime, setOneTime] = useState(false);
  const [made, setMade] = useState(null);
  const [copied, setCopied] = useState(false);
  const { busy, error, run } = useAction();
  const tooBig = item.content.size > 8 * 1024 * 1024 - 1024;
  const create = (e) => {
    e.preventDefault();
    run(async () => setMade(await vault.createShare(pouch, item, { expires, oneTime })));
  };
  return (
    <section class="card panel" aria-labelledby="share-title">
      <h2 id="share-title">Share <Untrusted text={item.content.name} /></h2>
      {!made && (
        <form onSubmit={create}>
          <p class="muted">The file is encrypted again with a new key that only the link holds. The service stores it but cannot read it.</p>
          <div class="field">
            <label for="expires">Link expires</label>
            <select id="expires" value={expires} onChange={(e) => setExpires(e.currentTarget.value)}>
              <option value="1d">after 1 day</option>
              <option value="7d">after 7 days</option>
              <option value="30d">after 30 days</option>
              <option value="never">never</option>
            </select>
          </div>
          <div class="check">
            <input type="checkbox" id="one-time" checked={oneTime} onChange={(e) => setOneTime(e.currentTarget.checked)} />
            <label for="one-time">One-time link (works for a single download)</label>
          </div>
          {tooBig && <Notice kind="warn">This file is larger than a share link can carry (about 8 MB).</Notice>}
          <ErrorBox error={error} />
          {busy && <Progress label="Encrypting the file for the link" />}
          <button type="submit" class="primary" disabled={busy || tooBig}>Create link</button> <button type="button" onClick={onClose}>Cancel</button>
        </form>
      )}
      {made && (
        <div>
          <div class="field">
            <label for="share-link">Share link (anyone with it can open the file)</label>
            <input id="share-link" readOnly value={made.link} onFocus={(e) => e.currentTarget.select()} />
          </div>
          <button onClick={async () => setCopied(await copyText(made.link))}>Copy link</button>
          {copied && <span class="ok" role="status"> Copied.</span>}
          {' '}<Link href="/shares">All shares</Link> <button onClick={onClose}>Done</button>
        </div>
      )}
    </section>
  );
}

export function SharesPage() {
  const { vault } = useApp();
  const [rows, setRows] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => {
    const out = [];
    // Pouches are numbered as the pouch list numbers them ("Pouch 1" is the oldest).
    for (const [i, p] of (await getAll('/v1/pouches')).entries()) {
      for (const s of await getAll(`/v1/pouches/${p.id}/shares`)) out.push({ s, pouchNo: i + 1, ...(await vault.shareInfo(s)) });
    }
    setRows(out);
  });
  useEffect(() => { load(); }, []);
  const revoke = (s) => run(async () => {
    await api('POST', `/v1/shares/${s.id}/revoke`);
    await load();
  });
  const [copied, setCopied] = useState(null);
  return (
    <Page title="Share links" wide>
      <p class="muted">Links you made. Names and links show only on the browser that made them (the key is in the link, not on the server).</p>
      {rows?.some((r) => r.label === null) && (
        <Notice kind="info">
          Some links were made on another browser or device. Their file names are sealed with the
          link's own key, which only the browser that made the link keeps, so here they show the
          pouch, the size and when they were made. You can still revoke them.
        </Notice>
      )}
      <ErrorBox error={error} />
      {!rows && !error && <Progress label="Loading share links" />}
      {rows && (
        <table class="files">
          <caption class="visually-hidden">Share links</caption>
          <thead><tr><th scope="col">File</th><th scope="col">Made</th><th scope="col">State</th><th scope="col">Expires</th><th scope="col">Views</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {rows.length === 0 && <tr><td colSpan={6} class="muted">No share links yet. Use “Share” next to a file.</td></tr>}
            {rows.map(({ s, label, link, pouchNo }) => (
              <tr key={s.id} data-testid={`share-${s.id}`}>
                <td data-label="File">
                  {label !== null ? <Untrusted text={label} /> : <span data-testid="share-unnamed">A file ({formatBytes(s.size)} sealed) from <Link href={`/pouches/${s.pouch_id}`}>Pouch {pouchNo}</Link> <span class="muted">· name known only to the browser that made the link</span></span>}
                  {s.one_time ? ' · one-time' : ''}
                </td>
                <td data-label="Made">{formatTime(s.created_at)}</td>
                <td data-label="State"><span class={`state ${plainText(s.state)}`}><Untrusted text={s.state} /></span></td>
                <td data-label="Expires">{s.expires_at ? formatTime(s.expires_at) : 'never'}</td>
                <td data-label="Views">{s.views}</td>
                <td class="actions">
                  {/* Only a link that still opens is worth copying or revoking; a used, expired or
                      revoked one shows its state and nothing to do. */}
                  {s.state === 'active' && link && <button onClick={async () => { if (await copyText(link)) setCopied(s.id); }} aria-label={`Copy the link of ${plainText(label)}`}>{copied === s.id ? 'Copied' : 'Copy link'}</button>}
                  {s.state === 'active' && <button class="danger" disabled={busy} onClick={() => revoke(s)} aria-label={`Revoke the link of ${label !== null ? plainText(label) : `a file from Pouch ${pouchNo} made ${formatTime(s.created_at)}`}`}>Revoke</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}
