#!/usr/bin/env node
// web.mjs -- the web app's row of `make bench` (issue 25 row 5): in one Chromium page (Debian's
// /usr/bin/chromium, headless), a new account uploads a file of random bytes through the app's
// own upload path (its "Upload files" input, as a person picks a file) and downloads it
// through its own download path (the file's Download button), each timed in the page; beside
// them, in the same page, a plain `fetch` PUT of the same File and a plain `fetch` GET of the
// same bytes against the same nginx. A probe on the main thread (a 10 ms timer) records the
// longest gap between its runs during the app's upload and download.
//
//   node tools/bench/web.mjs --url http://127.0.0.1:PORT [--size-mib 100] [--rounds 1]
//                            --out FILE.json [--shots DIR]
//
// The stack must serve the baseline's /_bench/data (a WebDAV PUT, answered once the whole body
// is read, and a GET of what was put): start it with POUCH_BENCH_ROUTES=1 (tools/stack/lib.sh);
// rate limits off (it signs up one account). Writes, also on failure,
//   {"upload_ms","fetch_put_ms","download_ms","fetch_get_ms","max_main_thread_block_ms",
//    "crypto_ms","crypto_hash_ms","cdc_ms","read_cut_ms","seal_put_ms",
//    "seal_service_ms","fetch_open_service_ms","cpu_ms","cores","ref_error","ok","error"}
// (ms, integers; with --rounds N, N files of their own, each figure the median of the rounds;
// max_main_thread_block_ms is the longest gap between the probe's runs in any round, the
// 10 ms period included) and exits 0 once it is written, 2 on bad arguments. The upload is
// timed from the input's change event to the answer of its commit; the download from the
// button's click to the Blob the app hands the browser, whose bytes are then compared with
// the file's. Playwright (playwright-core from tests/browser's lock file, installed into
// BUILD/browser-node as the browser suite does; BUILD: default build) onboards the account,
// then disconnects: the timed part runs over a bare DevTools session, as Playwright's network
// instrumentation copies every request body to the client (~1 s per 4 MiB PUT, not ~20 ms).
// The reference figures bound the app's upload from below on this machine (issue 25 row 5's
// closing note). They are measured in the same page after the rounds (reloaded with its CSP
// off, DevTools' Page.setBypassCSP, for workers from blob: scripts), once per round (medians),
// on the last round's file (read back from /_bench/data) cut as the app cuts it, with as many
// workers and chunks in flight as chunks.js (its pool size, its PIPELINE):
//   crypto_ms       each chunk AES-256-GCM-sealed by WebCrypto in workers of its own
//                   (importKey + encrypt, as primitives.js aesGcmSeal), no network;
//   crypto_hash_ms  the app's own worker (/chunk-worker.js, op "seal": AES-GCM and BLAKE3 of
//                   the plaintext and of the sealed bytes) on the same chunks, no network;
//   cdc_ms          crypto/cdc.js's content-defined cut of the whole file on the page's main
//                   thread, as the app runs it (overlapping the workers);
//   read_cut_ms     the same cut of the file on disk (a file input of its own), read as
//                   sealFile reads it (its byob stream, 4 MiB windows), cut here on the main
//                   thread where the app cuts in a worker of its own;
//   seal_put_ms     crypto_hash_ms's sealing, each sealed chunk then PUT by a worker (the
//                   app's "put" op, XMLHttpRequest) to the baseline's /_bench/data: the app's
//                   client side of the upload without the service's blob check, store, commit;
//   seal_service_ms seal_put_ms with the service's blob path instead of /_bench/data: each
//                   blob checked (batched as vault.js blobChecker does) and PUT to the pouch
//                   (the blobs stay uncommitted: 100 MiB a round more of the plan's 1 GiB);
//   fetch_open_service_ms  those blobs, just stored, fetched back from the service (its blob
//                   GET: auth, then nginx sends the file) and opened by the app's own worker
//                   (op "fetch-open": BLAKE3 of the stored bytes, AES-GCM open, BLAKE3 of the
//                   plaintext), as many in flight: the download without the page's writing of
//                   the file.
// 0 when not measured; their failure is ref_error's, not "ok"'s (the app's figures stand).
// cpu_ms: the whole machine's CPU time (all cores, /proc/stat sampled every 5 ms; the page
// and this script share the wall clock) during each of the above, medians like them:
//   {upload, fetch_put, download, fetch_get, read_cut, crypto, crypto_hash, seal_put,
//    seal_service, fetch_open_service}, and cores: how many the machine has. Where a figure
// is near its span times the cores the machine was busy throughout: the time is its CPU's.
// --shots DIR saves screenshots of the upload's progress and the end (a screenshot holds the
// main thread: the probe's figure then counts it).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

