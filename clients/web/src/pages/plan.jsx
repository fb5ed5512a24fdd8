// plan.jsx -- /account: the signed-in person's account as GET /v1/account states it: e-mail,
// role, plan, the plan's limits and what is in use, read afresh each time the page is shown.
import { useEffect, useState } from 'preact/hooks';

import { get } from '../api.js';
import { formatBytes } from '../errors.js';
import { ErrorBox, Notice, Page, Progress, Untrusted, useAction } from '../ui.jsx';

// Share of a limit in use, in whole percent; something in use never reads "0 %".
function percent(used, limit) {
  if (used <= 0) return '0 %';
  if (limit <= 0 || used >= limit) return '100 %';
  const p = Math.floor((100 * used) / limit);
  return p === 0 ? 'less than 1 %' : `${p} %`;
}

export function AccountPage() {
  const [account, setAccount] = useState(null);
  const { error, run } = useAction();
  useEffect(() => { run(async () => setAccount(await get('/v1/account'))); }, []);
  return (
    <Page title="Your account">
      <ErrorBox error={error} />
      {!account && !error && <Progress label="Loading your account" />}
      {account && <AccountFacts a={account} />}
    </Page>
  );
}

function AccountFacts({ a }) {
  const { plan, usage } = a;
  const used = usage.stored_bytes + usage.reserved_bytes;
  const full = used >= plan.storage_bytes;
  return (
    <>
      <dl class="facts">
        <dt>E-mail</dt><dd><Untrusted text={a.email} /></dd>
        <dt>Role</dt><dd>{a.role}</dd>
        <dt>Plan</dt><dd><Untrusted text={plan.name} />{plan.description ? <> — <Untrusted text={plan.description} /></> : null}</dd>
      </dl>
      <h2>Storage</h2>
      <div class="meter-row">
        <label for="storage-meter">{formatBytes(used)} of {formatBytes(plan.storage_bytes)} used ({percent(used, plan.storage_bytes)})</label>
        <meter id="storage-meter" min={0} max={Math.max(plan.storage_bytes, 1)} value={Math.min(used, Math.max(plan.storage_bytes, 1))} />
      </div>
      {usage.reserved_bytes > 0 && <p class="muted">{formatBytes(usage.reserved_bytes)} of it is reserved by uploads in progress.</p>}
      <p class="muted">Everything counts: files and their earlier versions, keys, and the files of share links until they are cleaned up.</p>
      {full && <Notice kind="warn">Your storage is full: uploads are refused until you delete something or your plan grows.</Notice>}
      <h2>Pouches</h2>
      <div class="meter-row">
        <label for="pouch-meter">{usage.pouches} of {plan.pouch_limit} pouch{plan.pouch_limit === 1 ? '' : 'es'}</label>
        <meter id="pouch-meter" min={0} max={plan.pouch_limit} value={Math.min(usage.pouches, plan.pouch_limit)} />
      </div>
      <p class="muted">To change your plan, ask the service's administrator.</p>
    </>
  );
}
