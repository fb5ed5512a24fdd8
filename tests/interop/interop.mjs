// interop.mjs -- checks pouchctl and the common C++ library against independent
// implementations (jose, canonicalize, @noble/hashes): forward = Node makes, C++ verifies
// (through pouch-interop-verify); reverse = pouchctl makes, Node verifies. Every valid case
// is also checked tampered and must be rejected. Prints `PASS name` / `FAIL name: detail`
// and exits 1 if anything failed. Started by run.sh, which sets the paths below.
import { spawnSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { blake3 } from '@noble/hashes/blake3.js';
import { sha256 } from '@noble/hashes/sha2.js';
import canonicalize from 'canonicalize';
import {
  CompactSign, EmbeddedJWK, SignJWT, base64url, calculateJwkThumbprint, compactVerify,
  decodeProtectedHeader, importJWK, importPKCS8, jwtVerify,
} from 'jose';

import { flipByte, makeRng, randomObject, randomValue, serialize, tamper } from './gen.mjs';

const POUCHCTL = process.env.POUCHCTL;
const VERIFY = process.env.POUCH_INTEROP_VERIFY;
const SEED = Number(process.env.INTEROP_SEED ?? nodeCrypto.randomInt(2 ** 31));
const N = Number(process.env.INTEROP_CASES ?? 200);
console.log(`# seed ${SEED} (rerun with INTEROP_SEED=${SEED}), ${N} cases per direction`);
const rng = makeRng(SEED);

// ---- reporting ------------------------------------------------------------------------------

let failed = 0;
// One line per check; a check covers many cases, the first few failures are shown.
function check(name) {
  console.log(`# ${name}`);  // where the suite was, should it ever stop answering
  const problems = [];
  let cases = 0;
  return {
    case() { cases++; },
    fail(detail) { problems.push(detail); },
    expect(cond, detail) { if (!cond) problems.push(detail); },
    done() {
      if (problems.length === 0) {
        console.log(`PASS ${name} (${cases} cases)`);
      } else {
        failed++;
        const more = problems.length > 3 ? ` (+${problems.length - 3} more)` : '';
        console.log(`FAIL ${name}: ${problems.length}/${cases} cases: ` +
                    problems.slice(0, 3).join(' | ') + more);
      }
    },
  };
}

// ---- helpers --------------------------------------------------------------------------------

const enc = new TextEncoder();
const utf8 = (s) => enc.encode(s);
const b64u = (bytes) => base64url.encode(bytes);
const unb64u = (s) => base64url.decode(s);
const b64uText = (s) => base64url.encode(utf8(s));
const sameBytes = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);
const short = (s, n = 80) => (s.length > n ? s.slice(0, n) + '…' : s);
const rngB64u = (n) => b64u(rng.bytes(n));
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
const UNRESERVED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~';

function randomVerifier(len) {
  let v = '';
  for (let i = 0; i < len; i++) v += UNRESERVED[rng.int(UNRESERVED.length)];
  return v;
}
function randomUuid() {
  const h = Buffer.from(rng.bytes(16)).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-a${h.slice(17, 20)}-${h.slice(20)}`;
}
function randomPath() {
  const parts = ['v1', rng.pick(['pouches', 'devices', 'cli-auth', 'blobs'])];
  for (let i = rng.int(3); i > 0; i--) parts.push(rng.pick([randomUuid(), 'events', 'commit', 'token']));
  return '/' + parts.join('/');
}
// decisions §6: first 8 bytes of SHA-256("pouch-confirm-v1" || id || jkt), big-endian,
// mod 10^8, as dddd-dddd.
function confirmCode(id, jkt) {
  const d = sha256(utf8('pouch-confirm-v1' + id + jkt));
  const n = Buffer.from(d.slice(0, 8)).readBigUInt64BE() % 100000000n;
  const s = n.toString().padStart(8, '0');
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}
const jcsHashB64 = (value) => b64u(blake3(utf8(canonicalize(value))));

// A child that stops answering fails its check (and names itself) instead of the whole suite
// running into its timeout.
const CHILD_LIMIT = { timeout: 60_000, killSignal: 'SIGKILL' };

// Runs the C++ verifier once over all cases (one JSON line each way).
function runVerifier(cases) {
  const input = cases.map((c) => JSON.stringify(c)).join('\n') + '\n';
  const r = spawnSync(VERIFY, { input, maxBuffer: 256 << 20, ...CHILD_LIMIT });
  if (r.error) throw new Error(`${VERIFY}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`${VERIFY} exited ${r.status}: ${r.stderr}`);
  const lines = r.stdout.toString().split('\n').filter((l) => l.length);
  if (lines.length !== cases.length) {
    throw new Error(`${VERIFY} answered ${lines.length} lines for ${cases.length} cases`);
  }
  return lines.map((l) => JSON.parse(l));
}