// Node 20 has its WebSocket client behind a flag (Node 22 has it on).
if (typeof WebSocket === 'undefined') {
  const again = spawnSync(process.execPath, ['--experimental-websocket', ...process.argv.slice(1)], { stdio: 'inherit' });
  process.exit(again.status ?? 1);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function usage(msg) {
  console.error(`web.mjs: ${msg}\nusage: node tools/bench/web.mjs --url URL [--size-mib N] [--rounds N] --out FILE.json [--shots DIR]`);
  process.exit(2);
}

const args = { sizeMib: 100, rounds: 1 };
for (let i = 2; i < process.argv.length; i += 2) {
  const [k, v] = [process.argv[i], process.argv[i + 1]];
  if (v === undefined) usage(`${k} needs a value`);
  if (k === '--url') args.url = v.replace(/\/$/, '');
  else if (k === '--size-mib') args.sizeMib = Number(v);
  else if (k === '--out') args.out = v;
  else if (k === '--shots') args.shots = v;
  else if (k === '--rounds') args.rounds = Number(v);
  else usage(`unknown option ${k}`);
}
if (!args.url || !args.out) usage('--url and --out are required');
if (!Number.isInteger(args.sizeMib) || args.sizeMib < 1 || args.sizeMib > 1024) usage('--size-mib must be 1..1024');
if (!Number.isInteger(args.rounds) || args.rounds < 1 || args.rounds > 20) usage('--rounds must be 1..20');

const result = { upload_ms: 0, fetch_put_ms: 0, download_ms: 0, fetch_get_ms: 0, max_main_thread_block_ms: 0, crypto_ms: 0, crypto_hash_ms: 0, cdc_ms: 0, seal_put_ms: 0, read_cut_ms: 0, seal_service_ms: 0, fetch_open_service_ms: 0, cpu_ms: {}, cores: os.cpus().length, ref_error: '', ok: false, error: '' };
const writeResult = () => fs.writeFileSync(args.out, `${JSON.stringify(result)}\n`);
const say = (s) => console.error(`web.mjs: ${s}`);

// The machine's busy CPU time, sampled: [wall-clock ms, busy ms of all cores] every 5 ms
// (/proc/stat's cpu line less idle and iowait, in USER_HZ = 100 ticks a second).
const cpuSamples = [];
const busyMs = () => {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/).slice(1).map(Number);
  return (f[0] + f[1] + f[2] + f[5] + f[6] + f[7]) * 10;
};
const sampleCpu = () => cpuSamples.push([performance.timeOrigin + performance.now(), busyMs()]);
// The busy ms between wall-clock ms `from` and `to` (the last sample at or before each).
function cpuBetween([from, to]) {
  const at = (t) => {
    let v = null;
    for (const [when, busy] of cpuSamples) if (when <= t) v = busy; else break;
    return v;
  };
  const a = at(from), b = at(to);
  return a === null || b === null ? null : b - a;
}

