// browser.mjs -- the hostile suite's browser half: the web app in Debian's chromium (playwright-core,
// --proxy-server=http://127.0.0.1:9 so nothing leaves the machine) served through the tampering
// proxy, as a person uses it, while the server (the proxy's rules) and a member device
// (pouch-attacker with a real `pouch` device's keys) attack it: key swaps and ground confirm codes
// at CLI approval, a phishing approval, envelopes of another pouch or member, a rolled-back key
// generation, blob ids from decrypted content, a removed member's envelope and revision. Each scenario checks the safe outcome in PostgreSQL
// and in the proxy's log of what the browser sent. Prints PASS/FAIL lines and HOSTILE END.
// Env (tests/hostile/run.sh): POUCH_URL (the proxy), POUCHCTL, POUCH_DATABASE_URL, HOSTILE_DIR,
// HOSTILE_RULES, HOSTILE_LOG.
import { execFileSync, spawn } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { chromium } from 'playwright-core';

const PROXY = process.env.POUCH_URL;
const POUCHCTL = process.env.POUCHCTL;
const BIN = path.dirname(POUCHCTL);
const DB = process.env.POUCH_DATABASE_URL;
const RULES = process.env.HOSTILE_RULES;
const LOG = process.env.HOSTILE_LOG;
const DIR = path.join(process.env.HOSTILE_DIR, 'browser');
const ONLY = process.env.POUCH_HOSTILE_ONLY ? new RegExp(process.env.POUCH_HOSTILE_ONLY) : null;
fs.mkdirSync(DIR, { recursive: true });

// ---- reporting -----------------------------------------------------------------------------

