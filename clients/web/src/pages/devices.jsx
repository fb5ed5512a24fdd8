// devices.jsx -- CLI devices (list, rename, revoke with a key rotation), the approval page of a
// CLI login (/cli/approve?request=ID#keys=…&n=…: checks, fingerprint and typed code, from
// approval.js), and connect tokens for the CLI.
import { useEffect, useRef, useState } from 'preact/hooks';

import { ApiError, api, get, getAll, post } from '../api.js';
import { ApprovalRefused, approveLogin, checkApproval, parseApprovalFragment, typedDigits } from '../approval.js';
import { isUuid } from '../crypto/bytes.js';
import { formatAge, formatTime } from '../errors.js';
import { isolated, plainText } from '../text.js';
import { ErrorBox, Field, Link, Notice, Page, Progress, Untrusted, copyText, useAction, useApp, useLocation } from '../ui.jsx';

// The device list and what the page does to it (rename, revoke, rotate keys), apart from how it
// is shown: each action reloads the list; `status` is a revoke's or a rotation's progress,
// `done` what it did, `owed` the revoked devices whose keys the pouches still use.
function useDevices() {
  const { vault } = useApp();
  const [devices, setDevices] = useState(null);
  const [status, setStatus] = useState(null);
  const [done, setDone] = useState(null);
  const action = useAction();
  const { run } = action;
  const reads = useRef(0);          // a quiet read answered after a newer read is dropped
  const load = () => run(async () => {
    const n = ++reads.current;
    const list = await getAll('/v1/devices');
    if (n === reads.current) setDevices(list);
  });
  useEffect(() => { load(); }, []);
  // "Last seen" moves while the page is open: the list is read again quietly (no progress, an
  // error left for the next action to show) every half minute while the tab is visible, and
  // when the tab comes back into view.
  useEffect(() => {
    const quiet = () => {
      if (document.visibilityState !== 'visible') return;
      const n = ++reads.current;
      getAll('/v1/devices').then((list) => { if (n === reads.current) setDevices(list); }, () => {});
    };
    const timer = setInterval(quiet, 30000);
    document.addEventListener('visibilitychange', quiet);
    return () => { clearInterval(timer); document.removeEventListener('visibilitychange', quiet); };
  }, []);

  const rename = (d, name, renamed) => run(async () => {
    await api('PATCH', `/v1/devices/${d.id}`, { body: { name } });
    renamed();
    await load();
  });
  const rotate = () => run(async () => {
    const excluded = (devices || []).filter((d) => d.revoked_at).map((d) => d.member_id);
    await vault.rotateKeys(excluded, setStatus);
    setDone('Every pouch now has new keys (key rotation done).');
    await load();
  }).finally(() => setStatus(null));
  const revoke = (d) => run(async () => {
    const r = await vault.revokeDevice(d, setStatus);
    setDone(r.rotation_pending ? null : 'Revoked. Every pouch now has new keys (key rotation done).');
    await load();
  }).finally(() => setStatus(null));
  const owed = (devices || []).filter((d) => d.revoked_at && d.rotation_pending);
  return { ...action, devices, status, done, owed, rename, rotate, revoke };
}