// playwright-core as the browser suite pins it, installed the way run.sh installs it.
async function loadPlaywright() {
  const build = process.env.BUILD || 'build';
  const nodeDir = path.resolve(ROOT, build, 'browser-node');
  // (npm ci runs only when the folder's lock differs from tests/browser's.)
  execFileSync('sh', ['-c', '. "$1/tests/lib/node_env.sh" && node_env_install "$1/tests/browser" "$2"', 'sh', ROOT, nodeDir],
    { stdio: ['ignore', 2, 'inherit'], env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1' } });
  const resolved = createRequire(path.join(nodeDir, 'package.json')).resolve('playwright-core');
  const pw = await import(pathToFileURL(resolved).href);
  return pw.chromium ?? pw.default.chromium;
}

// In the page before the app: marks the app's own steps without changing them. The input's
// change event (capture phase, before the app reads and clears the input) starts the upload
// and keeps the File; the answer to the commit (POST …/operations) ends it; the Blob the app
// makes for a download ends that. A 10 ms timer records when it ran.
function instrument() {
  const B = { marks: {}, file: null, blobs: [], ticks: [] };
  window.__bench = B;
  document.addEventListener('change', (e) => {
    if (e.target?.id === 'upload' && e.target.files?.length) {
      B.file = e.target.files[0];
      B.marks.uploadStart = performance.now();
    }
  }, true);
  const realFetch = window.fetch;
  window.fetch = async function benchFetch(input, init) {
    const res = await realFetch.call(this, input, init);
    const url = typeof input === 'string' ? input : input?.url || '';
    if (init?.method === 'POST' && /\/v1\/pouches\/[^/]+\/operations$/.test(url) && res.ok && B.marks.committed === undefined) {
      B.marks.committed = performance.now();
    }
    return res;
  };
  const realCreate = URL.createObjectURL;
  URL.createObjectURL = function benchCreate(obj) {
    if (obj instanceof Blob) B.blobs.push({ t: performance.now(), blob: obj });
    return realCreate.call(this, obj);
  };
  const tick = () => {
    B.ticks.push(performance.now());
    setTimeout(tick, 10);
  };
  tick();
}

// Debian's chromium, headless, with a DevTools port; its own calls to outside hosts go to a
// proxy that is not there (loopback, the stack, is never proxied), as in tests/browser.
async function startChromium(dir) {
  const child = spawn('/usr/bin/chromium', ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--proxy-server=http://127.0.0.1:9',
    '--window-size=1100,760', '--remote-debugging-port=0', `--user-data-dir=${path.join(dir, 'profile')}`, 'about:blank'],
  { stdio: ['ignore', 'ignore', 'pipe'] });
  const port = await new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error('chromium did not open its DevTools port in 30 s')), 30000);
    child.stderr.on('data', (d) => {
      text += d;
      const m = text.match(/DevTools listening on ws:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => reject(new Error(`chromium exited (${code}): ${text.slice(-300)}`)));
  });
  child.stderr.resume();
  return { child, port };
}

// A bare DevTools session on one page: only the domains it is told to enable. (Playwright
// enables the Network domain, which hands every request body to the client: a 4 MiB PUT then
// takes ~1 s instead of ~20 ms, so the timed part runs without it.)
class Cdp {
  static async open(url) {
    const ws = new WebSocket(url);
    await new Promise((resolve, reject) => {
      ws.addEventListener('open', resolve, { once: true });
      ws.addEventListener('error', () => reject(new Error(`cannot open ${url}`)), { once: true });
    });
    return new Cdp(ws);
  }

  constructor(ws) {
    this.ws = ws;
    this.nextId = 1;
    this.pending = new Map();
    this.exceptions = [];
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(e.data);
      if (m.id && this.pending.has(m.id)) {
        const { resolve, reject } = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.error) reject(new Error(`${m.error.message} ${m.error.data || ''}`));
        else resolve(m.result);
      } else if (m.method === 'Runtime.exceptionThrown') {
        this.exceptions.push(m.params.exceptionDetails?.exception?.description || m.params.exceptionDetails?.text);
      }
    });
  }

  send(method, params = {}) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  // The value of an expression (a promise is awaited), as JSON.
  async eval(expression) {
    const r = await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true });
    if (r.exceptionDetails) throw new Error(`in the page: ${r.exceptionDetails.exception?.description || r.exceptionDetails.text}`);
    return r.result.value;
  }

  // Polls `expression` every 50 ms until it is truthy; a page error box ends the wait.
  async until(expression, what, timeoutMs) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const [value, alert] = await this.eval(`[${expression}, document.querySelector('[role=alert]')?.textContent || null]`);
      if (value) return value;
      if (alert) throw new Error(`the page shows an error while waiting for ${what}: ${alert}`);
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close() { this.ws.close(); }
}

