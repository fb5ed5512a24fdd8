// hpke.mjs -- the C++ HPKE (common/crypto/hpke.h, through `pouch-testweb hpke`) against
// @hpke/core, suite DhkemP256HkdfSha256 / HkdfSha256 / Aes128Gcm (docs/CLIENT-FORMAT.md):
// forward = @hpke/core seals to a C++ key, C++ opens; reverse = C++ seals to an @hpke/core key
// (imported from its JWK, as a CLI's enc_pub is), @hpke/core opens. Random info, aad and
// plaintext sizes (a 32-byte pouch key among them); every valid case is also tampered and must
// be refused. Prints `PASS name` / `FAIL name: detail`; exits 1 on any failure.
import { spawnSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';

import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';

const TESTWEB = process.env.POUCH_TESTWEB;
const N = Number(process.env.INTEROP_HPKE_CASES ?? 40);
const suite = new CipherSuite({ kem: new DhkemP256HkdfSha256(), kdf: new HkdfSha256(), aead: new Aes128Gcm() });
const b64u = (b) => Buffer.from(b).toString('base64url');
const unb64u = (s) => new Uint8Array(Buffer.from(s, 'base64url'));
const rand = (n) => new Uint8Array(nodeCrypto.randomBytes(n));
const sizes = () => [0, 1, 16, 32, 32, 48, 1000, 70000][nodeCrypto.randomInt(8)];

// One batch of requests through the C++ driver (one process, one JSON line each way).
function cxx(requests) {
  const r = spawnSync(TESTWEB, ['hpke'], { input: requests.map((q) => JSON.stringify(q)).join('\n') + '\n',
                                           maxBuffer: 64 << 20, timeout: 60_000, killSignal: 'SIGKILL' });
  if (r.error) throw new Error(`pouch-testweb hpke: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`pouch-testweb hpke exited ${r.status}: ${r.stderr}`);
  return r.stdout.toString().trim().split('\n').map((l) => JSON.parse(l));
}

let failed = 0;
function report(name, problems, cases) {
  if (problems.length === 0) console.log(`PASS ${name} (${cases} cases)`);
  else {
    failed++;
    console.log(`FAIL ${name}: ${problems.length}/${cases}: ${problems.slice(0, 3).join(' | ')}`);
  }
}

const flip = (b) => { const c = new Uint8Array(b); c[nodeCrypto.randomInt(c.length)] ^= 1; return c; };

// forward: @hpke/core seals, C++ opens
{
  const keys = cxx(Array.from({ length: N }, () => ({ op: 'keygen' })));
  const cases = [];
  for (const k of keys) {
    const pk = await suite.kem.importKey('jwk', k.jwk, true);
    const info = rand(sizes() % 200), aad = rand(sizes() % 100), pt = rand(sizes());
    const s = await suite.seal({ recipientPublicKey: pk, info }, pt, aad);
    cases.push({ d: k.d, info, aad, pt, enc: new Uint8Array(s.enc), ct: new Uint8Array(s.ct) });
  }
  const ok = cxx(cases.map((c) => ({ op: 'open', d: c.d, info: b64u(c.info), aad: b64u(c.aad), enc: b64u(c.enc), ct: b64u(c.ct) })));
  const bad = cxx(cases.map((c) => ({ op: 'open', d: c.d, info: b64u(c.info), aad: b64u(c.aad), enc: b64u(c.enc), ct: b64u(flip(c.ct)) })));
  const p1 = [], p2 = [];
  cases.forEach((c, i) => {
    if (ok[i].pt !== b64u(c.pt)) p1.push(`case ${i}: ${ok[i].error ?? 'wrong plaintext'}`);
    if (!bad[i].error) p2.push(`case ${i}: a flipped ciphertext opened`);
  });
  report('hpke.forward.hpke-core-seals-cxx-opens', p1, cases.length);
  report('hpke.forward.tampered-refused', p2, cases.length);
}

// reverse: C++ seals to an @hpke/core key given as a JWK, @hpke/core opens
{
  const cases = [];
  for (let i = 0; i < N; i++) {
    const kp = await suite.kem.deriveKeyPair(rand(32));  // imported, not generated: see interop.mjs's p256Key
    const raw = new Uint8Array(await suite.kem.serializePublicKey(kp.publicKey));
    const jwk = { kty: 'EC', crv: 'P-256', x: b64u(raw.slice(1, 33)), y: b64u(raw.slice(33, 65)) };
    cases.push({ kp, jwk, info: rand(sizes() % 200), aad: rand(sizes() % 100), pt: rand(sizes()) });
  }
  const sealed = cxx(cases.map((c) => ({ op: 'seal', jwk: c.jwk, info: b64u(c.info), aad: b64u(c.aad), pt: b64u(c.pt) })));
  const p1 = [], p2 = [], p3 = [];
  for (const [i, c] of cases.entries()) {
    const s = sealed[i];
    if (s.error) { p1.push(`case ${i}: ${s.error}`); continue; }
    if (unb64u(s.enc).length !== 65 || unb64u(s.ct).length !== c.pt.length + 16) p3.push(`case ${i}: sizes`);
    try {
      const pt = new Uint8Array(await suite.open({ recipientKey: c.kp.privateKey, enc: unb64u(s.enc), info: c.info }, unb64u(s.ct), c.aad));
      if (b64u(pt) !== b64u(c.pt)) p1.push(`case ${i}: wrong plaintext`);
    } catch (e) { p1.push(`case ${i}: ${e.message}`); }
    try {
      await suite.open({ recipientKey: c.kp.privateKey, enc: unb64u(s.enc), info: c.info }, flip(unb64u(s.ct)), c.aad);
      p2.push(`case ${i}: a flipped ciphertext opened`);
    } catch { /* refused, as it must be */ }
  }
  report('hpke.reverse.cxx-seals-hpke-core-opens', p1, cases.length);
  report('hpke.reverse.tampered-refused', p2, cases.length);
  report('hpke.reverse.enc-65-bytes-ct-plus-16', p3, cases.length);
}
process.exit(failed ? 1 : 0);