export function DevicesPage() {
  const { busy, error, devices, status, done, owed, rename, rotate, revoke } = useDevices();
  const [editing, setEditing] = useState(null);     // the device being renamed
  const confirmRevoke = (d) => {
    if (confirm(`Revoke ${isolated(d.name)}? It loses access at once, and every pouch gets new keys.`)) revoke(d);
  };
  return (
    <Page title="Devices" wide>
      <p class="muted">Command-line devices that can open your pouches. <Link href="/cli/connect">Connect a new CLI</Link>.</p>
      <ErrorBox error={error} />
      {status && <Progress label={status} />}
      {owed.length > 0 && <RotationOwed owed={owed} busy={busy} onRotate={rotate} />}
      {done && <Notice kind="ok">{done}</Notice>}
      {!devices && !error && <Progress label="Loading devices" />}
      {devices && (
        <table class="files">
          <caption class="visually-hidden">Devices</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">System</th><th scope="col">Last seen</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {devices.length === 0 && <tr><td colSpan={5} class="muted">No devices yet. Connect a CLI to add one.</td></tr>}
            {devices.map((d) => (
              <DeviceRow key={d.id} d={d} busy={busy} editing={editing?.id === d.id} onEdit={() => setEditing(d)}
                onCancel={() => setEditing(null)} onRename={(name) => rename(d, name, () => setEditing(null))}
                onRevoke={() => confirmRevoke(d)} />
            ))}
          </tbody>
        </table>
      )}
      {owed.length === 0 && devices && (
        <p class="muted">
          Revoking a device gives every pouch new keys. A pouch whose current key was made by a
          device removed since waits for new keys too; give them now:{' '}
          <button type="button" disabled={busy} onClick={rotate}>Rotate keys now</button>
        </p>
      )}
    </Page>
  );
}

// Revoked devices whose keys the pouches still use, and the button that rotates them away.
function RotationOwed({ owed, busy, onRotate }) {
  return (
    <Notice kind="warn">
      <span data-testid="rotation-pending">Key rotation pending: {owed.map((d, i) => <span key={d.id}>{i ? ', ' : ''}<Untrusted text={d.name} /></span>)} {owed.length === 1 ? 'was' : 'were'} revoked, but your pouches still use keys {owed.length === 1 ? 'it' : 'they'} had. </span>
      <button type="button" disabled={busy} onClick={onRotate}>Rotate keys now</button>
    </Notice>
  );
}

// The service records a device's last request at most once a minute (in the authentication
// path): a time under a minute old means "some request within the last minute", not "exactly
// then", so it reads so; older times are at most a minute early, which the words round away.
function lastSeenWords(iso) {
  if (!iso) return 'never';
  return Date.now() - Date.parse(iso) < 60000 ? 'within the last minute' : formatAge(iso);
}

// One device. Everything in it but the dates is the service's text (the names a device chose):
// shown through <Untrusted>, so it cannot reorder the row.
function DeviceRow({ d, busy, editing, onEdit, onCancel, onRename, onRevoke }) {
  const name = plainText(d.name);  // (an aria-label is read out, not laid out: no isolate needed)
  return (
    <tr>
      <td data-label="Name" data-testid="device-row-name">
        {editing ? <RenameForm d={d} busy={busy} onRename={onRename} onCancel={onCancel} /> : <Untrusted text={d.name} />}
      </td>
      <td data-label="System" data-testid="device-row-system">
        <Untrusted text={d.os} /> <Untrusted text={d.arch} /> · CLI <Untrusted text={d.cli_version} /> · keys in <Untrusted text={d.key_storage} />
      </td>
      <td data-label="Last seen" title={d.last_seen_at ? formatTime(d.last_seen_at) : undefined}>{lastSeenWords(d.last_seen_at)}</td>
      <td data-label="State">{d.revoked_at ? <span class="state revoked">revoked {formatTime(d.revoked_at)}{d.rotation_pending ? ' · key rotation pending' : ''}</span> : <span class="state active">active</span>}</td>
      <td class="actions">
        {!d.revoked_at && <button onClick={onEdit} aria-label={`Rename ${name}`}>Rename</button>}
        {!d.revoked_at && <button class="danger" disabled={busy} onClick={onRevoke} aria-label={`Revoke ${name}`}>Revoke</button>}
      </td>
    </tr>
  );
}

function RenameForm({ d, busy, onRename, onCancel }) {
  const [name, setName] = useState(d.name);
  const submit = (e) => {
    e.preventDefault();
    onRename(name);
  };
  return (
    <form onSubmit={submit} class="inline">
      <label for="rename" class="visually-hidden">New name for {plainText(d.name)}</label>
      <input id="rename" value={name} maxLength={64} required onInput={(e) => setName(e.currentTarget.value)} />
      <button type="submit" disabled={busy}>Save</button>
      <button type="button" onClick={onCancel}>Cancel</button>
    </form>
  );
}

