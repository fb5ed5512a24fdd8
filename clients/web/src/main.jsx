// main.jsx -- the web app's entry: loads the account and this browser's member keys, sends a
// person to the page their state needs (log in, onboarding, restore), and routes the rest.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';

import { ApiError, get, onSessionExpired, post, session } from './api.js';
import { loadMember } from './keystore.js';
import { Vault } from './vault.js';
import { AppContext, ErrorBox, Link, Page, Progress, navigate, useLocation } from './ui.jsx';
import { AuthPage, OnboardingPage, RestorePage } from './pages/account.jsx';
import { AccountPage } from './pages/plan.jsx';
import { AdminPage } from './pages/admin.jsx';
import { ApprovePage, ConnectPage, DevicesPage } from './pages/devices.jsx';
import { PouchPage, PouchesPage, SharesPage } from './pages/pouches.jsx';
import { SharePublicPage } from './pages/share.jsx';
import { IdentityBanner, InvitationsPage } from './pages/sharing.jsx';
import { ensureIdentityQuietly } from './sharing.js';

const NEXT_KEY = 'pouch.next';
const UUID = '[0-9a-fA-F-]{36}';

async function loadState() {
  if (!session.token) return { stage: 'anonymous' };
  let account;
  try {
    account = await get('/v1/account');
  } catch (e) {
    if (e instanceof ApiError && e.status === 401) {
      session.clear();
      return { stage: 'anonymous' };
    }
    throw e;
  }
  if (!account.member_id) return { stage: 'onboarding', account };
  const member = await loadMember(account.member_id);
  if (!member) return { stage: 'restore', account };
  const vault = new Vault(account, member);
  await vault.refreshRoster();
  // The account identity (docs/SHARING.md §1): opened, or made by the genesis member; without
  // it the app works as before sharing, and the sharing pages say why.
  await ensureIdentityQuietly(vault);
  return { stage: 'ready', account, vault };
}

// Ends the session on the service too (the token stops working), then here, and reloads.
async function logout(reload) {
  try { await post('/v1/account/logout'); } catch { /* the session is dropped either way */ }
  session.clear();
  await reload();
}

// Where each stage may go; anything else is sent to the stage's home page.
const ALLOWED = {
  anonymous: ['/login', '/signup'],
  onboarding: ['/onboarding'],
  restore: ['/restore'],
};
const HOME = { anonymous: '/login', onboarding: '/onboarding', restore: '/restore', ready: '/pouches' };

// The account's state (stage, account, vault), loaded once and again on reload(), apart from
// how the app shows it; an expired session makes it anonymous.
function useAccountState() {
  const [state, setState] = useState(null);
  const [error, setError] = useState(null);
  const reload = async () => {
    setError(null);
    try {
      const s = await loadState();
      setState(s);
      return s;
    } catch (e) {
      setError(e);
      return null;
    }
  };
  useEffect(() => { reload(); }, []);
  useEffect(() => onSessionExpired(() => { session.clear(); setState({ stage: 'anonymous' }); }), []);
  return { state, error, reload };
}

// Where the person's stage sends them from `loc`, or null when they may stay; remembers where
// they were going (NEXT_KEY) until their stage lets them go there.
function redirectFor(stage, loc) {
  const allowed = ALLOWED[stage];
  const stays = allowed ? allowed.includes(loc.path) : !(loc.path === '/' || ['/login', '/signup', '/onboarding', '/restore'].includes(loc.path));
  if (stays) return null;
  if (allowed && loc.path !== '/' && !['/login', '/signup'].includes(loc.path)) {
    sessionStorage.setItem(NEXT_KEY, loc.path + location.search + location.hash);
  }
  let to = HOME[stage];
  if (!allowed) {
    const next = sessionStorage.getItem(NEXT_KEY);
    sessionStorage.removeItem(NEXT_KEY);
    if (next && next.startsWith('/') && !next.startsWith('//')) to = next;
  }
  return to;
}

function App() {
  const loc = useLocation();
  const { state, error, reload } = useAccountState();

  const publicShare = new RegExp(`^/s/(${UUID})$`).exec(loc.path);
  if (publicShare) return <Shell><SharePublicPage shareId={publicShare[1].toLowerCase()} /></Shell>;

  if (error) {
    return (
      <Shell>
        <Page title="Something went wrong">
          <ErrorBox error={error} />
          <button onClick={reload}>Try again</button> <button onClick={() => logout(reload)}>Log out</button>
        </Page>
      </Shell>
    );
  }
  if (!state) return <Shell><Page title="Pouch"><Progress label="Loading your account and checking its roster" /></Page></Shell>;

  // Send the person where their state needs them.
  const to = redirectFor(state.stage, loc);
  if (to) {
    queueMicrotask(() => navigate(to, { replace: true }));
    return <Shell state={state} reload={reload} />;
  }

  const ctx = { account: state.account, vault: state.vault, reload };
  return (
    <AppContext.Provider value={ctx}>
      <Shell state={state} reload={reload}>{route(loc, state)}</Shell>
    </AppContext.Provider>
  );
}

function route(loc, state) {
  const p = loc.path;
  if (p === '/login') return <AuthPage mode="login" />;
  if (p === '/signup') return <AuthPage mode="signup" />;
  if (p === '/onboarding') return <OnboardingPage />;
  if (p === '/restore') return <RestorePage />;
  if (p === '/pouches') return <PouchesPage />;
  const pouch = new RegExp(`^/pouches/(${UUID})$`).exec(p);
  if (pouch) return <PouchPage key={pouch[1]} pouchId={pouch[1].toLowerCase()} />;
  if (p === '/shares') return <SharesPage />;
  if (p === '/invitations') return <InvitationsPage />;
  if (p === '/devices') return <DevicesPage />;
  if (p === '/account') return <AccountPage />;
  // Keyed by the whole address: a page checked for one link is never reused for another.
  if (p === '/cli/approve') return <ApprovePage key={`${loc.query}${loc.hash}`} />;
  if (p === '/cli/connect') return <ConnectPage />;
  if (p === '/admin') return <AdminPage />;
  return <Page title="Page not found"><p>There is no page at this address. <Link href="/">Go to your pouches</Link>.</p></Page>;
}

function Shell({ state, reload, children }) {
  const loc = useLocation();
  const ready = state?.stage === 'ready';
  const nav = (href, label) => (
    <li key={href}><Link href={href} aria-current={loc.path === href || (href !== '/' && loc.path.startsWith(`${href}/`)) ? 'page' : undefined}>{label}</Link></li>
  );
  // Signed out there is nothing to navigate to: then no "Main" landmark at all, not an empty one.
  const items = [
    ready && nav('/pouches', 'Pouches'),
    ready && nav('/shares', 'Shares'),
    ready && nav('/invitations', 'Invitations'),
    ready && nav('/devices', 'Devices'),
    ready && nav('/cli/connect', 'Connect CLI'),
    ready && nav('/account', 'Account'),
    ready && state.account.role === 'admin' && nav('/admin', 'Admin'),
    state && state.stage !== 'anonymous' && <li key="logout"><button class="link" onClick={() => logout(reload)}>Log out</button></li>,
  ].filter(Boolean);
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <Link href="/" class="brand">Pouch</Link>
        {items.length > 0 && <nav aria-label="Main"><ul>{items}</ul></nav>}
        {state?.account && <span class="who" aria-label="Signed in as">{state.account.email}</span>}
      </header>
      {ready && <IdentityBanner />}
      <main id="main">{children}</main>
      <footer class="muted">End-to-end encrypted: files, names and keys are encrypted in your browser.</footer>
    </>
  );
}

render(<App />, document.getElementById('app'));
