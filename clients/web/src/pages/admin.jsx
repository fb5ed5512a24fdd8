// admin.jsx -- the admin pages (role admin): plans and their limits, a user's role (the user
// found by e-mail), the audit log in words. The service refuses everyone else (403 forbidden);
// the page says so in words.
import { useEffect, useState } from 'preact/hooks';

import { ApiError, api, get, getAll, post } from '../api.js';
import { formatBytes, formatTime } from '../errors.js';
import { ErrorBox, Field, Notice, Page, Progress, Untrusted, useAction, useApp } from '../ui.jsx';

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

// The storage field shows GiB to three decimals; what it held when the form was drawn.
const gibText = (bytes) => String(+(bytes / GIB).toFixed(3));

// The storage limit the field asks for: the plan's exact byte count while the field still shows
// what it was drawn with (so saving a renamed plan never rounds its limit), else the typed GiB.
function storageBytesOf(fieldText, plan) {
  if (fieldText.trim() === gibText(plan.storage_bytes)) return plan.storage_bytes;
  const gib = Number(fieldText);
  return fieldText.trim() === '' || !Number.isFinite(gib) ? NaN : Math.round(gib * GIB);
}

function Plans() {
  const [plans, setPlans] = useState(null);
  const [saved, setSaved] = useState(null);
  const { busy, error, run } = useAction();
  const load = () => run(async () => setPlans(await getAll('/v1/admin/plans')));
  useEffect(() => { load(); }, []);
  const save = (plan, storageText) => (e) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget);
    setSaved(null);                // the result of an earlier save is not this one's
    run(async () => {
      const body = {
        name: String(f.get('name')),
        pouch_limit: Number(f.get('pouch_limit')),
        storage_bytes: storageBytesOf(storageText, plan),
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
        {/* Keyed by the stored limit too: a saved plan's form is drawn afresh from what is stored. */}
        {plans?.map((p) => <PlanForm key={`${p.id}/${p.storage_bytes}`} p={p} busy={busy} onSave={save} />)}
      </div>
    </section>
  );
}

// One plan's form. The storage hint follows the field as it is typed: the stored limit, and
// what saving would make it.
function PlanForm({ p, busy, onSave }) {
  const [storage, setStorage] = useState(gibText(p.storage_bytes));
  const asked = storageBytesOf(storage, p);
  const hint = asked === p.storage_bytes ? `Now ${formatBytes(p.storage_bytes)}.`
    : Number.isSafeInteger(asked) && asked >= 0 ? `Now ${formatBytes(p.storage_bytes)}; after saving ${formatBytes(asked)} (${asked.toLocaleString('en')} bytes).`
      : `Now ${formatBytes(p.storage_bytes)}; type a number of GiB, 0 or more.`;
  return (
    <form class="card" onSubmit={onSave(p, storage)} aria-label={`Plan ${p.slug}`}>
      <h3>{p.name} <span class="muted">({p.slug}{p.is_default ? ', default' : ''})</span></h3>
      <Field id={`name-${p.slug}`} name="name" label="Name" defaultValue={p.name} required maxLength={64} />
      <Field id={`pouches-${p.slug}`} name="pouch_limit" label="Pouch limit" type="number" min={1} step={1} defaultValue={p.pouch_limit} required />
      <Field id={`storage-${p.slug}`} name="storage_gib" label="Storage (GiB)" type="number" min={0} step="any"
        value={storage} onInput={(e) => setStorage(e.currentTarget.value)} hint={hint} required />
      <div class="check">
        <input type="checkbox" id={`active-${p.slug}`} name="is_active" defaultChecked={p.is_active} />
        <label for={`active-${p.slug}`}>Active</label>
      </div>
      <Field id={`reason-${p.slug}`} name="reason" label="Reason (for the audit log)" maxLength={500} />
      <button type="submit" disabled={busy}>Save plan</button>
    </form>
  );
}

// The role form: the person by e-mail (GET /v1/admin/users?email=), then their new role. The
// result names the person, and any earlier result goes as soon as the form is sent again.
function Role() {
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('user');
  const [reason, setReason] = useState('');
  const [done, setDone] = useState(null);
  const { busy, error, run } = useAction();
  const submit = (e) => {
    e.preventDefault();
    setDone(null);                 // a refusal must not stand beside the previous change's result
    run(async () => {
      let user;
      try {
        user = await get('/v1/admin/users', { query: { email: email.trim() } });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'not_found') throw new Error(`No account has the e-mail “${email.trim()}”.`);
        throw err;
      }
      const r = await post(`/v1/admin/users/${user.id}/role`, { role, reason });
      setDone({ ...r, email: user.email });
    });
  };
  return (
    <section aria-labelledby="role-title">
      <h2 id="role-title">Set a user's role</h2>
      <form class="card narrow" onSubmit={submit}>
        <Field id="role-email" label="E-mail" type="email" required value={email} autocomplete="off"
          onInput={(e) => setEmail(e.currentTarget.value)} hint="The address the person signs in with." />
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
        {done && (
          <Notice kind="ok">
            <Untrusted text={done.email} />: role {done.previous_role === done.role ? `unchanged (${done.role})` : `changed from ${done.previous_role} to ${done.role}`}.
          </Notice>
        )}
        <button type="submit" disabled={busy}>Set role</button>
      </form>
    </section>
  );
}

