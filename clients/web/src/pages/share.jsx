// share.jsx -- the public page of a share link, /s/{id}#{key}: no account needed. The key is
// read from the fragment (never sent anywhere); the bundle is fetched only when the visitor
// asks, because fetching a one-time link uses it up.
import { useState } from 'preact/hooks';

import { ApiError, api } from '../api.js';
import { unb64url } from '../crypto/bytes.js';
import { openShare } from '../crypto/format.js';
import { formatBytes, formatTime } from '../errors.js';
import { plainText } from '../text.js';
import { ErrorBox, Notice, Page, Progress, Untrusted, downloadBytes, useAction } from '../ui.jsx';

const STATE_WORDS = {
  expired: 'This link has expired.',
  consumed: 'This was a one-time link and it has already been used.',
  revoked: 'The owner has revoked this link.',
};

class ShareUnreadable extends Error {}

// The key in the link's fragment (32 bytes of b64url), or null.
function keyFromFragment(hash) {
  try {
    const key = unb64url(hash.slice(1));
    return key.length === 32 ? key : null;
  } catch {
    return null;
  }
}

// Fetches and opens the share (this uses up a one-time link). → {opened} (meta, data, share) or
// {gone} (why the link no longer works, in words); a bundle the key does not open throws the
// words to show.
async function fetchShare(shareId, key) {
  let r;
  try {
    r = await api('GET', `/v1/shares/${shareId}`, { auth: false });
  } catch (e) {
    if (e instanceof ApiError && e.code === 'share_unavailable') {
      return { gone: STATE_WORDS[e.details?.state] || 'This link no longer works: it has expired, it was a one-time link that has already been used, or its owner revoked it.' };
    }
    if (e instanceof ApiError && e.code === 'not_found') return { gone: 'There is no such share. Check that the link was copied completely.' };
    throw e;
  }
  try {
    return { opened: { ...(await openShare({ shareId, key, bundle: r.data.bundle, labelEnc: r.data.label_enc })), share: r.data } };
  } catch {
    throw new ShareUnreadable('The file could not be decrypted with the key in this link. The link may be incomplete or altered.');
  }
}

// The text of a small text file, for a preview; else null.
function previewText(opened) {
  const isText = opened.meta.type.startsWith('text/') || /\.(txt|md)$/i.test(opened.meta.name);
  return isText && opened.data.length <= 100000 ? new TextDecoder().decode(opened.data) : null;
}

export function SharePublicPage({ shareId }) {
  const [opened, setOpened] = useState(null);
  const [gone, setGone] = useState(null);
  const { busy, error, setError, run } = useAction();
  const key = keyFromFragment(location.hash);
  const open = () => run(async () => {
    let r;
    try {
      r = await fetchShare(shareId, key);
    } catch (e) {
      if (!(e instanceof ShareUnreadable)) throw e;
      setError(e.message);
      return;
    }
    if (r.gone) setGone(r.gone);
    else setOpened(r.opened);
  });

  return (
    <Page title="Shared file">
      <div class="card">
        {!key && <Notice kind="warn">This link is missing its key (the part after #). Ask the sender for the complete link.</Notice>}
        {key && !opened && !gone && (
          <>
            <p>Someone shared an encrypted file with you. It is decrypted in this browser; the service cannot read it.</p>
            <p class="muted">If this is a one-time link, opening it uses it up.</p>
            <ErrorBox error={error} />
            {busy && <Progress label="Fetching and decrypting" />}
            <button class="primary" onClick={open} disabled={busy}>Open the file</button>
          </>
        )}
        {gone && <Notice kind="warn"><span data-testid="share-gone">{gone}</span></Notice>}
        {opened && <OpenedShare opened={opened} />}
      </div>
    </Page>
  );
}

// The opened file: what it is, a preview of small text, and its download.
function OpenedShare({ opened }) {
  const text = previewText(opened);
  return (
    <>
      <dl class="facts">
        <dt>File</dt><dd><Untrusted data-testid="share-name" text={opened.meta.name} /></dd>
        <dt>Size</dt><dd>{formatBytes(opened.meta.size)}</dd>
        <dt>Modified</dt><dd>{formatTime(new Date(opened.meta.mtime).toISOString())}</dd>
        <dt>Link expires</dt><dd>{opened.share.expires_at ? formatTime(opened.share.expires_at) : 'never'}{opened.share.one_time ? ' (one-time link, now used)' : ''}</dd>
      </dl>
      {text !== null && <pre class="preview" aria-label="File contents" data-testid="share-text">{text}</pre>}
      <button class="primary" onClick={() => downloadBytes(opened.data, plainText(opened.meta.name), opened.meta.type || 'application/octet-stream')}>Download <Untrusted text={opened.meta.name} /></button>
    </>
  );
}