let failed = 0;
const broken = new Set();
async function scenario(name, needs, fn) {
  if (ONLY && !ONLY.test(name)) return;
  const missing = needs.filter((n) => broken.has(n));
  if (missing.length) {
    failed++;
    broken.add(name);
    console.log(`FAIL ${name}: not run, it needs ${missing.join(', ')}`);
    return;
  }
  console.log(`--- ${name}`);
  const t0 = Date.now();
  const problems = [];
  try {
    rules([]);
    await fn((what, cond) => { if (!cond) problems.push(what); });
  } catch (e) {
    problems.push(`stopped early: ${String(e.message).split('\n').slice(0, 3).join(' | ')}`);
  } finally {
    rules([]);
    stopLogins();
  }
  if (problems.length) {
    failed++;
    broken.add(name);
    console.log(`FAIL ${name}: ${problems.join('; ').replace(/\n/g, ' ')}`);
    await page?.screenshot({ path: path.join(DIR, `FAILED-${name}.png`), fullPage: true }).catch(() => {});
  } else {
    console.log(`PASS ${name}`);
  }
  console.log(`    (${name} took ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
}

// ---- the proxy, the database, the project's tools --------------------------------------------

function rules(list) {
  fs.writeFileSync(`${RULES}.tmp`, JSON.stringify(list));
  fs.renameSync(`${RULES}.tmp`, RULES);
}
let logMark = 0;
const markLog = () => { logMark = fs.readFileSync(LOG, 'utf8').split('\n').filter(Boolean).length; };
const logSince = () => fs.readFileSync(LOG, 'utf8').split('\n').filter(Boolean).slice(logMark).map((l) => JSON.parse(l));
// Ops the browser sent in commits to the pouch since the mark ({key_gen} filter optional).
const opsSent = (pouchId, keyGen) => logSince()
  .filter((r) => r.method === 'POST' && r.upstream_path === `/v1/pouches/${pouchId}/operations`)
  .flatMap((r) => { try { return JSON.parse(r.body).ops || []; } catch { return []; } })
  .filter((op) => keyGen === undefined || op.key_gen === keyGen).length;
// Requests or answers the proxy's rule `name` changed (not merely matched) since the mark: that
// the attack reached the page.
const served = (name) => logSince().filter((r) => r.changed.includes(name)).length;
// Approvals (POST .../approve) the browser sent since the mark.
const approvalsSent = () => logSince().filter((r) => r.method === 'POST' && /\/approve$/.test(r.upstream_path)).length;

const sql = (q) => execFileSync('psql', [DB, '-XtAq', '-c', q], { encoding: 'utf8' }).trim();
const pouchctl = (...args) => execFileSync(POUCHCTL, args, { encoding: 'utf8' }).trim();
const attacker = (...args) => execFileSync(path.join(BIN, 'pouch-attacker'), args, { encoding: 'utf8' }).trim();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function apiAs(token, method, p, body) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(PROXY + p, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

// Today's confirm code (decisions §6, v1): SHA-256("pouch-confirm-v1" || request id || jkt), its
// first 8 bytes big-endian mod 10^8 -- what the page computes from the id the server names.
function code1(id, jkt) {
  const h = nodeCrypto.createHash('sha256').update(`pouch-confirm-v1${id}${jkt}`).digest();
  const v = (h.readBigUInt64BE(0) % 100000000n).toString().padStart(8, '0');
  return `${v.slice(0, 4)}-${v.slice(4)}`;
}

// The grind of a malicious server: a request id R' to show the terminal and an id D to name in
// the request details, with code1(R', jktR) == code1(D, jktD). The server chooses both ids, so a
// birthday search over 8 digits takes some 10^4 hashes per side, not 10^8.
function grind(jktR, jktD) {
  const seen = new Map();
  for (let i = 0; i < 40000; i++) {
    const r = nodeCrypto.randomUUID();
    seen.set(code1(r, jktR), r);
  }
  for (let i = 0; i < 10000000; i++) {
    const d = nodeCrypto.randomUUID();
    const r = seen.get(code1(d, jktD));
    if (r && r !== d) return { shown: r, named: d, code: code1(r, jktR) };
  }
  throw new Error('no collision found');
}

// A key pair made by pouchctl: {pem, jwk, jkt}.
function keypair(name) {
  const pem = path.join(DIR, `${name}-${nodeCrypto.randomUUID().slice(0, 8)}.pem`);
  const jwk = JSON.parse(pouchctl('keygen', '--out', pem));
  const { jkt } = JSON.parse(pouchctl('jwk', '--key', pem));
  return { pem, jwk: { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y }, jkt };
}
const fingerprint = (jkt) => jkt.slice(0, 16).match(/.{4}/g).join(' ');

// The attacker's own login request: a terminal of its own, keys of its own, through the proxy.
async function attackerRequest(name) {
  const sign = keypair(`${name}-sign`);
  const enc = keypair(`${name}-enc`);
  const pkce = JSON.parse(pouchctl('pkce'));
  const url = `${PROXY}/v1/cli-auth/requests`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', DPoP: pouchctl('dpop', '--key', sign.pem, '--method', 'POST', '--url', url) },
    body: JSON.stringify({ code_challenge: pkce.challenge, device_name: name, os: 'linux', arch: 'x86_64', cli_version: '0.9.0',
      sign_pub: sign.jwk, enc_pub: enc.jwk, key_storage: 'file' }),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`attacker login start: ${res.status} ${JSON.stringify(json)}`);
  return { id: json.data.request_id, sign, enc };
}

// Logins still waiting when their scenario ends are stopped then (SIGTERM).
const running = new Set();
const stopLogins = () => { for (const p of running) p.kill('SIGTERM'); };
// A login's exit status, or 'timeout' after `ms`.
const exitOf = (l, ms = 30000) => Promise.race([l.done, sleep(ms).then(() => 'timeout')]);

// `pouch login` in the background (config DIR/NAME): resolves once it printed its link and
// code; `done` resolves to its exit status.
function realLogin(name, extra = []) {
  const home = path.join(DIR, name);
  fs.rmSync(home, { recursive: true, force: true });
  const proc = spawn(path.join(BIN, 'pouch'), ['login', '--server', PROXY, '--name', name, ...extra],
    { env: { ...process.env, XDG_CONFIG_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout.on('data', (d) => { out += d; });
  proc.stderr.on('data', (d) => { out += d; });
  running.add(proc);
  const done = new Promise((resolve) => proc.on('exit', (code) => { running.delete(proc); resolve(code); }));
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      const link = /(http\S*\/cli\/approve\?request=\S*)/.exec(out)?.[1];
      const code = link && /\b(\d{4}-\d{4}(?:-\d{4})?)\b/.exec(out.split(link).join(' '))?.[1];
      if (link && code) {
        clearInterval(timer);
        resolve({ link, code, done, out: () => out, cfg: path.join(home, 'pouch'), request: link.split('request=')[1].split('#')[0] });
      }
    }, 100);
    done.then((code) => { clearInterval(timer); reject(new Error(`pouch login ${name} exited ${code}: ${out.slice(-300)}`)); });
  });
}

// The approval page as a person uses it: the code typed, Approve pressed when the page allows it.
async function typeCodeAndApprove(p, code) {
  // The page shows the code field once its checks passed, or its refusal: whichever comes (its
  // checks hash and import keys, slow on a loaded machine; a fixed short wait skipped typing).
  const input = p.locator('#confirm-code');
  await input.or(p.getByTestId('refusal')).first().waitFor({ timeout: 30000 }).catch(() => {});
  if (await input.count()) await input.fill(code).catch(() => {});
  const button = p.getByRole('button', { name: 'Approve' });
  if (await button.count() && await button.isEnabled().catch(() => false)) {
    await button.click({ timeout: 3000 }).catch(() => {});
  }
}

// The approval page's refusal (decisions §15): its reason shown, no code field, Approve off.
// Waited for, so the checks after it never run before the page has decided.
async function expectRefused(p, expect, what) {
  const shown = await p.getByTestId('refusal').waitFor({ timeout: 30000 }).then(() => true, () => false);
  expect(`${what}: the page says it cannot approve this login`, shown);
  expect(`${what}: it offers no code field`, (await p.locator('#confirm-code').count()) === 0);
  const button = p.getByRole('button', { name: 'Approve' });
  expect(`${what}: its Approve button is off`, (await button.count()) === 1 && !(await button.isEnabled()));
}

// A pouch's page, once its file list has loaded (the upload button waits for it).
async function openPouch(p, pouchId) {
  await p.goto(`${PROXY}/pouches/${pouchId}`);
  await p.getByText('live updates on').waitFor({ timeout: 30000 }).catch(() => {});
  await sleep(300);
}

// A pouch page that refuses to write (a refused key, a rollback): its banner shown, uploads off.
async function expectWritesOff(p, expect, what) {
  const shown = await p.getByTestId('write-blocked').waitFor({ timeout: 30000 }).then(() => true, () => false);
  expect(`${what}: the page says why nothing can be written`, shown);
  expect(`${what}: its upload is off`, await p.locator('#upload').isDisabled());
}

async function waitFor(what, fn, ms = 30000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await fn()) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

// ---- the browser ---------------------------------------------------------------------------

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage', '--proxy-server=http://127.0.0.1:9'],
});
const ctx = await browser.newContext({ acceptDownloads: true, viewport: { width: 1100, height: 760 } });
const page = await ctx.newPage();
page.on('dialog', (d) => d.accept());
const S = {};
const token = () => S.token;
const accountId = () => S.account.storage_account_id;
const rosterCount = () => Number(sql(`SELECT count(*) FROM roster_entries WHERE account_id = '${accountId()}'`));
const envelopeCount = () => Number(sql(`SELECT count(*) FROM key_envelopes e JOIN pouches p ON p.id = e.pouch_id WHERE p.account_id = '${accountId()}'`));
const requestStatus = (id) => sql(`SELECT status FROM cli_login_requests WHERE id = '${id}'`);

// Onboarding and the member device X (a real `pouch`, approved in the page): set-up, no attack.
await scenario('setup_account_and_member_device', [], async () => {
  const email = `hostile.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`;
  await page.goto(`${PROXY}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('correct horse battery');
  await page.getByRole('button', { name: 'Sign up' }).click();
  await page.getByRole('button', { name: 'Make my keys' }).click();
  await page.getByRole('button', { name: 'Download recovery kit' }).click();
  await page.getByLabel('I have saved the recovery kit').check();
  await page.getByRole('button', { name: 'Create my account' }).click();
  await page.getByRole('link', { name: 'Pouch 1' }).waitFor({ timeout: 30000 });
  S.token = await page.evaluate(() => localStorage.getItem('pouch.session'));
  S.account = (await apiAs(token(), 'GET', '/v1/account')).json.data;
  S.pouch = (await apiAs(token(), 'GET', '/v1/pouches')).json.data.items[0];
  const x = await realLogin('member-x');
  await page.goto(x.link);
  await typeCodeAndApprove(page, x.code);
  const rc = await exitOf(x);
  if (rc !== 0) throw new Error(`the member device's login exited ${rc}: ${x.out().slice(-300)}`);
  S.x = { cfg: x.cfg, member: JSON.parse(fs.readFileSync(path.join(x.cfg, 'device.json'), 'utf8')).member_id };
});
const SETUP = ['setup_account_and_member_device'];

