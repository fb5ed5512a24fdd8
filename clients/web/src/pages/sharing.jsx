// sharing.jsx -- the pages of pouches shared between accounts (docs/SHARING.md §10): the safety
// number (60 digits and a QR code made here, nothing fetched), the red banner naming accounts
// whose identity changed, a pouch's "Share" dialog and "Members" section, and the
// "Invitations" page. What they do is sharing.js's; the QR code is @paulmillr/qr's.
import encodeQR from '@paulmillr/qr';
import { useEffect, useState } from 'preact/hooks';

import { formatTime } from '../errors.js';
import * as S from '../sharing.js';
import { ErrorBox, Field, Link, Notice, Page, Progress, Untrusted, useAction, useApp } from '../ui.jsx';

// ---- the safety number ----------------------------------------------------------------------

// The QR code as SVG elements (no markup string): one path of the dark modules.
function QrCode({ text, label }) {
  const bits = encodeQR(text, 'raw', { ecc: 'medium', border: 2 });
  const n = bits.length;
  let d = '';
  bits.forEach((row, y) => row.forEach((on, x) => { if (on) d += `M${x} ${y}h1v1h-1z`; }));
  return (
    <svg class="qr" viewBox={`0 0 ${n} ${n}`} width="200" height="200" role="img" aria-label={label} shape-rendering="crispEdges">
      <rect width={n} height={n} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

// The 60 digits in 3 rows of 4 groups of 5, and the QR code of all 64 bytes.
export function SafetyNumber({ safety, who }) {
  return (
    <figure class="safety" data-testid="safety-number">
      <figcaption>Safety number with <Untrusted text={who} /></figcaption>
      <div class="safety-digits" aria-label={`Safety number: ${safety.digits}`}>
        {safety.rows.map((row, i) => <div key={i} class="safety-row">{row.map((g, j) => <code key={j}>{g}</code>)}</div>)}
      </div>
      <QrCode text={safety.qr} label="The safety number as a QR code" />
      <p class="muted">Compare these digits with the other person's screen (in person or on a call you trust), or scan one code with the other's device. Both sides show the same number; if they differ, someone is in between: do not share.</p>
    </figure>
  );
}

// A button that shows the safety number with one account, with "I compared it".
export function SafetyNumberButton({ other, who }) {
  const { vault } = useApp();
  const [safety, setSafety] = useState(null);
  const { busy, error, run } = useAction();
  if (safety) {
    return (
      <div class="dialog-inline">
        <SafetyNumber safety={safety} who={who} />
        <button onClick={() => run(async () => { await S.markVerified(vault, other.account_id); setSafety(null); })}>I compared it: it matches</button>{' '}
        <button class="link" onClick={() => setSafety(null)}>Close</button>
      </div>
    );
  }
  return (
    <>
      <button class="link" disabled={busy} onClick={() => run(async () => setSafety(await S.safetyNumberWith(vault, other)))}>Safety number</button>
      <ErrorBox error={error} />
    </>
  );
}

// ---- the red banner ---------------------------------------------------------------------------

// Names every account whose identity changed since it was pinned; its safety number is shown
// before the person may accept the new identity.
export function IdentityBanner() {
  const app = useApp();
  const vault = app?.vault;
  const [changed, setChanged] = useState([]);
  const [open, setOpen] = useState(null);   // {pin, safety}
  const { busy, error, run } = useAction();
  const load = () => vault && S.changedIdentities(vault).then(setChanged, () => setChanged([]));
  useEffect(() => { load(); return vault ? S.onPinsChanged(load) : undefined; }, [vault]);
  if (!vault || !changed.length) return null;
  return (
    <div class="banner danger" role="alert" data-testid="identity-banner">
      {changed.map((p) => (
        <div key={p.account_id}>
          <strong>The identity of <Untrusted text={p.email || p.account_id} /> changed.</strong>{' '}
          It may be a new account behind the same address, or someone in between. Nothing is shared with, accepted from or
          sealed to that account until you compare the new safety number with them.{' '}
          {open?.pin.account_id === p.account_id ? (
            <>
              <SafetyNumber safety={open.safety} who={p.email || p.account_id} />
              <button class="danger" disabled={busy} onClick={() => run(async () => { await S.acceptNewIdentity(vault, p.account_id); setOpen(null); })}>I compared the new safety number</button>{' '}
              <button class="link" onClick={() => setOpen(null)}>Not now</button>
            </>
          ) : (
            <button disabled={busy} onClick={() => run(async () => setOpen({ pin: p, safety: await S.safetyNumberWith(vault, { account_id: p.account_id, ...p.changed }) }))}>Show the new safety number</button>
          )}
        </div>
      ))}
      <ErrorBox error={error} />
    </div>
  );
}

// ---- a pouch's sharing: "Share" and "Members" ------------------------------------------------

const ROLES = [['read', 'Read: sees the files'], ['write', 'Write: also adds, changes and deletes files'], ['admin', 'Admin: also invites, changes roles and removes']];

function sharingError(e) {
  return (e && S.sharingErrorWords(e)) || e;
}

// The "Share" dialog: e-mail → lookup → safety number → role → Invite.
function ShareDialog({ pouch, onDone, onClose }) {
  const { vault } = useApp();
  const [email, setEmail] = useState('');
  const [target, setTarget] = useState(null);  // {…identity, safety}
  const [role, setRole] = useState('read');
  const [sent, setSent] = useState(null);
  const { busy, error, run } = useAction();
  const lookUp = (e) => {
    e.preventDefault();
    run(async () => {
      setTarget(null);
      const t = await S.lookUp(vault, email.trim());
      setTarget({ ...t, safety: await S.safetyNumberWith(vault, t) });
    });
  };
  const send = () => run(async () => {
    const inv = await S.invite(vault, pouch, target, role);
    setSent(inv);
    onDone?.();
  });
  return (
    <div class="dialog" role="dialog" aria-labelledby="pouch-share-title" data-testid="share-dialog">
      <h2 id="pouch-share-title">Share this pouch with another account</h2>
      {sent ? (
        <>
          <Notice>Invitation sent to <Untrusted text={target.email} /> as {role}. It waits for them to accept it (it expires in 7 days).</Notice>
          <button onClick={onClose}>Close</button>
        </>
      ) : (
        <>
          <form onSubmit={lookUp}>
            <Field id="share-email" label="Their e-mail address" type="email" required value={email} onInput={(e) => { setEmail(e.currentTarget.value); setTarget(null); }} />
            <button type="submit" disabled={busy || !email.trim()}>Look up</button>
          </form>
          {target && (
            <>
              <SafetyNumber safety={target.safety} who={target.email} />
              <fieldset>
                <legend>Their role</legend>
                {ROLES.map(([r, words]) => (
                  <label key={r} class="radio"><input type="radio" name="share-role" value={r} checked={role === r} onChange={() => setRole(r)} /> {words}</label>
                ))}
              </fieldset>
              <button class="primary" disabled={busy} onClick={send}>Invite</button>
            </>
          )}
          {busy && <Progress label="Working" />}
          <ErrorBox error={sharingError(error)} />
          <button class="link" onClick={onClose}>Cancel</button>
        </>
      )}
    </div>
  );
}

// The pouch page's sharing section: this account's role, "Share" (admins), the members with
// role and state, role changes and removal (admins), leave (everyone), a safety number per row.
export function PouchSharing({ pouch, onChanged }) {
  const { vault } = useApp();
  const [data, setData] = useState(null);
  const [sharing, setSharing] = useState(false);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setData(await S.members(vault, pouch.id)));
  useEffect(() => { if (pouch) load(); }, [pouch?.id, pouch?.key_gen]);
  if (!pouch || (data === null && !busy && !error)) return null;
  const admin = data?.myRole === 'admin';
  const act = (fn) => run(async () => { await fn(); vault.invalidate(pouch.id); onChanged?.(); await load(); });
  const setRole = (m, role) => {
    if (role === m.role_checked) return;
    const lowers = { read: 1, write: 2, admin: 3 }[role] < { read: 1, write: 2, admin: 3 }[m.role_checked];
    if (lowers && !confirm(`Lower ${m.email}'s role to ${role}? The pouch gets a new key, so what is added from now on is sealed anew.`)) return;
    act(() => S.changeRole(vault, pouch, m.account_id, role));
  };
  const remove = (m) => {
    if (!confirm(`Remove ${m.email} from this pouch? The pouch gets a new key; they keep what they already downloaded, but read nothing new.`)) return;
    act(() => S.removeAccount(vault, pouch, m.account_id));
  };
  const leave = () => {
    if (!confirm('Leave this pouch? Your account stops seeing it.')) return;
    run(async () => { await S.leave(vault, pouch.id); location.assign('/pouches'); });
  };
  return (
    <section class="sharing" aria-labelledby="members-title" data-testid="members">
      <h2 id="members-title">Members</h2>
      {data?.myRole && <p class="muted">Your role here: <strong data-testid="my-role">{data.myRole}</strong>.</p>}
      {data?.changed && <p class="error" role="alert">{data.changed.message}</p>}
      {data && (
        <table class="members">
          <caption class="visually-hidden">Accounts in this pouch</caption>
          <thead><tr><th scope="col">Account</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {data.members.map((m) => {
              const own = m.account_id === vault.accountId;
              return (
                <tr key={m.account_id} data-testid={`member-${m.email}`}>
                  <td><Untrusted text={m.email} />{own && <span class="muted"> (you)</span>}</td>
                  <td>
                    {admin && !own && m.state !== 'expired' ? (
                      <select aria-label={`Role of ${m.email}`} value={m.role_checked || m.role} disabled={busy} onChange={(e) => setRole(m, e.currentTarget.value)}>
                        {ROLES.map(([r]) => <option key={r} value={r}>{r}</option>)}
                      </select>
                    ) : (m.role_checked || m.role)}
                    {m.differs && <span class="error"> (the service says {m.role}; the signed list says {m.role_checked})</span>}
                  </td>
                  <td>{m.state}</td>
                  <td>{formatTime(m.since)}</td>
                  <td>
                    {!own && m.identity && <SafetyNumberButton other={{ account_id: m.account_id, ...m.identity }} who={m.email} />}
                    {admin && !own && <> <button class="link danger" disabled={busy} onClick={() => remove(m)}>Remove</button></>}
                    {own && data.list && <button class="link danger" disabled={busy} onClick={leave}>Leave</button>}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {admin && !sharing && <button onClick={() => setSharing(true)} disabled={busy}>Share this pouch</button>}
      {sharing && <ShareDialog pouch={pouch} onDone={load} onClose={() => { setSharing(false); load(); }} />}
      {busy && !data && <Progress label="Loading the members and checking the access list" />}
      <ErrorBox error={sharingError(error)} />
    </section>
  );
}

// ---- the invitations page -----------------------------------------------------------------------

function ReceivedInvitation({ inv, onChanged }) {
  const { vault } = useApp();
  const [checked, setChecked] = useState(null);
  const { busy, error, run } = useAction();
  useEffect(() => { run(async () => setChecked(await S.checkInvitation(vault, inv))); }, [inv.id]);
  return (
    <li data-testid={`invitation-${inv.id}`}>
      <p><Untrusted text={inv.inviter_email} /> invites you to a pouch as <strong>{inv.role}</strong> · until {formatTime(inv.expires_at)}</p>
      {checked && <SafetyNumber safety={checked.safety} who={inv.inviter_email} />}
      <button class="primary" disabled={busy || !checked} onClick={() => run(async () => { await S.accept(vault, inv); onChanged(); })}>Accept</button>{' '}
      <button disabled={busy} onClick={() => run(async () => { await S.decline(vault, inv); onChanged(); })}>Decline</button>
      <ErrorBox error={sharingError(error)} />
    </li>
  );
}

export function InvitationsPage() {
  const { vault } = useApp();
  const [received, setReceived] = useState(null);
  const [sent, setSent] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => {
    setReceived(await S.invitations('received', 'pending'));
    setSent(await S.invitations('sent'));
  });
  useEffect(() => { load(); }, []);
  const withdraw = (inv) => {
    if (!confirm(`Withdraw the invitation to ${inv.email}? The pouch gets a new key.`)) return;
    run(async () => { await S.withdraw(vault, inv); await load(); });
  };
  return (
    <Page title="Invitations">
      {vault.identityProblem && <p class="error" role="alert">Sharing is off on this browser: {vault.identityProblem.message}</p>}
      <ErrorBox error={sharingError(error)} />
      <h2>Received</h2>
      {received === null && busy && <Progress label="Loading invitations" />}
      {received && (received.length ? (
        <ul class="list" aria-label="Invitations you received">{received.map((inv) => <ReceivedInvitation key={inv.id} inv={inv} onChanged={load} />)}</ul>
      ) : <p class="muted">No invitations wait for you.</p>)}
      <h2>Sent</h2>
      {sent && (sent.length ? (
        <table class="invitations" aria-label="Invitations you sent">
          <thead><tr><th scope="col">To</th><th scope="col">Pouch</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Expires</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
          <tbody>
            {sent.map((inv) => (
              <tr key={inv.id} data-testid={`sent-${inv.email}`}>
                <td><Untrusted text={inv.email} /></td>
                <td><Link href={`/pouches/${inv.pouch_id}`}>{inv.pouch_id.slice(0, 8)}</Link></td>
                <td>{inv.role}</td>
                <td>{inv.state}</td>
                <td>{formatTime(inv.expires_at)}</td>
                <td>{inv.state === 'pending' && <button class="link danger" disabled={busy} onClick={() => withdraw(inv)}>Withdraw</button>}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : <p class="muted">You have sent no invitations.</p>)}
    </Page>
  );
}