// ---- the approval page ---------------------------------------------------------------------

const STATUS_WORDS = {
  approved: 'This login has already been approved. The terminal should be signed in.',
  redeemed: 'This login was approved and the terminal is signed in.',
  denied: 'This login was denied. Start a new login in the terminal if that was a mistake.',
  expired: 'This login request has expired (they last 10 minutes). Start the login again in the terminal.',
};

const NO_CONNECT_TOKEN = 'This login was not started with a connect token from your account. Approve it only if you started it yourself, just now, in your own terminal.';

// The login request of the page's address, checked against the link's fragment:
// {details, checked: {keys, code, fingerprint} once every check passed, refusal: why this page
// will not approve, loadError}. The router remounts the page when the address changes, so
// nothing checked for one address is used for another.
function useApprovalRequest(requestId, hash) {
  const [state, setState] = useState({ details: null, checked: null, refusal: null, loadError: null });
  useEffect(() => {
    (async () => {
      if (!isUuid(requestId)) {
        setState((s) => ({ ...s, loadError: 'This address has no valid login request in it. Open the link your terminal shows.' }));
        return;
      }
      let details;
      try {
        details = await get(`/v1/cli-auth/requests/${requestId}`);
      } catch (e) {
        const unknown = e instanceof ApiError && e.code === 'not_found';
        setState((s) => ({ ...s, loadError: unknown ? 'There is no such login request for your account. Check that you opened the link your terminal shows, and that you are logged in to the right account.' : e }));
        return;
      }
      // The keys come from the link's fragment only; the details must agree with it.
      try {
        setState((s) => ({ ...s, details }));
        const checked = await checkApproval(details, requestId, await parseApprovalFragment(hash));
        setState((s) => ({ ...s, checked }));
      } catch (e) {
        const refusal = e instanceof ApprovalRefused ? e.message : `the link or the request could not be checked: ${e.message}`;
        setState((s) => ({ ...s, refusal }));
      }
    })();
  }, []);
  return state;
}

export function ApprovePage() {
  const { query, hash } = useLocation();
  const requestId = query.get('request');
  const { details, checked, refusal, loadError } = useApprovalRequest(requestId, hash);
  const [done, setDone] = useState(null);            // {approved} once decided here

  const expired = details && Date.parse(details.expires_at) <= Date.now();
  const decided = details && (details.status !== 'pending' || expired);
  const open = details && !decided && !done;
  return (
    <Page title="Approve a CLI login">
      {loadError && <ErrorBox error={loadError} />}
      {!details && !loadError && <Progress label="Loading the login request" />}
      {details && (
        <div class="card">
          <RequestFacts details={details} fingerprint={checked?.fingerprint} />
          {decided && !done && <Notice kind="warn">{STATUS_WORDS[expired && details.status === 'pending' ? 'expired' : details.status] || `This request is ${plainText(details.status)}.`}</Notice>}
          {done?.approved && <Notice kind="ok">Approved. <Untrusted text={details.device_name} /> is now a device of your account; the terminal signs in by itself.</Notice>}
          {done && !done.approved && <Notice kind="refused">Denied. The terminal is told the login was refused.</Notice>}
          {open && refusal && (
            <Notice kind="warn"><span data-testid="refusal">This login cannot be approved here: {refusal}</span></Notice>
          )}
          {open && checked && details.connect_token_used === false && (
            <Notice kind="warn"><span data-testid="no-connect-token">{NO_CONNECT_TOKEN}</span></Notice>
          )}
          {open && <ApproveForm details={details} checked={checked} requestId={requestId} onDone={setDone} />}
        </div>
      )}
    </Page>
  );
}