// A phisher sends a person an approval link of a login it started itself, without a connect
// token. The page must show the key fingerprint the terminal shows, when and where the login
// started, and warn plainly; a login bound by a connect token carries no such warning.
await scenario('approval_page_shows_the_fingerprint_and_warns_without_a_connect_token', SETUP, async (expect) => {
  const l = await realLogin('phished-box');
  const jkt = JSON.parse(pouchctl('jwk', '--key', path.join(l.cfg, 'sign.pem'))).jkt;
  await page.goto(l.link);
  await page.getByTestId('fingerprint').waitFor({ timeout: 30000 });
  const text = await page.locator('body').innerText();
  expect(`the page shows the device key fingerprint ${fingerprint(jkt)}`, text.includes(fingerprint(jkt)));
  expect('the terminal shows the same fingerprint', l.out().includes(fingerprint(jkt)));
  expect('the page warns that no connect token started this login', /not started with a connect token/i.test(text));
  expect('the page says where the login started (127.0.0.1)', text.includes('127.0.0.1'));
  const d = (await apiAs(token(), 'GET', `/v1/cli-auth/requests/${l.request}`)).json.data;
  expect(`the details say connect_token_used false (got ${d.connect_token_used})`, d.connect_token_used === false);
  expect(`the details name the start address (got ${d.started_ip})`, d.started_ip === '127.0.0.1');
  await page.getByRole('button', { name: 'Deny' }).click();
  expect('the denied login ends with exit 6', (await exitOf(l)) === 6);

  const t = (await apiAs(token(), 'POST', '/v1/cli-auth/connect-tokens')).json.data.connect_token;
  const b = await realLogin('bound-box', ['--connect-token', t]);
  const jktB = JSON.parse(pouchctl('jwk', '--key', path.join(b.cfg, 'sign.pem'))).jkt;
  await page.goto(b.link);
  await page.getByTestId('fingerprint').waitFor({ timeout: 30000 });
  const textB = await page.locator('body').innerText();
  expect('a login bound by a connect token is not warned about', !/not started with a connect token/i.test(textB));
  expect('and shows its own fingerprint', textB.includes(fingerprint(jktB)));
  const dB = (await apiAs(token(), 'GET', `/v1/cli-auth/requests/${b.request}`)).json.data;
  expect(`its details say connect_token_used true (got ${dB.connect_token_used})`, dB.connect_token_used === true);
  await page.getByRole('button', { name: 'Deny' }).click();
  await exitOf(b);
});