// A new account, onboarded by Playwright as tests/browser does (its first pouch is made at
// genesis), left on that pouch's page; then Playwright disconnects.
async function onboard(chromium, port) {
  const browser = await chromium.connectOverCDP(`http://127.0.0.1:${port}`);
  try {
    const ctx = browser.contexts()[0];
    const page = ctx.pages()[0] || (await ctx.newPage());
    page.on('dialog', (d) => d.accept());
    await page.goto(`${args.url}/signup`);
    await page.getByLabel('Email').fill(`bench.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('button', { name: 'Make my keys' }).click();
    await page.getByTestId('recovery-code').waitFor();
    await page.getByRole('button', { name: 'Download recovery kit' }).click();
    await page.getByLabel('I have saved the recovery kit').check();
    await page.getByRole('button', { name: 'Create my account' }).click();
    await page.getByRole('link', { name: 'Pouch 1' }).click();
    await page.getByText('live updates on').waitFor({ timeout: 30000 });
  } finally {
    await browser.close();
  }
}

// One round: `file` uploaded and downloaded through the app, then PUT and fetched back plainly.
async function measure(cdp, file, size) {
  const name = path.basename(file);
  // A second of the page idle first: the probe's longest gap then is the machine's share
  // (another process holding the core), printed beside the figures for comparison.
  await cdp.eval('window.__bench.marks = { idleStart: performance.now() }');
  await new Promise((r) => setTimeout(r, 1000));
  await cdp.eval('window.__bench.marks.idleEnd = performance.now()');
  const shot = async (what) => {
    if (!args.shots) return;
    const { data } = await cdp.send('Page.captureScreenshot', { format: 'png' });
    fs.writeFileSync(path.join(args.shots, `web-bench-${what}.png`), Buffer.from(data, 'base64'));
  };

  // The app's upload: the file picked in its input, until its commit is answered.
  say(`uploading ${name} (${size} bytes) through the app`);
  const { root } = await cdp.send('DOM.getDocument');
  const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#upload' });
  if (!nodeId) throw new Error('the pouch page has no #upload input');
  await cdp.send('DOM.setFileInputFiles', { nodeId, files: [file] });
  if (args.shots) {
    await cdp.until('document.querySelector("progress[value]")?.value > 0', 'the upload progress', 60000);
    await shot('upload');
  }
  await cdp.until('window.__bench.marks.committed !== undefined', 'the commit of the upload', 600000);
  await cdp.until(`[...document.querySelectorAll('td')].some((td) => td.textContent === ${JSON.stringify(name)})
    && !!document.querySelector('label.button.primary:not(.disabled)')`, 'the uploaded file in the list', 60000);

  // The app's download: its button, until the Blob it hands the browser.
  say('downloading through the app');
  const clicked = await cdp.eval(`(() => {
    const b = document.querySelector(${JSON.stringify(`button[aria-label="Download ${name}"]`)});
    if (!b) return false;
    window.__bench.blobs = [];
    window.__bench.marks.downloadStart = performance.now();
    b.click();
    return true;
  })()`);
  if (!clicked) throw new Error(`no button "Download ${name}"`);
  await cdp.until('window.__bench.blobs.length > 0', 'the downloaded file', 600000);
  await shot('downloaded');

  // The baseline, in the same page: the same File PUT with fetch, its bytes fetched back.
  say('plain fetch PUT and GET');
  return cdp.eval(`(async (expected) => {
    const B = window.__bench;
    const gapIn = (from, to) => {
      let max = 0;
      for (let i = 1; i < B.ticks.length; i++) {
        if (B.ticks[i] >= from && B.ticks[i - 1] <= to) max = Math.max(max, B.ticks[i] - B.ticks[i - 1]);
      }
      return max;
    };
    const same = async (a, b) => {
      const x = new Uint8Array(await a.arrayBuffer());
      const y = new Uint8Array(await b.arrayBuffer());
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
      return true;
    };
    const E = (x) => performance.timeOrigin + x;
    const out = {
      spans: {
        upload: [E(B.marks.uploadStart), E(B.marks.committed)],
        download: [E(B.marks.downloadStart), E(B.blobs[0].t)],
      },
      upload: B.marks.committed - B.marks.uploadStart,
      download: B.blobs[0].t - B.marks.downloadStart,
      blockUpload: gapIn(B.marks.uploadStart, B.marks.committed),
      blockDownload: gapIn(B.marks.downloadStart, B.blobs[0].t),
      blockIdle: gapIn(B.marks.idleStart, B.marks.idleEnd),
      fileSize: B.file.size,
      downloadedSame: await same(B.blobs[0].blob, B.file),
    };
    let t = performance.now();
    const put = await fetch('/_bench/data', { method: 'PUT', body: B.file, cache: 'no-store' });
    out.fetchPut = performance.now() - t;
    out.spans.fetch_put = [E(t), E(t + out.fetchPut)];
    out.putStatus = put.status;
    t = performance.now();
    const got = await fetch('/_bench/data', { cache: 'no-store' });
    const bytes = await got.arrayBuffer();
    out.fetchGet = performance.now() - t;
    out.spans.fetch_get = [E(t), E(t + out.fetchGet)];
    out.getStatus = got.status;
    out.getSize = bytes.byteLength;
    out.fetchedSame = out.getSize === expected && (await same(new Blob([bytes]), B.file));
    return out;
  })(${size})`);
}

// In the page, after the rounds: the reference figures (the header) on the last round's file
// (what its plain PUT left at /_bench/data, `expected` bytes; the same file is in the input
// #bench-ref-file), the four worker runs in one order (aesFirst) or the reverse. chunks.js's
// pool size and PIPELINE are copied here; cdcCut is crypto/cdc.js's (window.__benchCdcCut).
// → {cdc, readCut, crypto, cryptoHash, sealPut, sealService, fetchOpenService} in ms, and the
// chunk count.
async function references(aesFirst, expected) {
  const POOL = Math.min(4, Math.max(2, navigator.hardwareConcurrency || 2));  // chunks.js workers()
  const PIPELINE = 8;                                                          // chunks.js PIPELINE
  const WINDOW = 4194304;                                                      // CDC_MAX
  const cdcCut = window.__benchCdcCut;
  // (Read once: the sealed chunks' PUTs below then overwrite /_bench/data.)
  window.__benchBytes ??= new Uint8Array(await (await fetch('/_bench/data', { cache: 'no-store' })).arrayBuffer());
  const bytes = window.__benchBytes;
  if (bytes.length !== expected) throw new Error(`GET /_bench/data answered ${bytes.length} bytes, not ${expected}`);
  // The cut of the whole file, as sealFile makes it (a window of min(4 MiB, the rest) each time).
  let t = performance.now();
  const cuts = [];
  for (let at = 0; at < bytes.length;) {
    const cut = cdcCut(bytes.subarray(at, Math.min(bytes.length, at + WINDOW)));
    cuts.push([at, cut]);
    at += cut;
  }
  const cdc = performance.now() - t;
  // The same cut of the file as the page's input holds it (on disk), read as sealFile reads it:
  // its byob stream into a window of min(4 MiB, the rest) at a time, the bytes past a cut
  // copied into the next window.
  const file = document.getElementById('bench-ref-file').files[0];
  t = performance.now();
  const reader = file.stream().getReader({ mode: 'byob' });
  let rest = new Uint8Array(0);
  let readChunks = 0;
  for (let at = 0; at < file.size; readChunks++) {
    const len = Math.min(WINDOW, file.size - at);
    let buf = new Uint8Array(len);
    buf.set(rest);
    for (let k = rest.length; k < len;) {
      const { value, done } = await reader.read(new Uint8Array(buf.buffer, k, len - k));
      if (done) throw new Error('the file ended early');
      buf = new Uint8Array(value.buffer);
      k += value.length;
    }
    const cut = cdcCut(buf);
    rest = buf.slice(cut);
    at += cut;
  }
  const readCut = performance.now() - t;
  const E = (x) => performance.timeOrigin + x;
  const spans = { read_cut: [E(t), E(t + readCut)] };
  if (readChunks !== cuts.length) throw new Error(`the file read from disk cut into ${readChunks} chunks, not ${cuts.length}`);
  // Each chunk in a buffer of its own as sealFile hands it over: its window, the chunk first.
  const windows = () => cuts.map(([at, cut]) => ({ buffer: bytes.slice(at, Math.min(bytes.length, at + WINDOW)).buffer, size: cut }));
  // chunks.js's ChunkWorkers.run and sealFile's loop: the next chunk to the worker
  // with the fewest open, at most PIPELINE at once. → ms from the first post to the last answer.
  // With put, each sealed chunk is then PUT to /_bench/data by a worker (the app's "put" op,
  // XMLHttpRequest), as vault.js's send does through chunks.js putChunk, without the blob check.
  // With put === 'service', to the service instead, as vault.js sendChunks does: each sealed
  // chunk's blob checked (blobChecker: those sealed while a check is on its way go together in
  // the next), then PUT to /v1/pouches/{id}/blobs/{blob id} with the session's token.
  const pouchId = /^\/pouches\/([0-9a-f-]{36})$/i.exec(location.pathname)?.[1];
  const auth = { Authorization: `Bearer ${localStorage.getItem('pouch.session')}` };
  const checker = () => {
    const queue = [];
    let busy = false;
    const flush = async () => {
      busy = true;
      while (queue.length) {
        const batch = queue.splice(0, 1000);
        try {
          const res = await fetch(`/v1/pouches/${pouchId}/blobs/check`, {
            method: 'POST', headers: { ...auth, 'Content-Type': 'application/json' }, body: JSON.stringify({ blobs: batch.map((q) => q.blob) }),
          });
          if (res.status !== 200) throw new Error(`blobs/check answered ${res.status}: ${await res.text()}`);
          const answer = await res.json();
          const missing = new Set(answer.data?.missing);
          for (const q of batch) if (!missing.has(q.blob.id)) throw new Error(`blobs/check of ${JSON.stringify(batch.map((x) => x.blob))} answered ${JSON.stringify(answer)}`);
          for (const q of batch) q.resolve(missing.has(q.blob.id));
        } catch (e) {
          for (const q of batch) q.reject(e);
        }
      }
      busy = false;
    };
    return (blob) => new Promise((resolve, reject) => {
      queue.push({ blob, resolve, reject });
      if (!busy) flush();
    });
  };
  // The service's blobs that sealAll(…, 'service') stored, and the time to fetch and open them.
  let openedMs = 0;
  let lastSpan = null, openedSpan = null;
  const sealAll = async (url, put = false) => {
    const check = checker();
    const kept = [];
    const workers = Array.from({ length: POOL }, () => Object.assign(new Worker(url), { open: 0 }));
    const tasks = new Map();
    let nextId = 1;
    for (const w of workers) {
      w.onmessage = ({ data }) => {
        if (data.sent !== undefined || data.beat) return;  // progress, and the worker's beats
        const task = tasks.get(data.id);
        tasks.delete(data.id);
        task.w.open--;
        if (data.error !== undefined) task.reject(new Error(`${url}: ${data.error}`));
        else task.resolve(data);
      };
      w.onerror = (e) => { for (const task of tasks.values()) task.reject(new Error(`${url}: ${e.message}`)); };
    }
    const post = (message, transfer) => {
      const w = workers.reduce((a, b) => (b.open < a.open ? b : a));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        tasks.set(id, { w, resolve, reject });
        w.open++;
        w.postMessage({ ...message, id }, transfer);
      });
    };
    const run = async ({ buffer, size }, warm = false) => {
      const sealed = await post({ op: 'seal', buffer, size, reuse: [] }, [buffer]);
      const { stored } = sealed;
      if (!(stored instanceof ArrayBuffer)) throw new Error(`${url}: no sealed bytes`);
      const n = stored.byteLength;
      if (warm) return n;
      if (put === 'service') {
        if (!pouchId) throw new Error(`the page ${location.pathname} is no pouch's`);
        if (!(await check({ id: sealed.entry.blob_id, stored_size: n }))) throw new Error('blobs/check: a new blob is not missing');
        await post({ op: 'put', stored, url: `/v1/pouches/${pouchId}/blobs/${sealed.entry.blob_id}`, headers: auth }, [stored]);
        kept.push({ entry: sealed.entry, size });
      } else if (put) {
        await post({ op: 'put', stored, url: '/_bench/data', headers: {} }, [stored]);
      }
      return n;
    };
    try {
      // Each worker started and warmed (its script, hash-wasm's module) before the clock.
      await Promise.all(workers.map(() => run({ buffer: new ArrayBuffer(65536), size: 65536 }, true)));
      const chunks = windows();
      const start = performance.now();
      const live = new Set();
      let sealed = 0;
      for (const c of chunks) {
        while (live.size >= PIPELINE) await Promise.race(live);
        const p = run(c).then((n) => { sealed += n; });
        live.add(p);
        p.then(() => live.delete(p), () => live.delete(p));
      }
      await Promise.all(live);
      const ms = performance.now() - start;
      lastSpan = [E(start), E(start + ms)];
      if (sealed !== bytes.length + cuts.length * 28) throw new Error(`${url}: sealed ${sealed} bytes, not ${bytes.length} + 28 per chunk`);
      if (put === 'service') {
        // Back down, as many in flight, each opened by the app's worker (fetch-open).
        const begin = performance.now();
        const flight = new Set();
        let opened = 0;
        for (const { entry, size } of kept) {
          while (flight.size >= PIPELINE) await Promise.race(flight);
          const p = post({ op: 'fetch-open', url: `/v1/pouches/${pouchId}/blobs/${entry.blob_id}`, headers: auth, entry }, [])
            .then(({ blob }) => {
              if (blob?.size !== size) throw new Error(`fetch-open: ${blob?.size} bytes, not ${size}`);
              opened += size;
            });
          flight.add(p);
          p.then(() => flight.delete(p), () => flight.delete(p));
        }
        await Promise.all(flight);
        openedMs = performance.now() - begin;
        openedSpan = [E(begin), E(begin + openedMs)];
        if (opened !== bytes.length) throw new Error(`fetch-open: ${opened} bytes opened, not ${bytes.length}`);
      }
      return ms;
    } finally {
      for (const w of workers) w.terminate();
    }
  };
  // The AES-GCM of primitives.js aesGcmSeal alone (importKey, encrypt; nonce ‖ ciphertext as
  // format.js sealChunk stores it), in workers of its own.
  const aesWorker = URL.createObjectURL(new Blob([`
    const aad = new TextEncoder().encode('pouch/chunk/v1');
    self.onmessage = async ({ data: { id, buffer, size } }) => {
      try {
        const key = crypto.getRandomValues(new Uint8Array(32));
        const nonce = crypto.getRandomValues(new Uint8Array(12));
        const k = await crypto.subtle.importKey('raw', key, 'AES-GCM', false, ['encrypt']);
        const ct = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce, additionalData: aad, tagLength: 128 }, k, new Uint8Array(buffer, 0, size)));
        const stored = new Uint8Array(12 + ct.length);
        stored.set(nonce);
        stored.set(ct, 12);
        self.postMessage({ id, stored: stored.buffer }, [stored.buffer]);
      } catch (e) {
        self.postMessage({ id, error: String(e) });
      }
    };`], { type: 'text/javascript' }));
  try {
    const out = { cdc, readCut, chunks: cuts.length, spans };
    for (const which of aesFirst ? ['aes', 'app', 'put', 'service'] : ['service', 'put', 'app', 'aes']) {
      if (which === 'aes') out.crypto = await sealAll(aesWorker);
      else if (which === 'app') out.cryptoHash = await sealAll('/chunk-worker.js');
      else if (which === 'put') out.sealPut = await sealAll('/chunk-worker.js', true);
      else {
        out.sealService = await sealAll('/chunk-worker.js', 'service');
        out.fetchOpenService = openedMs;
        spans.fetch_open_service = openedSpan;
      }
      spans[{ aes: 'crypto', app: 'crypto_hash', put: 'seal_put', service: 'seal_service' }[which]] = lastSpan;
    }
    return out;
  } finally {
    URL.revokeObjectURL(aesWorker);
  }
}

