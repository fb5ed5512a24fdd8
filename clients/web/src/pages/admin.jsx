// admin.jsx -- the admin pages (role admin): plans and their limits, a user's role, the audit
// log. The service refuses everyone else (403 forbidden); the page says so in words.
import { useEffect, useState } from 'preact/hooks';

import { api, getAll, post } from '../api.js';
import { formatBytes, formatTime } from '../errors.js';
import { ErrorBox, Field, Notice, Page, Progress, useAction, useApp } from '../ui.jsx';

export function AdminPage() {
  const { account } = useApp();
  if (account.role !== 'admin') {
    return (
      <Page title="Administration">
        <Notice kind="warn">This page is for administrators. Your account's role is “{account.role}”.</Notice>
      </Page>
    );
  }
  return (
    <Page title="Administration" wide>
      <Plans />
      <Role />
      <Audit />
    </Page>
  );
}

const GIB = 1024 ** 3;

function Plans() {
  const [plans, setPlans] = useState(null);
  const [saved, setSaved] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setPlans(await getAll('/v1/admin/plans')));
  useEffect(() => { load(); }, []);
  const save = (plan) => (e) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setSaved(null);                // the result of an earlier save is not this one's
    run(async () => {
      const body = {
        name: String(f.get('name')),
        pouch_limit: Number(f.get('pouch_limit')),
        storage_bytes: Math.round(Number(f.get('storage_gib')) * GIB),
        is_active: f.get('is_active') === 'on',
        reason: String(f.get('reason') || ''),
      };
      if (!Number.isSafeInteger(body.pouch_limit) || body.pouch_limit < 1) throw new Error('The pouch limit must be a whole number of at least 1.');
      if (!Number.isSafeInteger(body.storage_bytes) || body.storage_bytes < 0) throw new Error('The storage limit must be a number of GiB, 0 or more.');
      await api('PUT', `/v1/admin/plans/${plan.id}`, { body });
      setSaved(plan.slug);
      await load();
    });
  };
  return (
    <section aria-labelledby="plans-title">
      <h2 id="plans-title">Plans</h2>
      <p class="muted">A change of limits applies at once to every account on the plan.</p>
      <ErrorBox error={error} />
      {saved && <Notice kind="ok">Plan “{saved}” saved.</Notice>}
      {!plans && !error && <Progress label="Loading plans" />}
      <div class="grid">
        {plans?.map((p) => (
          <form key={p.id} class="card" onSubmit={save(p)} aria-label={`Plan ${p.slug}`}>
            <h3>{p.name} <span class="muted">({p.slug}{p.is_default ? ', default' : ''})</span></h3>
            <Field id={`name-${p.slug}`} name="name" label="Name" defaultValue={p.name} required maxLength={64} />
            <Field id={`pouches-${p.slug}`} name="pouch_limit" label="Pouch limit" type="number" min={1} step={1} defaultValue={p.pouch_limit} required />
            <Field id={`storage-${p.slug}`} name="storage_gib" label="Storage (GiB)" type="number" min={0} step="any"
              defaultValue={+(p.storage_bytes / GIB).toFixed(3)} hint={`Now ${formatBytes(p.storage_bytes)}.`} required />
            <div class="check">
              <input type="checkbox" id={`active-${p.slug}`} name="is_active" defaultChecked={p.is_active} />
              <label for={`active-${p.slug}`}>Active</label>
            </div>
            <Field id={`reason-${p.slug}`} name="reason" label="Reason (for the audit log)" maxLength={500} />
            <button type="submit" disabled={busy}>Save plan</button>
          </form>
        ))}
      </div>
    </section>
  );
}

function Role() {
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('user');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState(null);
  const { busy, error, run } = useAction();
  const submit = (e) => {
    e.preventDefault();
    setDone(null);                 // a refusal must not stand beside the previous change's result
    run(async () => setDone(await post(`/v1/admin/users/${userId.trim()}/role`, { role, reason })));
  };
  return (
    <section aria-labelledby="role-title">
      <h2 id="role-title">Set a user's role</h2>
      <form class="card narrow" onSubmit={submit}>
        <Field id="role-user" label="User id" required value={userId} onInput={(e) => setUserId(e.currentTarget.value)}
          hint="The user's id (a UUID), as the audit log or support shows it." />
        <div class="field">
          <label for="role-role">Role</label>
          <select id="role-role" value={role} onChange={(e) => setRole(e.currentTarget.value)}>
            <option value="user">user</option>
            <option value="support">support</option>
            <option value="admin">admin</option>
          </select>
        </div>
        <Field id="role-reason" label="Reason" maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
        <ErrorBox error={error} />
        {done && <Notice kind="ok">Role {done.previous_role === done.role ? `unchanged (${done.role})` : `changed from ${done.previous_role} to ${done.role}`}.</Notice>}
        <button type="submit" disabled={busy}>Set role</button>
      </form>
    </section>
  );
}

function Audit() {
  const [items, setItems] = useState([]);
  const [cursor, setCursor] = useState(undefined);
  const { busy, error, run } = useAction();
  const more = (reset) => run(async () => {
    const r = await api('GET', '/v1/admin/audit', { query: { limit: 50, cursor: reset ? undefined : cursor } });
    setItems((old) => (reset ? r.data.items : [...old, ...r.data.items]));
    setCursor(r.meta.next_cursor);
  });
  useEffect(() => { more(true); }, []);
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit log</h2>
      <ErrorBox error={error} />
      <table class="files">
        <caption class="visually-hidden">Audit records, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th><th scope="col">Change</th><th scope="col">Reason</th></tr></thead>
        <tbody>
          {items.length === 0 && !busy && <tr><td colSpan={5} class="muted">No records yet.</td></tr>}
          {items.map((a) => (
            <tr key={a.id}>
              <td data-label="When">{formatTime(a.at)}</td>
              <td data-label="Who">{a.actor}</td>
              <td data-label="What">{a.action} {a.target}</td>
              <td data-label="Change"><code>{JSON.stringify(a.before)} → {JSON.stringify(a.after)}</code></td>
              <td data-label="Reason">{a.reason || ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {busy && <Progress label="Loading the audit log" />}
      {cursor && <button onClick={() => more(false)} disabled={busy}>Load older records</button>}
      {' '}<button onClick={() => more(true)} disabled={busy}>Refresh</button>
    </section>
  );
}