// The server swaps keys at approval: the link the terminal printed lost its key fragment (the
// server appended "#x" to authorize_url, or sent no fragment at all), the details it serves carry
// the attacker's own login (its keys and thumbprint) under an id D it ground so that the page's
// code equals the one the terminal shows. Today the page takes the details' keys, the codes
// match, and the browser adds the attacker's keys to the roster and seals every pouch key to them.
await scenario('approval_page_never_approves_keys_its_link_does_not_carry', SETUP, async (expect) => {
  const victimSign = keypair('victim-sign');
  const victimEnc = keypair('victim-enc');
  const keys = [victimSign.jwk.x, victimSign.jwk.y, victimEnc.jwk.x, victimEnc.jwk.y].join('.');
  const variants = {
    'the server appended #x': `#x#keys=${keys}`,
    'no fragment': '',
    'a valid fragment, other keys in the details': `#keys=${keys}&n=${nodeCrypto.randomBytes(16).toString('base64url')}`,
  };
  for (const [what, fragment] of Object.entries(variants)) {
    const a = await attackerRequest('attacker-box');
    const g = grind(victimSign.jkt, a.sign.jkt);
    rules([
      { name: 'details_of_the_attacker', method: 'GET', path: `/v1/cli-auth/requests/${g.shown}`, caller: 'web',
        request_path_sub: [g.shown, a.id], json_set: { '/data/id': g.named } },
      { name: 'approve_the_attacker', method: 'POST', path: `/v1/cli-auth/requests/${g.named}/(approve|deny)`,
        request_path_sub: [g.named, a.id],
        request_body_sub: [['"confirm_code":"[0-9-]*"', `"confirm_code":"${code1(a.id, a.sign.jkt)}"`]] },
    ]);
    const roster = rosterCount();
    const envs = envelopeCount();
    markLog();
    await page.goto(`${PROXY}/cli/approve?request=${g.shown}${fragment}`);
    await expectRefused(page, expect, what);
    await typeCodeAndApprove(page, g.code);
    expect(`${what}: the page was served the attacker's details (${served('details_of_the_attacker')} times)`, served('details_of_the_attacker') > 0);
    expect(`${what}: no approval was sent (${approvalsSent()})`, approvalsSent() === 0);
    expect(`${what}: the attacker's login is not approved (${requestStatus(a.id)})`, requestStatus(a.id) === 'pending');
    expect(`${what}: no roster statement added`, rosterCount() === roster);
    expect(`${what}: no key envelope sealed`, envelopeCount() === envs);
    expect(`${what}: no device holds the attacker's key`, sql(`SELECT count(*) FROM devices WHERE sign_jkt = '${a.sign.jkt}'`) === '0');
    rules([]);
  }
});