// What the service says about the request, and the fingerprint the page made from the link.
function RequestFacts({ details, fingerprint }) {
  return (
    <dl class="facts">
      <dt>Device</dt><dd><Untrusted data-testid="device-name" text={details.device_name} /></dd>
      <dt>System</dt><dd><Untrusted text={details.os} /> · <Untrusted text={details.arch} /></dd>
      <dt>CLI version</dt><dd><Untrusted text={details.cli_version} /></dd>
      <dt>Keys kept in</dt><dd><Untrusted text={details.key_storage} /></dd>
      <dt>Started</dt><dd data-testid="started">{formatAge(details.created_at)}{details.started_ip ? <> from <Untrusted text={details.started_ip} /></> : ''}</dd>
      {fingerprint && <><dt>Device key fingerprint</dt><dd><code data-testid="fingerprint">{fingerprint}</code></dd></>}
    </dl>
  );
}

// The typed code (only once every check passed), Approve and Deny. Approve approves the keys of
// the link's fragment, and only when the typed code is the one the page made from it.
function ApproveForm({ details, checked, requestId, onDone }) {
  const { vault } = useApp();
  const [code, setCode] = useState('');
  const { busy, error, setError, run } = useAction();
  const digits = typedDigits(code);
  const approve = (e) => {
    e.preventDefault();
    if (!checked) return;
    if (digits !== checked.code.replace(/-/g, '')) {
      setError('The code does not match the one this link makes. Check that you opened the link your terminal shows and typed the code it shows; if they differ, deny this request.');
      return;
    }
    run(async () => {
      await approveLogin(vault, details, checked.keys);
      onDone({ approved: true });
    });
  };
  const deny = () => run(async () => {
    await post(`/v1/cli-auth/requests/${requestId}/deny`);
    onDone({ approved: false });
  });
  return (
    <form onSubmit={approve}>
      {checked && <p>Check that your terminal shows the same device key fingerprint as this page.</p>}
      {checked && (
        <Field id="confirm-code" label="Type the code your terminal shows" required inputMode="numeric" autocomplete="off"
          placeholder="1234-5678-9012" hint="12 digits. The code comes from your terminal; this page never shows it."
          value={code} onInput={(e) => { setCode(e.currentTarget.value); setError(null); }} />
      )}
      <ErrorBox error={error} />
      {busy && <Progress label="Adding the device, sealing the pouch keys to it" />}
      <button type="submit" class="primary" disabled={busy || !checked || !digits}>Approve</button>
      {' '}<button type="button" class="danger" disabled={busy} onClick={deny}>Deny</button>
    </form>
  );
}

// A connect token as the service makes it ("svc_lt_" and 32 b64url characters). The page puts
// it into a command the person pastes into a shell, so nothing else is ever shown there.
const CONNECT_TOKEN = /^svc_lt_[A-Za-z0-9_-]{32}$/;

export function ConnectPage() {
  const [token, setToken] = useState(null);
  const [copied, setCopied] = useState(false);
  const { busy, error, run } = useAction();
  const make = () => run(async () => {
    const t = await post('/v1/cli-auth/connect-tokens');
    if (!CONNECT_TOKEN.test(t?.connect_token) || !Number.isSafeInteger(t.expires_in)) {
      throw new Error('The service answered with a connect token of another form, which this page does not put into a command for your terminal. Try again; if it persists, use pouch login without a connect token.');
    }
    setToken(t);
  });
  const command = token ? `pouch login --connect-token ${token.connect_token}` : '';
  return (
    <Page title="Connect a CLI">
      <div class="card">
        <p>Run <code>pouch login</code> on the computer you want to connect, open the link it prints, check that the page shows the device key fingerprint the terminal shows, and type the code the terminal shows.</p>
        <p>Or bind the login to this account first: make a connect token and pass it to the CLI. Only you can then approve that login.</p>
        <ErrorBox error={error} />
        {!token && <button class="primary" onClick={make} disabled={busy}>Make a connect token</button>}
        {token && (
          <div>
            <div class="field">
              <label for="connect-command">Run this in the terminal (valid for {Math.round(token.expires_in / 60)} minutes, once)</label>
              <input id="connect-command" readOnly value={command} onFocus={(e) => e.currentTarget.select()} />
            </div>
            <button onClick={async () => setCopied(await copyText(command))}>Copy command</button>
            {copied && <span class="ok" role="status"> Copied.</span>}
          </div>
        )}
      </div>
    </Page>
  );
}