// crypto/cdc.js's cdcCut and what it reads, as an expression for the page (DevTools evaluates
// it: the page's CSP has no 'unsafe-eval').
async function cdcSource() {
  const mod = await import(pathToFileURL(path.join(ROOT, 'clients/web/src/crypto/cdc.js')).href);
  return ['(() => {', `const CDC_MIN = ${mod.CDC_MIN}, CDC_NORMAL = ${mod.CDC_NORMAL}, CDC_MAX = ${mod.CDC_MAX};`,
    `const GEAR = new Int32Array(new Uint32Array([${[...mod.cdcGear()].join(',')}]).buffer);`,
    mod.cdcCut.toString(), 'return cdcCut;', '})()'].join('\n');
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

async function run(chromium, dir, files, size) {
  const { child, port } = await startChromium(dir);
  try {
    say('onboarding a new account');
    await onboard(chromium, port);
    const targets = await (await fetch(`http://127.0.0.1:${port}/json/list`)).json();
    const target = targets.find((t) => t.type === 'page' && t.url.startsWith(args.url));
    if (!target) throw new Error('the app\'s page is gone after onboarding');
    const cdp = await Cdp.open(target.webSocketDebuggerUrl);
    sampleCpu();
    const sampler = setInterval(sampleCpu, 5);
    const rounds = [];
    const refs = [];
    try {
      await cdp.send('Runtime.enable');
      await cdp.send('Page.enable');
      await cdp.send('Page.setDownloadBehavior', { behavior: 'deny' });
      await cdp.eval(`(${instrument})()`);
      for (const file of files) {
        const m = await measure(cdp, file, size);
        say(`measured: ${JSON.stringify(m)}`);
        rounds.push(m);
      }
      // The reference figures, as many rounds, the AES-only and the app's workers alternating
      // first; the page reloaded with its CSP off for the AES-only workers (blob: scripts).
      try {
        await cdp.send('Page.setBypassCSP', { enabled: true });
        await cdp.send('Page.reload', { ignoreCache: false });
        await new Promise((r) => setTimeout(r, 500));
        await cdp.until('document.readyState === "complete"', 'the reloaded page', 60000);
        await cdp.eval(`window.__benchCdcCut = ${await cdcSource()}; true`);
        // The last round's file in an input of its own (the app does not listen to it).
        await cdp.eval(`(() => {
          const input = Object.assign(document.createElement('input'), { type: 'file', id: 'bench-ref-file', hidden: true });
          document.body.append(input);
          return true;
        })()`);
        const { root } = await cdp.send('DOM.getDocument');
        const { nodeId } = await cdp.send('DOM.querySelector', { nodeId: root.nodeId, selector: '#bench-ref-file' });
        await cdp.send('DOM.setFileInputFiles', { nodeId, files: [files.at(-1)] });
        for (let i = 0; i < files.length; i++) {
          say('reference: the cut and the sealing of the file in workers, no network');
          const r = await cdp.eval(`(${references})(${i % 2 === 0}, ${size})`);
          say(`reference: ${JSON.stringify(r)}`);
          refs.push(r);
        }
      } catch (e) {
        result.ref_error = String(e?.message || e).split('\n')[0];
      }
    } finally {
      clearInterval(sampler);
      sampleCpu();
      cdp.close();
    }
    // Each figure is the median of the rounds; the main thread's, the longest gap of any.
    result.upload_ms = Math.round(median(rounds.map((m) => m.upload)));
    result.download_ms = Math.round(median(rounds.map((m) => m.download)));
    result.fetch_put_ms = Math.round(median(rounds.map((m) => m.fetchPut)));
    result.fetch_get_ms = Math.round(median(rounds.map((m) => m.fetchGet)));
    if (refs.length) {
      result.crypto_ms = Math.round(median(refs.map((r) => r.crypto)));
      result.crypto_hash_ms = Math.round(median(refs.map((r) => r.cryptoHash)));
      result.cdc_ms = Math.round(median(refs.map((r) => r.cdc)));
      result.seal_put_ms = Math.round(median(refs.map((r) => r.sealPut)));
      result.read_cut_ms = Math.round(median(refs.map((r) => r.readCut)));
      result.seal_service_ms = Math.round(median(refs.map((r) => r.sealService)));
      result.fetch_open_service_ms = Math.round(median(refs.map((r) => r.fetchOpenService)));
    }
    // The machine's CPU during each timed span, the median over the rounds.
    for (const m of [...rounds, ...refs]) {
      for (const [k, span] of Object.entries(m.spans ?? {})) {
        const c = span && cpuBetween(span);
        if (c !== null && c !== undefined) (m.cpu ??= {})[k] = c;
      }
    }
    for (const k of ['upload', 'fetch_put', 'download', 'fetch_get', 'read_cut', 'crypto', 'crypto_hash', 'seal_put', 'seal_service', 'fetch_open_service']) {
      const xs = [...rounds, ...refs].map((m) => m.cpu?.[k]).filter((x) => x !== undefined);
      if (xs.length) result.cpu_ms[k] = Math.round(median(xs));
    }
    result.max_main_thread_block_ms = Math.round(Math.max(...rounds.map((m) => Math.max(m.blockUpload, m.blockDownload))));
    const problems = [];
    for (const [i, m] of rounds.entries()) {
      const r = rounds.length > 1 ? `round ${i + 1}: ` : '';
      if (m.fileSize !== size) problems.push(`${r}the page read ${m.fileSize} bytes of ${size}`);
      if (!m.downloadedSame) problems.push(`${r}the app's download differs from the file`);
      if (m.putStatus !== 201 && m.putStatus !== 204) problems.push(`${r}fetch PUT /_bench/data answered ${m.putStatus} (is the stack started with POUCH_BENCH_ROUTES=1?)`);
      if (m.getStatus !== 200 || !m.fetchedSame) problems.push(`${r}fetch GET /_bench/data answered ${m.getStatus} with ${m.getSize} bytes, not the file's`);
    }
    if (cdp.exceptions.length) problems.push(`page errors: ${cdp.exceptions.join(' | ')}`);
    result.ok = problems.length === 0;
    result.error = problems.join('; ');
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  }
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pouch-web-bench-'));
try {
  const size = args.sizeMib * 1024 * 1024;
  // A new file of its own random bytes for each round: nothing of one is reused by the next.
  const files = [];
  for (let i = 1; i <= args.rounds; i++) {
    files.push(path.join(dir, `bench-${i}.bin`));
    fs.writeFileSync(files.at(-1), nodeCrypto.randomBytes(size));
  }
  if (args.shots) fs.mkdirSync(args.shots, { recursive: true });
  await run(await loadPlaywright(), dir, files, size);
} catch (e) {
  result.ok = false;
  // eslint-disable-next-line no-control-regex -- Playwright colours its call logs
  result.error = String(e?.message || e).replace(/\u001b\[[0-9;]*m/g, '').split('\n').slice(0, 3).join(' | ');
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
writeResult();
say(`${result.ok ? 'ok' : 'FAILED'}: ${JSON.stringify(result)}`);