// The details name another request than the link: the server shows the victim's own keys (they
// are in the link anyway) and thumbprint, but the id D of the attacker's pending login, ground so
// that the codes match. Today the page approves D, which the server maps to the attacker's login:
// a device for the attacker's DPoP key in the victim's account.
await scenario('approval_page_refuses_the_details_of_another_request', SETUP, async (expect) => {
  const victimSign = keypair('victim-sign');
  const victimEnc = keypair('victim-enc');
  const a = await attackerRequest('attacker-box-2');
  const g = grind(victimSign.jkt, victimSign.jkt);
  rules([
    { name: 'details_of_another_request', method: 'GET', path: `/v1/cli-auth/requests/${g.shown}`, caller: 'web',
      request_path_sub: [g.shown, a.id],
      json_set: { '/data/id': g.named, '/data/sign_jkt': victimSign.jkt, '/data/sign_pub': victimSign.jwk, '/data/enc_pub': victimEnc.jwk } },
    { name: 'approve_the_other_request', method: 'POST', path: `/v1/cli-auth/requests/${g.named}/(approve|deny)`,
      request_path_sub: [g.named, a.id],
      request_body_sub: [['"confirm_code":"[0-9-]*"', `"confirm_code":"${code1(a.id, a.sign.jkt)}"`]] },
  ]);
  const roster = rosterCount();
  const envs = envelopeCount();
  const keys = [victimSign.jwk.x, victimSign.jwk.y, victimEnc.jwk.x, victimEnc.jwk.y].join('.');
  markLog();
  await page.goto(`${PROXY}/cli/approve?request=${g.shown}#keys=${keys}&n=${nodeCrypto.randomBytes(16).toString('base64url')}`);
  await expectRefused(page, expect, 'details naming another request');
  await typeCodeAndApprove(page, g.code);
  expect(`the page was served the other request's details (${served('details_of_another_request')} times)`, served('details_of_another_request') > 0);
  expect(`no approval was sent (${approvalsSent()})`, approvalsSent() === 0);
  expect(`the other request stays pending (${requestStatus(a.id)})`, requestStatus(a.id) === 'pending');
  expect('no key envelope sealed', envelopeCount() === envs);
  expect('no roster statement added', rosterCount() === roster);
  expect('no device holds the attacker\'s key', sql(`SELECT count(*) FROM devices WHERE sign_jkt = '${a.sign.jkt}'`) === '0');
});

