// pouchctl_sharing.mjs -- the strings pouchctl makes for sharing (identity-statement,
// identity-envelope, access-statement, key-grant; docs/SHARING.md) verify and open in the web
// app's crypto module, as the smoke tests rely on. Prints `PASS name` / `FAIL name: detail`;
// exits 1 on any failure. Run by run.sh with POUCH_ROOT and POUCHCTL set.
import { spawnSync } from 'node:child_process';
import * as nodeCrypto from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.env.POUCH_ROOT;
const POUCHCTL = process.env.POUCHCTL;
const webUrl = (f) => pathToFileURL(path.join(ROOT, 'clients/web', f)).href;
const W = await import(webUrl('src/crypto/format.js'));
const WP = await import(webUrl('src/crypto/primitives.js'));

let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    if (detail) throw new Error(detail);
    console.log(`PASS ${name}`);
  } catch (e) {
    failed++;
    console.log(`FAIL ${name}: ${e.message}`);
  }
}
function eq(what, got, want) {
  if (got !== want) throw new Error(`${what}: got ${String(got).slice(0, 120)}, want ${String(want).slice(0, 120)}`);
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pouchctl-sharing-'));
const f = (name) => path.join(dir, name);
function ctl(...args) {
  const r = spawnSync(POUCHCTL, args, { encoding: 'utf8', timeout: 60_000, killSignal: 'SIGKILL' });
  if (r.error) throw new Error(`pouchctl ${args[0]}: ${r.error.message}`);
  if (r.status !== 0) throw new Error(`pouchctl ${args[0]} exited ${r.status}: ${r.stderr.trim()}`);
  return r.stdout.trim() ? JSON.parse(r.stdout) : null;
}
const privJwk = (file) => nodeCrypto.createPrivateKey(fs.readFileSync(file)).export({ format: 'jwk' });
const pubJwk = (file) => { const { kty, crv, x, y } = privJwk(file); return { kty, crv, x, y }; };
const uuid = () => nodeCrypto.randomUUID();

try {
  const owner = { account: uuid(), member: uuid() };
  const bea = { account: uuid(), member: uuid(), cli: uuid() };
  const pouch = uuid();
  for (const [name, a] of [['owner', owner], ['bea', bea]]) {
    ctl('keygen', '--out', f(`${name}-member.pem`));
    a.genesis = ctl('genesis-statement', '--member', a.member, '--key', f(`${name}-member.pem`));
    fs.writeFileSync(f(`${name}-genesis.json`), JSON.stringify(a.genesis));
  }

  await check('pouchctl_identity_statement_binds_to_its_genesis', async () => {
    owner.identity = ctl('identity-statement', '--account', owner.account, '--genesis', f('owner-genesis.json'),
      '--key', f('owner-member.pem'), '--sign-out', f('owner-id-sign.pem'), '--enc-out', f('owner-id-enc.pem'));
    bea.identity = ctl('identity-statement', '--account', bea.account, '--genesis', JSON.stringify(bea.genesis),
      '--key', f('bea-member.pem'), '--sign-out', f('bea-id-sign.pem'), '--enc-out', f('bea-id-enc.pem'));
    const body = await W.verifyIdentity(owner.identity, owner.genesis);
    eq('account', body.account_id, owner.account);
    eq('by', body.by, owner.member);
    eq('sign_pub', body.sign_pub.x, pubJwk(f('owner-id-sign.pem')).x);
    eq('enc_pub', body.enc_pub.y, pubJwk(f('owner-id-enc.pem')).y);
    await W.verifyIdentity(bea.identity, bea.genesis);
    const byOther = ctl('identity-statement', '--account', owner.account, '--genesis', f('owner-genesis.json'),
      '--key', f('owner-member.pem'), '--by', uuid(), '--sign-out', f('x-sign.pem'), '--enc-out', f('x-enc.pem'));
    let refused = false;
    try { await W.verifyIdentity(byOther, owner.genesis); } catch { refused = true; }
    eq('--by another member is refused', refused, true);
  });

  await check('pouchctl_identity_envelope_opens_to_the_identity', async () => {
    ctl('keygen', '--out', f('bea-cli-enc.pem'));
    const e = ctl('identity-envelope', '--account', bea.account, '--member', bea.cli, '--to', f('bea-cli-enc.pem'),
      '--sign-key', f('bea-id-sign.pem'), '--enc-key', f('bea-id-enc.pem'), '--creator', bea.member,
      '--creator-key', f('bea-member.pem'));
    const body = W.decodeIdentity(bea.identity.statement);
    const opened = await W.openIdentityEnvelope(e, await WP.importEncryptionPair(privJwk(f('bea-cli-enc.pem'))),
      pubJwk(f('bea-member.pem')), body);
    eq('sign d', opened.signPriv.d, privJwk(f('bea-id-sign.pem')).d);
    eq('enc d', opened.encPriv.d, privJwk(f('bea-id-enc.pem')).d);
  });

  await check('pouchctl_access_statements_verify_as_a_list', async () => {
    const items = [];
    const add = (kind, by, about, role, gen) => {
      const prev = items.length ? ['--prev-statement', items[items.length - 1].statement] : [];
      items.push(ctl('access-statement', '--pouch', pouch, '--seq', String(items.length), ...prev, '--kind', kind,
        '--by', by.account, '--account', about.account, '--sign-pub', f(`${about.name}-id-sign.pem`),
        '--enc-pub', JSON.stringify(pubJwk(f(`${about.name}-id-enc.pem`))), '--role', role, '--key-gen', String(gen),
        '--key', f(`${by.name}-id-sign.pem`)));
    };
    owner.name = 'owner';
    bea.name = 'bea';
    add('share', owner, owner, 'admin', 1);
    add('share', owner, bea, 'write', 1);
    add('role', owner, bea, 'read', 2);
    add('leave', bea, bea, 'read', 3);
    const list = await W.verifyAccessList(pouch, items);
    eq('owner', list.owner, owner.account);
    eq('key_gen', list.keyGen, 3);
    eq('bea at 1', list.roleAt(bea.account, 1), 'write');
    eq('bea at 2', list.roleAt(bea.account, 2), 'read');
    eq('bea at 3', list.roleAt(bea.account, 3), '');
    owner.list = list;
  });

  await check('pouchctl_key_grant_opens_with_the_identity_key', async () => {
    const key = nodeCrypto.randomBytes(32);
    const g = ctl('key-grant', '--pouch', pouch, '--account', bea.account, '--key-gen', '1', '--to', f('bea-id-enc.pem'),
      '--pouch-key', key.toString('base64url'), '--by', owner.account, '--key', f('owner-id-sign.pem'));
    eq('refusal', await W.keyGrantRefusal(g, owner.list, pouch, bea.account), null);
    const opened = await W.openKeyGrant(g, await WP.importEncryptionPair(privJwk(f('bea-id-enc.pem'))));
    eq('pouch key', Buffer.from(opened).toString('hex'), key.toString('hex'));
    const forged = ctl('key-grant', '--pouch', pouch, '--account', bea.account, '--key-gen', '1', '--to', f('bea-id-enc.pem'),
      '--by', owner.account, '--key', f('bea-id-sign.pem'));
    eq('signed by another identity', await W.keyGrantRefusal(forged, owner.list, pouch, bea.account), 'bad_signature');
  });
} catch (e) {
  failed++;
  console.log(`FAIL pouchctl_sharing_setup: ${e.message}`);
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}

console.log(failed ? `# pouchctl sharing: ${failed} failed` : '# pouchctl sharing: all passed');
process.exit(failed ? 1 : 0);
