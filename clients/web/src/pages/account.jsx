// account.jsx -- sign up, log in, onboarding (genesis with the recovery kit) and "restore on
// this browser" from a recovery kit.
import { useState } from 'preact/hooks';

import { post, session } from '../api.js';
import { commitGenesis, prepareGenesis, restoreFromKit } from '../vault.js';
import { ErrorBox, Field, Link, Page, Progress, downloadBytes, useAction, useApp } from '../ui.jsx';

export function AuthPage({ mode }) {
  const app = useApp();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction();
  const signup = mode === 'signup';

  const submit = (e) => {
    e.preventDefault();
    run(async () => {
      const r = await post(signup ? '/v1/account/signup' : '/v1/account/login', { email, password }, { auth: false });
      session.set(r.session_token);
      await app.reload();       // the app then sends the person on (onboarding, restore, or where they were going)
    });
  };

  return (
    <Page title={signup ? 'Create your account' : 'Log in'}>
      <form onSubmit={submit} class="card narrow" aria-describedby={error ? 'auth-error' : undefined}>
        <Field id="email" label="Email" type="email" autocomplete="email" required value={email}
          onInput={(e) => setEmail(e.currentTarget.value)} />
        <Field id="password" label="Password" type="password" required minLength={signup ? 10 : undefined}
          autocomplete={signup ? 'new-password' : 'current-password'} value={password}
          hint={signup ? 'At least 10 characters.' : undefined} onInput={(e) => setPassword(e.currentTarget.value)} />
        <ErrorBox error={error} id="auth-error" />
        <button type="submit" class="primary" disabled={busy}>{busy ? 'Please wait…' : signup ? 'Sign up' : 'Log in'}</button>
        <p class="muted">
          {signup ? <>Already have an account? <Link href="/login">Log in</Link>.</>
            : <>New here? <Link href="/signup">Create an account</Link>.</>}
        </p>
      </form>
    </Page>
  );
}

// Genesis: keys are made here, the recovery kit is saved by the user, then the account's
// roster and first pouch are created.
export function OnboardingPage() {
  const app = useApp();
  const [prep, setPrep] = useState(null);
  const [saved, setSaved] = useState(false);
  const [downloaded, setDownloaded] = useState(false);
  const { busy, error, run } = useAction();

  const makeKeys = () => run(async () => setPrep(await prepareGenesis(app.account)));
  const download = () => {
    downloadBytes(new TextEncoder().encode(JSON.stringify(prep.kit, null, 2) + '\n'), 'pouch-recovery-kit.json', 'application/json');
    setDownloaded(true);
  };
  const finish = (e) => {
    e.preventDefault();
    run(async () => {
      await commitGenesis(app.account, prep);
      await app.reload();
    });
  };

  return (
    <Page title="Set up your encrypted account">
      {!prep && <MakeKeysCard error={error} busy={busy} onMake={makeKeys} />}
      {prep && (
        <form class="card" onSubmit={finish}>
          <h2>Your recovery code</h2>
          <p>Write this code down and keep it apart from the kit file. It is shown <strong>only once</strong>.</p>
          <p class="code" aria-label="Recovery code" data-testid="recovery-code">{prep.code}</p>
          <p><button type="button" onClick={download}>Download recovery kit</button>
            {downloaded && <span class="ok"> Saved as pouch-recovery-kit.json.</span>}</p>
          <div class="check">
            <input type="checkbox" id="saved" checked={saved} onChange={(e) => setSaved(e.currentTarget.checked)} />
            <label for="saved">I have saved the recovery kit and written down the code.</label>
          </div>
          <ErrorBox error={error} />
          {busy && <Progress label="Creating your account and first pouch" />}
          <button type="submit" class="primary" disabled={!saved || !downloaded || busy}>Create my account</button>
        </form>
      )}
    </Page>
  );
}

// What onboarding does, before the keys are made.
function MakeKeysCard({ error, busy, onMake }) {
  return (
    <div class="card">
      <p>Your files are encrypted in this browser before they leave it. To do that, this browser now makes your
        <strong> member keys</strong>. The service never sees them.</p>
      <ol>
        <li>This browser makes your keys and a <strong>recovery kit</strong> protected by a recovery code.</li>
        <li>You download the kit and write down the code. They are the only way to use your files on another browser.</li>
        <li>Your account and your first pouch are created.</li>
      </ol>
      <ErrorBox error={error} />
      <button class="primary" onClick={onMake} disabled={busy}>{busy ? 'Making keys…' : 'Make my keys'}</button>
    </div>
  );
}

export function RestorePage() {
  const app = useApp();
  const [kit, setKit] = useState(null);
  const [code, setCode] = useState('');
  const { busy, error, setError, run } = useAction();

  const readFile = async (e) => {
    setError(null);
    const f = e.currentTarget.files[0];
    if (!f) return;
    try {
      setKit(JSON.parse(await f.text()));
    } catch {
      setKit(null);
      setError('This file is not a recovery kit (it is not JSON).');
    }
  };
  const submit = (e) => {
    e.preventDefault();
    run(async () => {
      await restoreFromKit(app.account, kit, code);
      await app.reload();
    });
  };

  return (
    <Page title="Restore on this browser">
      <form class="card narrow" onSubmit={submit}>
        <p>This browser does not hold your member keys yet. Give it your recovery kit and its code; the keys are
          opened here and kept in this browser only.</p>
        <div class="field">
          <label for="kit">Recovery kit file</label>
          <input id="kit" type="file" accept=".json,application/json" required onChange={readFile} />
        </div>
        <Field id="code" label="Recovery code" required autocomplete="off" spellcheck={false}
          hint="32 letters and digits, as written down (spaces and dashes do not matter)."
          value={code} onInput={(e) => setCode(e.currentTarget.value)} />
        <ErrorBox error={error} />
        {busy && <Progress label="Opening the kit and checking it against your account" />}
        <button type="submit" class="primary" disabled={busy || !kit}>Restore keys</button>
      </form>
    </Page>
  );
}