// The server lists, as this member's envelopes of pouch P, an envelope of another pouch Q (its
// real key for this member) or one that names another member (sealed to this member by X).
// Today the web app takes either as P's key and uploads under it.
await scenario('web_app_checks_each_key_envelopes_pouch_and_member', SETUP, async (expect) => {
  await page.goto(`${PROXY}/pouches`);
  await page.getByRole('button', { name: 'New pouch' }).click();
  await waitFor('a second pouch', async () => (await apiAs(token(), 'GET', '/v1/pouches')).json.data.items.length === 2);
  const q = (await apiAs(token(), 'GET', '/v1/pouches')).json.data.items.find((p) => p.id !== S.pouch.id);
  const qEnvs = (await apiAs(token(), 'GET', `/v1/pouches/${q.id}/key-envelopes?member_id=${S.account.member_id}`)).json.data.items;
  const forged = JSON.parse(attacker('envelope', '--config', S.x.cfg, '--pouch', S.pouch.id, '--key-gen', String(S.pouch.key_gen),
    '--key-of-gen', String(S.pouch.key_gen), '--to-genesis', '--member-label', S.x.member));
  const variants = { 'an envelope of another pouch': qEnvs, 'an envelope naming another member': [forged] };
  for (const [what, items] of Object.entries(variants)) {
    rules([{ name: 'envelopes', method: 'GET', path: `/v1/pouches/${S.pouch.id}/key-envelopes`, caller: 'web', json_set: { '/data/items': items } }]);
    markLog();
    await openPouch(page, S.pouch.id);
    await expectWritesOff(page, expect, what);
    expect(`${what}: the page was served the forged list (${served('envelopes')} times)`, served('envelopes') > 0);
    await page.locator('#upload').setInputFiles({ name: 'swapped.txt', mimeType: 'text/plain', buffer: Buffer.from(what) }, { timeout: 5000 }).catch(() => {});
    await sleep(1000);
    expect(`${what}: nothing was committed under that key (${opsSent(S.pouch.id)} ops sent)`, opsSent(S.pouch.id) === 0);
  }
});

// A member's content names a blob id that is a path: the web app must not put it into a URL.
await scenario('web_app_never_puts_a_blob_id_from_content_into_a_url', SETUP, async (expect) => {
  const z = Buffer.alloc(32).toString('base64url');
  const h = nodeCrypto.randomBytes(32).toString('base64url');
  const traps = [];
  for (const [name, blob] of [['trap.bin', '../../../account?hostile=web'], ['trap2.bin', 'x?hostile=web2']]) {
    const made = JSON.parse(attacker('revision', '--config', S.x.cfg, '--pouch', S.pouch.id, '--name', name, '--commit',
      '--chunks', JSON.stringify([{ blob_id: blob, size: 70000, key: z, hash: h }])));
    traps.push({ name, id: made.op.artifact_id });
  }
  markLog();
  await openPouch(page, S.pouch.id);
  // Each trap either shows as a file that cannot be opened (its row names its id) or has a
  // Download button, pressed: either way it reached the page, whichever way the page refuses it.
  const shown = (t) => page.locator('td.error', { hasText: `(${t.id.slice(0, 8)})` })
    .or(page.getByRole('button', { name: `Download ${t.name}`, exact: true }));
  await waitFor('both traps listed', async () => (await shown(traps[0]).count()) + (await shown(traps[1]).count()) === 2, 30000)
    .catch(() => {});
  for (const t of traps) {
    expect(`the page lists ${t.name}`, (await shown(t).count()) === 1);
    const b = page.getByRole('button', { name: `Download ${t.name}`, exact: true });
    if (await b.count()) {
      await b.click({ timeout: 3000 }).catch(() => {});
      await page.getByRole('alert').first().waitFor({ timeout: 5000 }).catch(() => {});
    }
  }
  const hits = logSince().filter((r) => r.path.includes('hostile='));
  expect(`no request carried the content's blob id (${hits.map((r) => r.path).join(', ')})`, hits.length === 0);
});

