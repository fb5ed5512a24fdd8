// devices.jsx -- CLI devices (list, rename, revoke with a key rotation), the approval page of a
// CLI login (/cli/approve?request=ID), and connect tokens for the CLI.
import { useEffect, useState } from 'preact/hooks';

import { ApiError, api, get, getAll, post } from '../api.js';
import { formatAge, formatTime } from '../errors.js';
import { cliConfirmCode, parseKeysFragment } from '../vault.js';
import { ErrorBox, Field, Link, Notice, Page, Progress, copyText, useAction, useApp, useLocation } from '../ui.jsx';

export function DevicesPage() {
  const { vault } = useApp();
  const [devices, setDevices] = useState(null);
  const [editing, setEditing] = useState(null);
  const [name, setName] = useState('');
  const [status, setStatus] = useState(null);
  const [pending, setPending] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setDevices(await getAll('/v1/devices')));
  useEffect(() => { load(); }, []);

  const rename = (e) => {
    e.preventDefault();
    run(async () => {
      await api('PATCH', `/v1/devices/${editing.id}`, { body: { name } });
      setEditing(null);
      await load();
    });
  };
  const owed = (devices || []).filter((d) => d.revoked_at && d.rotation_pending);
  const rotate = () => {
    run(async () => {
      const excluded = (devices || []).filter((d) => d.revoked_at).map((d) => d.member_id);
      await vault.rotateKeys(excluded, setStatus);
      setStatus(null);
      setPending(null);
      await load();
    }).finally(() => setStatus(null));
  };
  const revoke = (d) => {
    if (!confirm(`Revoke ${d.name}? It loses access at once, and every pouch gets new keys.`)) return;
    run(async () => {
      const r = await vault.revokeDevice(d, setStatus);
      setStatus(null);
      setPending(r.rotation_pending ? null : false);
      await load();
    }).finally(() => setStatus(null));
  };

  return (
    <Page title="Devices" wide>
      <p class="muted">Command-line devices that can open your pouches. <Link href="/cli/connect">Connect a new CLI</Link>.</p>
      <ErrorBox error={error} />
      {status && <Progress label={status} />}
      {owed.length > 0 && (
        <Notice kind="warn">
          <span data-testid="rotation-pending">Key rotation pending: {owed.map((d) => d.name).join(', ')} {owed.length === 1 ? 'was' : 'were'} revoked, but your pouches still use keys {owed.length === 1 ? 'it' : 'they'} had. </span>
          <button type="button" disabled={busy} onClick={rotate}>Rotate keys now</button>
        </Notice>
      )}
      {pending === false && <Notice kind="ok">Revoked. Every pouch now has new keys (key rotation done).</Notice>}
      {!devices && !error && <Progress label="Loading devices" />}
      {devices && (
        <table class="files">
          <caption class="visually-hidden">Devices</caption>
          <thead><tr><th scope="col">Name</th><th scope="col">System</th><th scope="col">Last seen</th><th scope="col">State</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {devices.length === 0 && <tr><td colSpan={5} class="muted">No devices yet. Connect a CLI to add one.</td></tr>}
            {devices.map((d) => (
              <tr key={d.id}>
                <td data-label="Name">
                  {editing?.id === d.id ? (
                    <form onSubmit={rename} class="inline">
                      <label for="rename" class="visually-hidden">New name for {d.name}</label>
                      <input id="rename" value={name} maxLength={64} required onInput={(e) => setName(e.currentTarget.value)} />
                      <button type="submit" disabled={busy}>Save</button>
                      <button type="button" onClick={() => setEditing(null)}>Cancel</button>
                    </form>
                  ) : d.name}
                </td>
                <td data-label="System">{d.os} {d.arch} · CLI {d.cli_version} · keys in {d.key_storage}</td>
                <td data-label="Last seen">{d.last_seen_at ? formatAge(d.last_seen_at) : 'never'}</td>
                <td data-label="State">{d.revoked_at ? <span class="state revoked">revoked {formatTime(d.revoked_at)}{d.rotation_pending ? ' · key rotation pending' : ''}</span> : <span class="state active">active</span>}</td>
                <td class="actions">
                  {!d.revoked_at && <button onClick={() => { setEditing(d); setName(d.name); }} aria-label={`Rename ${d.name}`}>Rename</button>}
                  {!d.revoked_at && <button class="danger" disabled={busy} onClick={() => revoke(d)} aria-label={`Revoke ${d.name}`}>Revoke</button>}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </Page>
  );
}

const STATUS_WORDS = {
  approved: 'This login has already been approved. The terminal should be signed in.',
  redeemed: 'This login was approved and the terminal is signed in.',
  denied: 'This login was denied. Start a new login in the terminal if that was a mistake.',
  expired: 'This login request has expired (they last 10 minutes). Start the login again in the terminal.',
};

export function ApprovePage() {
  const { vault } = useApp();
  const { query, hash } = useLocation();
  const requestId = query.get('request');
  const [details, setDetails] = useState(null);
  const [keys, setKeys] = useState(undefined);
  const [expected, setExpected] = useState(null);   // the confirm code of these keys, 8 digits
  const [code, setCode] = useState('');
  const [done, setDone] = useState(null);
  const [loadError, setLoadError] = useState(null);
  const { busy, error, setError, run } = useAction();

  useEffect(() => {
    (async () => {
      if (!requestId || !/^[0-9a-fA-F-]{36}$/.test(requestId)) {
        setLoadError('This address has no valid login request in it. Open the link your terminal shows.');
        return;
      }
      try {
        const d = await get(`/v1/cli-auth/requests/${requestId}`);
        setDetails(d);
        try {
          const k = await vault.cliKeys(d, parseKeysFragment(hash));
          if (k) setExpected((await cliConfirmCode(d.id, k)).replace(/\D/g, ''));
          setKeys(k);
        } catch (e) {
          setKeys(null);
          setError(e);
        }
      } catch (e) {
        if (e instanceof ApiError && e.code === 'not_found') {
          setLoadError('There is no such login request for your account. Check that you opened the link your terminal shows, and that you are logged in to the right account.');
        } else {
          setLoadError(e);
        }
      }
    })();
  }, [requestId]);

  const normalized = code.replace(/\D/g, '');
  const approve = (e) => {
    e.preventDefault();
    if (!expected || normalized !== expected) {
      setError('The code does not match the one shown for this request. Compare it with your terminal; if they differ, deny this request.');
      return;
    }
    run(async () => {
      const r = await vault.approveLogin(details, keys, `${normalized.slice(0, 4)}-${normalized.slice(4)}`);
      setDone({ approved: true, device_id: r.device_id });
    });
  };
  const deny = () => run(async () => {
    await post(`/v1/cli-auth/requests/${requestId}/deny`);
    setDone({ approved: false });
  });

  const expired = details && Date.parse(details.expires_at) <= Date.now();
  const decided = details && (details.status !== 'pending' || expired);
  return (
    <Page title="Approve a CLI login">
      {loadError && <ErrorBox error={loadError} />}
      {!details && !loadError && <Progress label="Loading the login request" />}
      {details && (
        <div class="card">
          <dl class="facts">
            <dt>Device</dt><dd data-testid="device-name">{details.device_name}</dd>
            <dt>System</dt><dd>{details.os} · {details.arch}</dd>
            <dt>CLI version</dt><dd>{details.cli_version}</dd>
            <dt>Keys kept in</dt><dd>{details.key_storage}</dd>
            <dt>Started</dt><dd>{formatAge(details.created_at)}</dd>
          </dl>
          {decided && !done && <Notice kind="warn">{STATUS_WORDS[expired && details.status === 'pending' ? 'expired' : details.status] || `This request is ${details.status}.`}</Notice>}
          {done?.approved && <Notice kind="ok">Approved. {details.device_name} is now a device of your account; the terminal signs in by itself.</Notice>}
          {done && !done.approved && <Notice kind="ok">Denied. The terminal is told the login was refused.</Notice>}
          {!decided && !done && keys === null && !error && (
            <Notice kind="warn">This page was opened without the CLI's keys (the part after # in the link). Open the full link your terminal shows.</Notice>
          )}
          {!decided && !done && (
            <form onSubmit={approve}>
              <Field id="confirm-code" label="Code shown in your terminal" required inputMode="numeric" autocomplete="off"
                placeholder="1234-5678" hint="Type the 8 digits your terminal shows. Approve only if they match."
                value={code} onInput={(e) => { setCode(e.currentTarget.value); setError(null); }} />
              <ErrorBox error={error} />
              {busy && <Progress label="Adding the device, sealing the pouch keys to it" />}
              <button type="submit" class="primary" disabled={busy || !keys || normalized.length !== 8}>Approve</button>
              {' '}<button type="button" class="danger" disabled={busy} onClick={deny}>Deny</button>
            </form>
          )}
        </div>
      )}
    </Page>
  );
}

export function ConnectPage() {
  const [token, setToken] = useState(null);
  const [copied, setCopied] = useState(false);
  const { busy, error, run } = useAction();
  const make = () => run(async () => setToken(await post('/v1/cli-auth/connect-tokens')));
  const command = token ? `pouch login --connect-token ${token.connect_token}` : '';
  return (
    <Page title="Connect a CLI">
      <div class="card">
        <p>Run <code>pouch login</code> on the computer you want to connect, open the link it prints, and compare the code.</p>
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
