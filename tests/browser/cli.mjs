// cli.mjs -- a command-line client for the browser suite, made of the project's own tools:
// pouchctl makes its two P-256 keys, the PKCE pair and the DPoP proofs (C++, OpenSSL); the
// approval link, its nonce and the v2 confirm code are made here with Node's own HKDF, as
// `pouch login` makes them (decisions §15); Node opens what the browser sealed to it (welcome,
// key envelopes) with the enc key that pouchctl wrote, through the web app's crypto module
// (checked against independent code in the interop suite). Relies on POUCHCTL and POUCH_URL.
import { execFileSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

const POUCHCTL = process.env.POUCHCTL;
const BASE = process.env.POUCH_URL;

const pouchctl = (...args) => execFileSync(POUCHCTL, args, { encoding: 'utf8' }).trim();

export class Cli {
  constructor(W, WP, name = 'build-box') {
    this.W = W;            // crypto/format.js
    this.WP = WP;          // crypto/primitives.js
    this.name = name;
    this.dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pouch-cli-'));
    this.signPem = path.join(this.dir, 'sign.pem');
    this.encPem = path.join(this.dir, 'enc.pem');
    this.signPub = JSON.parse(pouchctl('keygen', '--out', this.signPem));
    this.encPub = JSON.parse(pouchctl('keygen', '--out', this.encPem));
    this.jkt = JSON.parse(pouchctl('jwk', '--key', this.signPem)).jkt;
  }

  dpop(method, url, token) {
    const args = ['dpop', '--key', this.signPem, '--method', method, '--url', url];
    if (token) args.push('--token', token);
    return pouchctl(...args);
  }

  async call(method, p, body) {
    const url = BASE + p;
    const headers = { DPoP: this.dpop(method, url.split('?')[0], this.accessToken) };
    if (this.accessToken) headers.Authorization = `DPoP ${this.accessToken}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  }

  // `pouch login`: start the request; returns what the terminal shows: the approval link it
  // builds itself (its server, the request, its keys and a nonce in the fragment), the code to
  // type on the page and the key fingerprint the page must show.
  async start(extra = {}) {
    const pkce = JSON.parse(pouchctl('pkce'));
    this.verifier = pkce.verifier;
    const r = await this.call('POST', '/v1/cli-auth/requests', {
      code_challenge: pkce.challenge, device_name: this.name, os: 'linux', arch: 'x86_64', cli_version: '0.9.0',
      sign_pub: this.signPub, enc_pub: this.encPub, key_storage: 'file', ...extra,
    });
    if (r.status !== 200) throw new Error(`login start: ${r.status} ${JSON.stringify(r.json)}`);
    this.requestId = r.json.data.request_id;
    const base = `${BASE}/cli/approve?request=${this.requestId}`;
    if (r.json.data.authorize_url !== base) throw new Error(`authorize_url ${r.json.data.authorize_url} is not ${base}`);
    const nonce = nodeCrypto.randomBytes(16);
    const encJkt = JSON.parse(pouchctl('jwk', '--key', this.encPem)).jkt;
    const info = Buffer.from(`pouch/confirm/v2${this.requestId}${this.jkt}${encJkt}`);
    const okm = Buffer.from(nodeCrypto.hkdfSync('sha256', nonce, Buffer.alloc(0), info, 32));
    const n = (okm.readBigUInt64BE(0) % 10n ** 12n).toString().padStart(12, '0');
    const keys = [this.signPub.x, this.signPub.y, this.encPub.x, this.encPub.y].join('.');
    return {
      requestId: this.requestId,
      link: `${base}#keys=${keys}&n=${nonce.toString('base64url')}`,
      code: `${n.slice(0, 4)}-${n.slice(4, 8)}-${n.slice(8)}`,
      fingerprint: this.jkt.slice(0, 16).match(/.{4}/g).join(' '),
    };
  }

  // The long-poll redeem (wait 30 s), as the terminal does while the person approves.
  async redeem() {
    const r = await this.call('POST', '/v1/cli-auth/token', { request_id: this.requestId, code_verifier: this.verifier, wait: 30 });
    if (r.status !== 200 || r.json.data.status !== 'approved') throw new Error(`redeem: ${r.status} ${JSON.stringify(r.json)}`);
    this.accessToken = r.json.data.access_token;
    this.memberId = r.json.data.member_id;
    this.deviceId = r.json.data.device_id;
    this.welcomeString = r.json.data.welcome;
    return r.json.data;
  }

  async encPair() {
    const jwk = nodeCrypto.createPrivateKey(fs.readFileSync(this.encPem)).export({ format: 'jwk' });
    return this.WP.importEncryptionPair(jwk);
  }

  // After redeeming: open the welcome, verify the roster against it, open the key envelopes.
  async join() {
    const W = this.W;
    const pair = await this.encPair();
    this.welcome = await W.openWelcome(pair, this.requestId, this.welcomeString);
    const roster = await this.call('GET', '/v1/account/roster');
    if (roster.status !== 200) throw new Error(`roster: ${roster.status}`);
    const verified = await W.verifyRoster(roster.json.data.items, [this.welcome.roster_head]);
    if (verified.genesisHash !== this.welcome.genesis_hash) throw new Error('genesis hash differs from the welcome');
    const mine = verified.members.get(this.memberId);
    if (!mine || mine.added_seq !== this.welcome.roster_head.seq || !this.WP.sameJwk(mine.sign_pub, this.signPub) ||
        !this.WP.sameJwk(mine.enc_pub, this.encPub)) {
      throw new Error('the roster head of the welcome does not add this device with its keys');
    }
    const approver = verified.members.get(this.welcome.approver.member_id);
    if (!approver || approver.removed_seq !== null) throw new Error('the approver is not an active member');
    this.roster = verified;
    this.keys = new Map();
    const pouches = await this.call('GET', '/v1/pouches');
    for (const p of pouches.json.data.items) {
      const envs = await this.call('GET', `/v1/pouches/${p.id}/key-envelopes?member_id=${this.memberId}`);
      for (const e of envs.json.data.items) {
        const creator = verified.members.get(e.created_by_member);
        this.keys.set(`${p.id}/${e.key_gen}`, await W.openKeyEnvelope(e, pair, creator.sign_pub));
      }
    }
    return { welcome: this.welcome, roster: verified, pouches: pouches.json.data.items };
  }

  // Reads and decrypts every live artifact of a pouch with the keys it holds.
  async files(pouchId) {
    const r = await this.call('GET', `/v1/pouches/${pouchId}/artifacts`);
    const out = [];
    for (const a of r.json.data.items) {
      const h = a.head;
      const signer = this.roster.members.get(h.signer_member_id);
      const ok = await this.W.verifyRevision(signer.sign_pub, pouchId, a.id, h.id, h.envelope, h.signature);
      if (!ok) throw new Error(`revision ${h.id}: bad signature`);
      out.push(await this.W.openArtifact({ pouchId, artifactId: a.id, revisionId: h.id, keyGen: h.key_gen,
        pouchKey: this.keys.get(`${pouchId}/${h.key_gen}`), envelope: h.envelope }));
    }
    return out;
  }

  cleanup() { fs.rmSync(this.dir, { recursive: true, force: true }); }
}