// After a device was revoked the pouch is at key_gen 2 and this browser has written under it.
// The server then names key_gen 1 again, a key the revoked device still holds.
await scenario('web_app_refuses_a_rolled_back_key_generation', SETUP, async (expect) => {
  const spare = await realLogin('spare-box');
  await page.goto(spare.link);
  await typeCodeAndApprove(page, spare.code);
  if ((await exitOf(spare)) !== 0) throw new Error(`the spare device's login failed: ${spare.out().slice(-300)}`);
  await page.goto(`${PROXY}/devices`);
  await page.getByRole('button', { name: 'Revoke spare-box' }).click();
  const gen = async () => (await apiAs(token(), 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
  await waitFor('the rotation to key_gen 2', async () => (await gen()) === 2);
  await openPouch(page, S.pouch.id);
  await page.locator('#upload').setInputFiles({ name: 'gen2.txt', mimeType: 'text/plain', buffer: Buffer.from('written under generation 2') });
  await page.getByRole('cell', { name: 'gen2.txt', exact: true }).waitFor({ timeout: 30000 });
  const revs = Number(sql(`SELECT count(*) FROM revisions WHERE pouch_id = '${S.pouch.id}'`));
  rules([
    { name: 'rollback', method: 'GET', path: `/v1/pouches/${S.pouch.id}`, caller: 'web', json_set: { '/data/key_gen': 1 } },
    { name: 'rollback_list', method: 'GET', path: '/v1/pouches', caller: 'web',
      response_body_sub: [[`("id":"${S.pouch.id}"[^{}]*?"key_gen":)[0-9]+`, '\\g<1>1']] },
  ]);
  markLog();
  await openPouch(page, S.pouch.id);
  await expectWritesOff(page, expect, 'a rolled-back generation');
  expect(`the page was served key_gen 1 (${served('rollback')} times)`, served('rollback') > 0);
  await page.locator('#upload').setInputFiles({ name: 'rolled.txt', mimeType: 'text/plain', buffer: Buffer.from('after the rollback') }, { timeout: 5000 }).catch(() => {});
  await sleep(1000);
  expect(`no op under key_gen 1 left the browser (${opsSent(S.pouch.id, 1)} sent)`, opsSent(S.pouch.id, 1) === 0);
  expect(`nor any other: nothing is written to a rolled-back pouch (${opsSent(S.pouch.id)} sent)`, opsSent(S.pouch.id) === 0);
  expect('nothing was stored', Number(sql(`SELECT count(*) FROM revisions WHERE pouch_id = '${S.pouch.id}'`)) === revs);
});

// A device is revoked (its removal names rotated_to = the generation the rotation moves to);
// its keys leak. With the server, it offers this browser its own key for that generation (an
// envelope it signed while still a member, listed before the browser's own) and a revision
// under that key. The web app must refuse both, keep writing under the account's real key, and
// still read what the device wrote while it was a member.
await scenario('web_app_refuses_envelopes_and_revisions_of_a_removed_member', SETUP, async (expect) => {
  const r = await realLogin('removed-box');
  await page.goto(r.link);
  await typeCodeAndApprove(page, r.code);
  if ((await exitOf(r)) !== 0) throw new Error(`the device's login failed: ${r.out().slice(-300)}`);
  const gen = async () => (await apiAs(token(), 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
  const next = (await gen()) + 1;
  // What it wrote as a member stays readable (its generation is below rotated_to).
  attacker('revision', '--config', r.cfg, '--pouch', S.pouch.id, '--name', 'before-removal.txt', '--data', 'written before the removal', '--commit');
  const key = nodeCrypto.randomBytes(32).toString('hex');
  const env = JSON.parse(attacker('envelope', '--config', r.cfg, '--pouch', S.pouch.id, '--key-gen', String(next), '--key', key, '--to-genesis'));
  const op = JSON.parse(attacker('revision', '--config', r.cfg, '--pouch', S.pouch.id, '--key-gen', String(next), '--key', key,
    '--name', 'planted-by-removed.txt', '--data', 'from a removed member'));
  await page.goto(`${PROXY}/devices`);
  await page.getByRole('button', { name: 'Revoke removed-box' }).click();
  await waitFor(`the rotation to key_gen ${next}`, async () => (await gen()) === next);
  const removal = JSON.parse(Buffer.from(sql(`SELECT statement FROM roster_entries WHERE account_id = '${accountId()}' ORDER BY idx DESC LIMIT 1`), 'base64url').toString());
  expect(`the removal names rotated_to ${next} (${removal.kind} ${removal.rotated_to})`, removal.kind === 'remove' && removal.rotated_to === next);
  rules([
    { name: 'envelope_by_removed', method: 'GET', path: `/v1/pouches/${S.pouch.id}/key-envelopes`, caller: 'web',
      json_append_copy: [{ to: '/data/items', from: '/data/items/0', at: 0,
        set: { '/pouch_id': env.pouch_id, '/member_id': env.member_id, '/key_gen': env.key_gen, '/hpke_enc': env.hpke_enc,
          '/ciphertext': env.ciphertext, '/created_by_member': env.created_by_member, '/signature': env.signature } }] },
    { name: 'revision_by_removed', method: 'GET', path: `/v1/pouches/${S.pouch.id}/artifacts`, caller: 'web',
      json_append_copy: [{ to: '/data/items', from: '/data/items/0',
        set: { '/id': op.artifact_id, '/head/id': op.revision_id, '/head/artifact_id': op.artifact_id, '/head/envelope': op.envelope,
          '/head/signature': op.signature, '/head/key_gen': next, '/head/signer_member_id': op.signer_member_id } }] },
  ]);
  markLog();
  await openPouch(page, S.pouch.id);
  const planted = page.locator('td.error', { hasText: `(${op.artifact_id.slice(0, 8)})` });
  await planted.waitFor({ timeout: 30000 }).catch(() => {});
  expect(`the page was served the removed member's envelope (${served('envelope_by_removed')}) and revision (${served('revision_by_removed')})`,
    served('envelope_by_removed') > 0 && served('revision_by_removed') > 0);
  expect('its revision is shown as a file that cannot be opened', (await planted.count()) === 1);
  expect('and offered for download nowhere', (await page.getByRole('button', { name: 'Download planted-by-removed.txt' }).count()) === 0);
  expect('what it wrote before its removal still opens', (await page.getByRole('cell', { name: 'before-removal.txt', exact: true }).count()) === 1);
  expect('the page does not refuse to write (the account\'s own key is there)', (await page.getByTestId('write-blocked').count()) === 0);
  await page.locator('#upload').setInputFiles({ name: 'after-removal.txt', mimeType: 'text/plain', buffer: Buffer.from('the browser\'s secret') });
  await page.getByRole('cell', { name: 'after-removal.txt', exact: true }).waitFor({ timeout: 30000 });
  expect(`the upload is stored under generation ${next}`,
    sql(`SELECT r.key_gen FROM revisions r WHERE r.pouch_id = '${S.pouch.id}' ORDER BY r.seq DESC LIMIT 1`) === String(next));
  rules([]);
  // The member device X (not revoked) holds the real key of that generation, not the forged one:
  // it reads the upload only if the browser sealed it under the real key.
  const into = path.join(DIR, 'x-pull');
  fs.rmSync(into, { recursive: true, force: true });
  try {
    execFileSync(path.join(BIN, 'pouch'), ['pull', into], { env: { ...process.env, XDG_CONFIG_HOME: path.dirname(S.x.cfg) }, stdio: 'pipe' });
  } catch (e) {
    if (e.status !== 7) throw new Error(`X's pull exited ${e.status}: ${String(e.stderr).slice(-300)}`);  // 7: the traps of an earlier scenario
  }
  const got = fs.existsSync(path.join(into, 'after-removal.txt')) ? fs.readFileSync(path.join(into, 'after-removal.txt'), 'utf8') : '(missing)';
  expect(`the upload opens with the account's real key (X read: ${got})`, got === 'the browser\'s secret');
});

await browser.close();
console.log('HOSTILE END');
process.exit(failed ? 1 : 0);