function pouchctl(args, input) {
  const r = spawnSync(POUCHCTL, args, { input: input ?? '', ...CHILD_LIMIT });
  if (r.error) return { status: -1, stdout: '', stderr: `pouchctl ${args.join(' ')}: ${r.error.message}` };
  return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

// A P-256 key made through ECDH and imported, never generated as a key object (Node's
// generateKeyPairSync, jose's generateKeyPair): Node 20 can deadlock exporting a freshly
// generated key when the garbage collector finalises its key-generation job meanwhile (the
// export holds the key's lock while it allocates; seen here about once in 180 runs).
function p256Key() {
  const ecdh = nodeCrypto.createECDH('prime256v1');
  const pub = ecdh.generateKeys();  // 0x04 || x || y, fixed width
  const raw = ecdh.getPrivateKey();
  const d = Buffer.concat([Buffer.alloc(32 - raw.length), raw]);
  return { jwk: { kty: 'EC', crv: 'P-256', x: b64u(pub.subarray(1, 33)), y: b64u(pub.subarray(33)) },
           d: b64u(d) };
}
// That key as a private-key PEM of `type` (pkcs8 or sec1).
const p256Pem = (k, type) =>
  nodeCrypto.createPrivateKey({ key: { ...k.jwk, d: k.d }, format: 'jwk' }).export({ type, format: 'pem' });

async function joseKey() {
  const { jwk, d } = p256Key();
  const privateKey = await importJWK({ ...jwk, d }, 'ES256');
  return { privateKey, publicKey: await importJWK(jwk, 'ES256'), jwk, jkt: await calculateJwkThumbprint(jwk) };
}

// ---- forward: Node makes, C++ verifies ------------------------------------------------------

async function forward() {
  const keys = await Promise.all(Array.from({ length: 12 }, joseKey));
  const cases = [];  // {input, expect(result, chk)} in the order sent
  const add = (chk, input, expect) => { chk.case(); cases.push({ chk, input, expect }); };
  const checks = {};
  const C = (name) => (checks[name] ??= check(name));

  // (1) DPoP proofs by jose SignJWT.
  const publicUrls = [
    ['https://sync.example.com', ['https://sync.example.com', 'HTTPS://Sync.Example.COM',
                                  'https://sync.example.com:443']],
    ['http://localhost:8080', ['http://localhost:8080', 'http://LOCALHOST:8080']],
  ];
  for (let i = 0; i < N; i++) {
    const key = rng.pick(keys);
    const other = keys[(keys.indexOf(key) + 1) % keys.length];
    const [publicUrl, spellings] = rng.pick(publicUrls);
    const p = randomPath();
    const htm = rng.pick(METHODS);
    const htu = rng.pick(spellings) + p;
    const token = rng.chance(0.7) ? 'svc_at_' + rngB64u(32) : undefined;
    const iat = 1700000000 + rng.int(100000000);
    const now = iat + rng.int(181) - 60;  // iat within [now-120, now+60]
    const jti = rngB64u(16 + rng.int(16));
    const claims = { jti, htm, htu };
    if (token) claims.ath = b64u(sha256(utf8(token)));
    const sign = (signer, c = claims) => new SignJWT(c)
        .setProtectedHeader({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk })
        .setIssuedAt(iat).sign(signer);
    const proof = await sign(key.privateKey);
    const reqPath = p + (rng.chance(0.3) ? '?limit=' + rng.int(100) : '');
    const base = { op: 'dpop', proof, method: htm, public_url: publicUrl, path: reqPath, now };
    if (token) base.token = token;
    const tag = `dpop#${i}`;

    add(C('forward.dpop.valid'), base, (r, chk) => {
      chk.expect(r.ok, `${tag}: rejected: ${r.error}`);
      if (r.ok) {
        chk.expect(r.jkt === key.jkt, `${tag}: jkt ${r.jkt} != ${key.jkt}`);
        chk.expect(r.jti === jti && r.iat === iat, `${tag}: jti/iat not returned as sent`);
      }
    });
    const rejected = (name) => (r, chk) => chk.expect(!r.ok, `${tag}: ${name} accepted`);
    // One claim changed after signing: only the signature can notice.
    const [h, pl, s] = proof.split('.');
    const payload = JSON.parse(Buffer.from(unb64u(pl)).toString());
    if (rng.chance(0.5)) payload.jti = jti.slice(0, -1) + (jti.endsWith('A') ? 'B' : 'A');
    else payload.iat = iat + (now - iat < 60 ? 1 : -1);
    add(C('forward.dpop.tampered-claim'),
        { ...base, proof: `${h}.${b64uText(JSON.stringify(payload))}.${s}` },
        rejected('tampered claim'));
    add(C('forward.dpop.tampered-signature'),
        { ...base, proof: `${h}.${pl}.${b64u(flipByte(rng, unb64u(s)))}` },
        rejected('flipped signature bit'));
    add(C('forward.dpop.wrong-signer'), { ...base, proof: await sign(other.privateKey) },
        rejected('proof signed by a key other than its jwk'));
    const wrong = { ...base };
    if (token && rng.chance(0.5)) wrong.token = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
    else wrong.method = METHODS[(METHODS.indexOf(htm) + 1) % METHODS.length];
    add(C('forward.dpop.wrong-request'), wrong, rejected('proof for another method/token'));
  }

  // (2) detached Service-Signatures over BLAKE3(JCS(body)) by canonicalize + noble + jose.
  for (let i = 0; i < N; i++) {
    const key = rng.pick(keys);
    const other = keys[(keys.indexOf(key) + 1) % keys.length];
    const body = randomObject(rng);
    const text = serialize(rng, body);
    const hash = blake3(utf8(canonicalize(JSON.parse(text))));
    const header = { alg: 'ES256', kid: key.jkt };
    if (rng.chance(0.2)) header.typ = 'JOSE';
    const compact = await new CompactSign(hash).setProtectedHeader(header).sign(key.privateKey);
    const [h, , s] = compact.split('.');
    const sig = `${h}..${s}`;  // RFC 7515 Appendix F: drop the payload
    const base = { op: 'sig', body_b64: b64uText(text), sig, x: key.jwk.x, y: key.jwk.y };
    const tag = `sig#${i} ${short(text, 60)}`;
    add(C('forward.signature.valid'), base,
        (r, chk) => chk.expect(r.ok, `${tag}: rejected: ${r.error}`));
    const rejected = (name) => (r, chk) => chk.expect(!r.ok, `sig#${i}: ${name} accepted`);
    const changed = tamper(rng, body);
    add(C('forward.signature.tampered-body'),
        { ...base, body_b64: b64uText(serialize(rng, changed)) }, rejected('tampered body'));
    add(C('forward.signature.tampered-signature'),
        { ...base, sig: `${h}..${b64u(flipByte(rng, unb64u(s)))}` }, rejected('flipped signature bit'));
    add(C('forward.signature.wrong-key'), { ...base, x: other.jwk.x, y: other.jwk.y },
        rejected('signature checked with another key'));
  }

  // (3) JCS and BLAKE3 of random bodies (some arrays at top level) against canonicalize.
  const jcsCase = (chk, tag, text, expected) => add(chk, { op: 'jcs', body_b64: b64uText(text) },
      (r, c) => {
        if (!r.ok) return c.fail(`${tag}: C++ refused: ${r.error}: ${short(text)}`);
        const got = Buffer.from(unb64u(r.jcs_b64)).toString();
        c.expect(got === expected, `${tag}: C++ ${JSON.stringify(short(got))} != ` +
                                   `canonicalize ${JSON.stringify(short(expected))}`);
        c.expect(r.blake3 === b64u(blake3(utf8(expected))), `${tag}: BLAKE3 differs`);
      });
  for (let i = 0; i < N; i++) {
    const v = rng.chance(0.1) ? [randomValue(rng, 1), randomObject(rng, 1)] : randomObject(rng);
    const text = serialize(rng, v);
    jcsCase(C('forward.jcs.random'), `jcs#${i}`, text, canonicalize(JSON.parse(text)));
  }
  // decisions §12 / RFC 8785 vectors, and the number edge cases.
  const vectors = [
    '[56,{"d":true,"10":null,"1":[]}]',
    '{"1":{"f":{"f":"hi","F":5},"\\n":56.0},"10":{},"":"empty","a":{},"111":[{"e":"yes","E":"no"}],"A":{}}',
    '{"\\ud83d\\ude02":1,"\\ufb33":2,"\\u00e9":3,"e\\u0301":4}',
    '{"a":9007199254740991,"b":-9007199254740991,"c":0}',
    '{"esc":"\\u0000\\u001f\\u007f\\b\\f\\n\\r\\t\\"\\\\\\/\\u2028\\u2029"}',
    '{"neg-zero":-0}',
    // Integral values spelled as doubles have an exact JCS form (RFC 8785 prints 56.0 as 56).
    '{"e":1e2,"z":-0.0,"f":56.0}',
  ];
  vectors.forEach((t, i) => jcsCase(C('forward.jcs.vectors'), `vector#${i}`, t,
                                    canonicalize(JSON.parse(t))));
  // What JCS cannot represent exactly must be refused, never approximated.
  const refuse = [
    '{"a":1.5}', '{"a":9007199254740992}', '{"a":-9007199254740992}', '{"a":9007199254740993}',
    '{"a":18446744073709551615}', '{"a":1e400}',
    '{"a":1,"a":2}', '{"o":{"b":1,"b":1}}', '{"a":"\\ud800"}', '{"a":"\\udc00x"}',
  ].map((t) => utf8(t));
  refuse.push(Uint8Array.from([...utf8('{"a":"'), 0xff, ...utf8('"}')]));
  refuse.push(Uint8Array.from([...utf8('{"a":"'), 0xc0, 0x80, ...utf8('"}')]));  // overlong NUL
  refuse.push(Uint8Array.from([...utf8('{"a":"'), 0xed, 0xa0, 0x80, ...utf8('"}')]));  // CESU
  refuse.forEach((bytes, i) => add(C('forward.jcs.refuses-unrepresentable'),
      { op: 'jcs', body_b64: b64u(bytes) },
      (r, c) => c.expect(!r.ok, `refuse#${i} ${JSON.stringify(Buffer.from(bytes).toString('latin1'))} accepted`)));

  // (4) RFC 7638 thumbprints, and a changed coordinate must not be a valid key.
  const jktKeys = [...keys, ...(await Promise.all(Array.from({ length: N - keys.length }, joseKey)))];
  jktKeys.forEach((k, i) => {
    add(C('forward.jkt.random'), { op: 'jkt', x: k.jwk.x, y: k.jwk.y }, (r, c) => {
      c.expect(r.ok, `jkt#${i}: key refused`);
      c.expect(r.jkt === k.jkt && r.key_jkt === k.jkt, `jkt#${i}: ${r.jkt}/${r.key_jkt} != ${k.jkt}`);
    });
    add(C('forward.jkt.tampered-point-refused'),
        { op: 'jkt', x: b64u(flipByte(rng, unb64u(k.jwk.x))), y: k.jwk.y },
        (r, c) => c.expect(!r.ok, `jkt#${i}: off-curve point accepted`));
  });
  add(C('forward.jkt.rfc9449-vector'),
      { op: 'jkt', x: 'l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs',
        y: '9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA' },
      (r, c) => c.expect(r.ok && r.jkt === '0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I',
                         `got ${r.jkt}`));

  // (5) PKCE challenges, and the verifier grammar at its edges.
  for (let i = 0; i < N; i++) {
    const v = randomVerifier(43 + rng.int(86));
    add(C('forward.pkce.random'), { op: 'pkce', verifier: v }, (r, c) => {
      c.expect(r.valid, `pkce#${i}: ${v} called invalid`);
      c.expect(r.challenge === b64u(sha256(utf8(v))), `pkce#${i}: challenge differs for ${v}`);
    });
  }
  for (const v of [randomVerifier(42), randomVerifier(129), randomVerifier(50) + '+', 'é'.repeat(43)]) {
    add(C('forward.pkce.invalid-verifier-refused'), { op: 'pkce', verifier: v },
        (r, c) => c.expect(!r.valid, `${v} called valid`));
  }

  // (6) confirm codes (decisions §6) against a Node computation.
  for (let i = 0; i < 50; i++) {
    const id = randomUuid(), jkt = rng.pick(jktKeys).jkt;
    add(C('forward.confirm-code'), { op: 'confirm', request_id: id, jkt },
        (r, c) => c.expect(r.code === confirmCode(id, jkt), `${id}: ${r.code} != ${confirmCode(id, jkt)}`));
  }

  const results = runVerifier(cases.map((c) => c.input));
  cases.forEach((c, i) => c.expect(results[i], c.chk));
  for (const chk of Object.values(checks)) chk.done();
}

// ---- reverse: pouchctl makes, Node verifies -------------------------------------------------

async function reverse(dir) {
  // Keys: two from pouchctl keygen, one PKCS#8 and one SEC1 PEM made by Node, and one made
  // by Node whose x starts with a zero byte (fixed-width coordinates).
  const keys = [];
  {
    const chk = check('reverse.keygen');
    for (let i = 0; i < 2; i++) {
      chk.case();
      const file = path.join(dir, `pouchctl-${i}.pem`);
      const r = pouchctl(['keygen', '--out', file]);
      if (r.status !== 0) { chk.fail(`exit ${r.status}: ${r.stderr}`); continue; }
      const mode = fs.statSync(file).mode & 0o777;
      chk.expect(mode === 0o600, `mode ${mode.toString(8)}`);
      const pem = fs.readFileSync(file, 'utf8');
      chk.expect(pem.startsWith('-----BEGIN PRIVATE KEY-----'), 'not PKCS#8 PEM');
      const printed = JSON.parse(r.stdout);
      const nodeJwk = nodeCrypto.createPrivateKey(pem).export({ format: 'jwk' });
      chk.expect(JSON.stringify(Object.keys(printed)) === '["kty","crv","x","y"]',
                 `printed JWK members ${Object.keys(printed)}`);
      chk.expect(printed.x === nodeJwk.x && printed.y === nodeJwk.y && nodeJwk.crv === 'P-256',
                 'printed JWK is not the key in the file');
      await importPKCS8(pem, 'ES256');  // throws if jose cannot use it
      keys.push({ file, jwk: { kty: 'EC', crv: 'P-256', x: nodeJwk.x, y: nodeJwk.y } });
    }
    chk.case();
    const before = fs.readFileSync(keys[0].file);
    const again = pouchctl(['keygen', '--out', keys[0].file]);
    chk.expect(again.status === 1 && sameBytes(before, fs.readFileSync(keys[0].file)),
               `existing key file overwritten or wrong exit (${again.status})`);
    chk.done();
  }
  {
    const chk = check('reverse.jwk');
    const made = [];
    const pk8 = p256Key();
    made.push(['node-pkcs8', p256Pem(pk8, 'pkcs8'), pk8.jwk]);
    const sec1 = p256Key();
    made.push(['node-sec1', p256Pem(sec1, 'sec1'), sec1.jwk]);
    for (let tries = 1; ; tries++) {  // about 256 tries: a key whose x has a leading zero byte
      if (tries > 20000) throw new Error('no P-256 key with a leading zero byte in x in 20000 tries');
      const k = p256Key();
      if (unb64u(k.jwk.x)[0] === 0) {
        made.push(['node-leading-zero-x', p256Pem(k, 'pkcs8'), k.jwk]);
        break;
      }
    }
    for (const [name, pem, jwk] of made) {
      const file = path.join(dir, `${name}.pem`);
      fs.writeFileSync(file, pem, { mode: 0o600 });
      keys.push({ file, jwk });
    }
    for (const k of keys) {
      chk.case();
      const r = pouchctl(['jwk', '--key', k.file]);
      if (r.status !== 0) { chk.fail(`${path.basename(k.file)}: exit ${r.status}: ${r.stderr}`); continue; }
      const out = JSON.parse(r.stdout);
      k.jkt = await calculateJwkThumbprint(k.jwk);
      chk.expect(JSON.stringify(out.jwk) === JSON.stringify(k.jwk),
                 `${path.basename(k.file)}: ${JSON.stringify(out.jwk)} != ${JSON.stringify(k.jwk)}`);
      chk.expect(out.jkt === k.jkt, `${path.basename(k.file)}: jkt ${out.jkt} != ${k.jkt}`);
      k.publicKey = await importJWK(k.jwk, 'ES256');
    }
    // Keys that are not P-256 must be refused, not misread.
    for (const opts of [['-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-384'],
                        ['-algorithm', 'ED25519'],
                        ['-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024']]) {
      chk.case();
      const file = path.join(dir, `bad-${opts[1]}.pem`);
      const g = spawnSync('openssl', ['genpkey', ...opts, '-out', file], CHILD_LIMIT);
      if (g.status !== 0) { chk.fail(`openssl genpkey ${opts.join(' ')}: ${g.error ?? g.stderr}`); continue; }
      const r = pouchctl(['jwk', '--key', file]);
      chk.expect(r.status === 1 && r.stdout === '', `${opts.join(' ')} key: exit ${r.status}`);
    }
    chk.done();
  }

  // DPoP proofs by pouchctl, verified by jose with the embedded jwk.
  {
    const ok = check('reverse.dpop.valid');
    const tc = check('reverse.dpop.tampered-claim');
    const ts = check('reverse.dpop.tampered-signature');
    const jtis = new Set();
    for (let i = 0; i < N; i++) {
      const key = rng.pick(keys);
      const htm = rng.pick(METHODS);
      const base = 'https://sync.example.com' + randomPath();
      const url = base + (rng.chance(0.2) ? '?limit=5&x=%20' : '') + (rng.chance(0.1) ? '#frag' : '');
      const iat = 1700000000 + rng.int(100000000);
      const args = ['dpop', '--key', key.file, '--method', htm, '--url', url, '--iat', String(iat)];
      const token = rng.chance(0.7) ? 'svc_at_' + rngB64u(32) : undefined;
      if (token) args.push('--token', token);
      const jti = rng.chance(0.2) ? rngB64u(20) : undefined;
      if (jti) args.push('--jti', jti);
      const tag = `dpop#${i}`;
      ok.case(); tc.case(); ts.case();
      const r = pouchctl(args);
      if (r.status !== 0) { ok.fail(`${tag}: exit ${r.status}: ${r.stderr}`); continue; }
      const proof = r.stdout.trim();
      const opts = { typ: 'dpop+jwt', algorithms: ['ES256'], currentDate: new Date(iat * 1000) };
      try {
        const { payload, protectedHeader: ph } = await jwtVerify(proof, EmbeddedJWK, opts);
        ok.expect(JSON.stringify(ph) === JSON.stringify({ typ: 'dpop+jwt', alg: 'ES256', jwk: key.jwk }),
                  `${tag}: header ${JSON.stringify(ph)}`);
        ok.expect(payload.htm === htm && payload.htu === base && payload.iat === iat,
                  `${tag}: htm/htu/iat ${payload.htm} ${payload.htu} ${payload.iat}`);
        ok.expect(token ? payload.ath === b64u(sha256(utf8(token))) : !('ath' in payload),
                  `${tag}: ath ${payload.ath}`);
        if (jti) ok.expect(payload.jti === jti, `${tag}: jti not as given`);
        else {
          ok.expect(/^[A-Za-z0-9_-]{22,}$/.test(payload.jti) && !jtis.has(payload.jti),
                    `${tag}: weak or repeated jti ${payload.jti}`);
          jtis.add(payload.jti);
        }
        const extra = Object.keys(payload).filter((k) => !['jti', 'htm', 'htu', 'iat', 'ath'].includes(k));
        ok.expect(extra.length === 0, `${tag}: extra claims ${extra}`);
      } catch (e) {
        ok.fail(`${tag}: jose rejected: ${e.code ?? e.message}`);
        continue;
      }
      const [h, pl, s] = proof.split('.');
      const claims = JSON.parse(Buffer.from(unb64u(pl)).toString());
      const field = rng.pick(['htm', 'htu', 'jti', 'iat']);
      claims[field] = field === 'iat' ? claims.iat + 1 : claims[field] + 'x';
      await jwtVerify(`${h}.${b64uText(JSON.stringify(claims))}.${s}`, EmbeddedJWK, opts).then(
          () => tc.fail(`${tag}: ${field} changed, still verified`), () => {});
      await jwtVerify(`${h}.${pl}.${b64u(flipByte(rng, unb64u(s)))}`, EmbeddedJWK, opts).then(
          () => ts.fail(`${tag}: flipped signature bit verified`), () => {});
    }
    ok.done(); tc.done(); ts.done();
  }

  // Service-Signatures by pouchctl sign-body: reattach BLAKE3(canonicalize(body)) and verify.
  {
    const ok = check('reverse.sign-body.valid');
    const tb = check('reverse.sign-body.tampered-body');
    const ts = check('reverse.sign-body.tampered-signature');
    for (let i = 0; i < N; i++) {
      const key = rng.pick(keys);
      const body = randomObject(rng);
      const text = serialize(rng, body);
      const tag = `sign#${i} ${short(text, 60)}`;
      ok.case(); tb.case(); ts.case();
      const r = pouchctl(['sign-body', '--key', key.file], text);
      if (r.status !== 0) { ok.fail(`${tag}: exit ${r.status}: ${r.stderr.trim()}`); continue; }
      const m = /^([A-Za-z0-9_-]+)\.\.([A-Za-z0-9_-]+)\n$/.exec(r.stdout);
      if (!m) { ok.fail(`${tag}: not h..s: ${short(r.stdout)}`); continue; }
      const [, h, s] = m;
      const header = decodeProtectedHeader(`${h}..${s}`);
      ok.expect(JSON.stringify(header) === JSON.stringify({ alg: 'ES256', kid: key.jkt }),
                `${tag}: header ${JSON.stringify(header)}`);
      const attach = (hashB64, sig = s) => compactVerify(`${h}.${hashB64}.${sig}`, key.publicKey);
      await attach(jcsHashB64(JSON.parse(text))).catch((e) => ok.fail(`${tag}: jose rejected: ${e.code}`));
      await attach(jcsHashB64(tamper(rng, body))).then(
          () => tb.fail(`${tag}: signature verified over a tampered body`), () => {});
      await attach(jcsHashB64(body), b64u(flipByte(rng, unb64u(s)))).then(
          () => ts.fail(`${tag}: flipped signature bit verified`), () => {});
    }
    ok.done(); tb.done(); ts.done();

    // Bodies without an exact JCS form, or that the server's strict parser refuses.
    const bad = check('reverse.sign-body.refuses-unrepresentable');
    const refuse = ['{"a":1.5}', '{"a":9007199254740992}', '{"a":1,"a":2}', '{"a":"\\ud800"}',
                    '[1,2]', 'not json', ''].map((t) => Buffer.from(t));
    refuse.push(Buffer.from([...utf8('{"a":"'), 0xff, ...utf8('"}')]));
    for (const b of refuse) {
      bad.case();
      const r = pouchctl(['sign-body', '--key', keys[0].file], b);
      bad.expect(r.status === 1 && r.stdout === '' && r.stderr.length > 0,
                 `${JSON.stringify(b.toString('latin1'))}: exit ${r.status}, stdout ${short(r.stdout, 20)}`);
    }
    bad.done();
  }

  // PKCE and confirm codes.
  {
    const chk = check('reverse.pkce');
    const seen = new Set();
    for (let i = 0; i < N / 4; i++) {
      chk.case();
      const given = rng.chance(0.5) ? randomVerifier(43 + rng.int(86)) : undefined;
      const r = pouchctl(given ? ['pkce', '--verifier', given] : ['pkce']);
      if (r.status !== 0) { chk.fail(`exit ${r.status}: ${r.stderr}`); continue; }
      const { verifier, challenge } = JSON.parse(r.stdout);
      if (given) chk.expect(verifier === given, `verifier not as given`);
      else {
        chk.expect(/^[A-Za-z0-9_-]{43}$/.test(verifier) && !seen.has(verifier), `verifier ${verifier}`);
        seen.add(verifier);
      }
      chk.expect(challenge === b64u(sha256(utf8(verifier))), `challenge differs for ${verifier}`);
    }
    chk.case();
    const rfc = JSON.parse(pouchctl(['pkce', '--verifier', 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk']).stdout);
    chk.expect(rfc.challenge === 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', 'RFC 7636 vector');
    chk.done();

    const cc = check('reverse.confirm-code');
    for (let i = 0; i < N / 4; i++) {
      cc.case();
      const id = randomUuid(), jkt = rng.pick(keys).jkt;
      const r = pouchctl(['confirm-code', id, jkt]);
      cc.expect(r.status === 0 && r.stdout === confirmCode(id, jkt) + '\n',
                `${id} ${jkt}: ${r.stdout.trim()} != ${confirmCode(id, jkt)}`);
    }
    cc.done();
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pouch-interop-'));
try {
  await forward();
  await reverse(tmp);
} catch (e) {
  failed++;
  console.log(`FAIL harness: ${e.stack ?? e}`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
console.log(failed ? `# ${failed} check(s) failed (seed ${SEED})` : '# all checks passed');
process.exit(failed ? 1 : 0);