// ---- the audit log in words ----

const ACTIONS = {
  'user.role': 'Role change',
  'plan.update': 'Plan change',
};

// Who acted: the admin's e-mail, "the operator (pouchctl)", or the bare id of a deleted user.
function Who({ a }) {
  if (a.actor === 'operator') return <>the operator (pouchctl)</>;
  if (a.actor_email) return <Untrusted text={a.actor_email} />;
  return <span class="muted">a deleted user ({a.actor.slice(0, 8)})</span>;
}

// What was acted on, for a person: "Role change of ada@example.com", "Plan change of free".
function What({ a }) {
  const words = ACTIONS[a.action] || a.action;
  const kind = a.action.startsWith('user.') ? 'user' : a.action.startsWith('plan.') ? 'plan' : null;
  return (
    <>
      {words}{' of '}
      {a.target_name ? <Untrusted text={a.target_name} /> : <span class="muted">{kind ? `a deleted ${kind} ` : ''}<code>{a.target}</code></span>}
    </>
  );
}

// A field's value as a person reads it: byte counts in units, booleans as yes/no, text quoted.
function valueWords(field, v) {
  if (v === undefined || v === null) return '—';
  if (field === 'storage_bytes' && typeof v === 'number') return `${formatBytes(v)} (${v.toLocaleString('en')} bytes)`;
  if (field === 'price_cents' && typeof v === 'number') return (v / 100).toFixed(2);
  if (typeof v === 'boolean') return v ? 'yes' : 'no';
  if (field === 'role' && typeof v === 'string') return v;    // one of three words, no quotes
  if (typeof v === 'string') return `“${v}”`;
  return JSON.stringify(v);
}

const FIELD_WORDS = {
  role: 'role', slug: 'slug', name: 'name', description: 'description', price_cents: 'price',
  currency: 'currency', interval: 'billing interval', pouch_limit: 'pouch limit',
  storage_bytes: 'storage limit', is_public: 'public', is_active: 'active', sort: 'sort order',
};

// "role: user → admin", one line per changed field.
function changeLines(before, after) {
  const b = before && typeof before === 'object' ? before : {};
  const f = after && typeof after === 'object' ? after : {};
  const fields = [...new Set([...Object.keys(b), ...Object.keys(f)])];
  return fields.map((k) => `${FIELD_WORDS[k] || k}: ${valueWords(k, b[k])} → ${valueWords(k, f[k])}`);
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
            <tr key={a.id} data-testid={`audit-${a.id}`}>
              <td data-label="When">{formatTime(a.at)}</td>
              <td data-label="Who"><Who a={a} /></td>
              <td data-label="What"><What a={a} /></td>
              <td data-label="Change" class="change">{changeLines(a.before, a.after).map((line, i) => <div key={i}><Untrusted text={line} /></div>)}</td>
              <td data-label="Reason"><Untrusted text={a.reason || ''} /></td>
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
