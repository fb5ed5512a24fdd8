// sharing.mjs -- the browser suite's steps for pouches shared between accounts (docs/SHARING.md
// §10): the identity made at sign-in (its keys not extractable), three accounts in three
// browsers, a look-up showing the safety number (the same 60 digits on both sides), an invite
// accepted, both accounts reading and writing by role (read: uploads off with a note), a removal
// after which the removed account reads nothing new, and the red banner for an identity the
// service swaps (the adversary of §3), accepted only after "I compared the new safety number".
// run.mjs calls sharingSteps with its helpers; the steps hand on through `S`.
import * as nodeCrypto from 'node:crypto';

export async function sharingSteps(h) {
  const { test, eq, ok, shot, apiAs, newContext, watch, BASE, S, page, W, WP } = h;
  const first = 'onboarding_makes_keys_kit_roster_and_first_pouch';
  const files = 'upload_then_download_5mb_and_a_small_file';

  // A new account made in its own browser context, as a person does: sign up, keys, kit, genesis.
  async function onboard(name) {
    const c = await newContext();
    const p = watch(await c.newPage());
    const email = `${name}.${nodeCrypto.randomUUID().slice(0, 8)}@example.com`;
    await p.goto(`${BASE}/signup`);
    await p.getByLabel('Email').fill(email);
    await p.getByLabel('Password').fill('correct horse battery');
    await p.getByRole('button', { name: 'Sign up' }).click();
    await p.getByRole('button', { name: 'Make my keys' }).click();
    await Promise.all([p.waitForEvent('download'), p.getByRole('button', { name: 'Download recovery kit' }).click()]);
    await p.getByLabel('I have saved the recovery kit').check();
    await p.getByRole('button', { name: 'Create my account' }).click();
    await p.getByRole('link', { name: 'Pouch 1' }).waitFor();
    const token = await p.evaluate(() => localStorage.getItem('pouch.session'));
    const account = (await apiAs(token, 'GET', '/v1/account')).json.data;
    return { c, p, email, token, account };
  }

  // Waits for `loc` on page p; an error the page shows meanwhile fails the step with its words.
  async function settle(p, loc, timeout = 30000) {
    const err = p.locator('p.error[role=alert]').first();
    try {
      await Promise.race([
        loc.waitFor({ timeout }),
        err.waitFor({ timeout }).then(async () => { throw new Error(`the page says: ${await err.textContent()}`); }, () => {}),
      ]);
    } catch (e) {
      await shot(p, `FAILED-${nodeCrypto.randomUUID().slice(0, 6)}`);  // the other account's page
      throw e;
    }
  }

  const digitsOn = async (p) => (await p.getByTestId('safety-number').first().locator('.safety-digits').getAttribute('aria-label')).replace('Safety number: ', '');

  await test('sharing_the_identity_is_made_at_genesis_and_kept_unexportable', [first], async () => {
    const r = await apiAs(S.token, 'GET', '/v1/account/identity');
    eq('GET /v1/account/identity', r.status, 200);
    ok(r.json.data.identity && r.json.data.envelope, 'the account has an identity and this member an envelope');
    const roster = (await apiAs(S.token, 'GET', '/v1/account/roster')).json.data.items;
    const body = await W.verifyIdentity(r.json.data.identity, roster[0]);
    eq('the identity is the account\'s', body.account_id, S.account.storage_account_id);
    eq('the envelope is this member\'s', r.json.data.envelope.member_id, S.account.member_id);
    const kept = await page.evaluate(() => new Promise((resolve, reject) => {
      const req = indexedDB.open('pouch');
      req.onsuccess = () => {
        const t = req.result.transaction('identities').objectStore('identities').getAll();
        t.onsuccess = () => resolve(t.result.map((m) => [m.sign.privateKey.extractable, m.enc.privateKey.extractable, m.sign_pub.x]));
        t.onerror = () => reject(t.error);
      };
    }));
    eq('IndexedDB identity keys', JSON.stringify(kept), JSON.stringify([[false, false, body.sign_pub.x]]));
  });

  await test('sharing_invite_shows_the_same_safety_number_on_both_sides_and_accept_reads_the_files', [files, 'sharing_the_identity_is_made_at_genesis_and_kept_unexportable'], async () => {
    S.bea = await onboard('bea');
    await page.goto(`${BASE}/pouches/${S.pouch.id}`);
    await page.getByTestId('members').waitFor();
    await page.getByRole('button', { name: 'Share this pouch' }).click();
    await page.getByLabel('Their e-mail address').fill(S.bea.email);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByTestId('safety-number').waitFor();
    const ours = await digitsOn(page);
    ok(/^(\d{5} ){11}\d{5}$/.test(ours), `60 digits in 12 groups: ${ours}`);
    ok(await page.locator('svg.qr path').count() === 1, 'a QR code is drawn');
    await shot(page, 'share-dialog-safety-number');
    await page.getByRole('radio', { name: /Write:/ }).check();
    await page.getByRole('button', { name: 'Invite' }).click();
    await settle(page, page.getByText('Invitation sent to'));
    await shot(page, 'share-dialog-sent');

    const b = S.bea.p;
    await b.getByRole('link', { name: 'Invitations' }).click();
    await b.getByTestId('safety-number').waitFor({ timeout: 30000 });
    eq('the invitee sees the same safety number', await digitsOn(b), ours);
    await shot(b, 'invitations-received');
    await b.getByRole('button', { name: 'Accept' }).click();
    await settle(b, b.getByText('No invitations wait for you.'));
    await b.goto(`${BASE}/pouches/${S.pouch.id}`);
    await b.getByRole('cell', { name: 'hello.txt', exact: true }).waitFor({ timeout: 30000 });
    eq('bea\'s role', await b.getByTestId('my-role').textContent(), 'write');
    // bea writes; ada reads what bea wrote (signed by another account's member).
    await b.locator('#upload').setInputFiles([{ name: 'from-bea.txt', mimeType: 'text/plain', buffer: Buffer.from('bea wrote this\n') }]);
    await b.getByRole('cell', { name: 'from-bea.txt', exact: true }).waitFor({ timeout: 30000 });
    await page.goto(`${BASE}/pouches/${S.pouch.id}`);
    await page.getByRole('cell', { name: 'from-bea.txt', exact: true }).waitFor({ timeout: 30000 });
    await page.getByTestId('member-' + S.bea.email).waitFor();
    await shot(page, 'pouch-members');
  });

  await test('sharing_a_read_role_turns_uploads_off_with_a_note', ['sharing_invite_shows_the_same_safety_number_on_both_sides_and_accept_reads_the_files'], async () => {
    S.cy = await onboard('cy');
    await page.goto(`${BASE}/pouches/${S.pouch.id}`);
    await page.getByRole('button', { name: 'Share this pouch' }).click();
    await page.getByLabel('Their e-mail address').fill(S.cy.email);
    await page.getByRole('button', { name: 'Look up' }).click();
    await page.getByTestId('safety-number').waitFor();
    await page.getByRole('button', { name: 'Invite' }).click();  // read is the default role
    await settle(page, page.getByText('Invitation sent to'));
    const c = S.cy.p;
    await c.goto(`${BASE}/invitations`);
    await settle(c, c.getByTestId('safety-number'));
    await c.getByRole('button', { name: 'Accept' }).click();
    await settle(c, c.getByText('No invitations wait for you.'));
    await c.goto(`${BASE}/pouches/${S.pouch.id}`);
    await c.getByRole('cell', { name: 'from-bea.txt', exact: true }).waitFor({ timeout: 30000 });
    ok((await c.getByTestId('write-blocked').textContent()).includes('role in this pouch is read'), 'the page says why uploads are off');
    ok(await c.locator('#upload').isDisabled(), 'the upload input is disabled for read');
    await shot(c, 'pouch-read-only');
    // The service refuses too: a commit from a read account is 403 insufficient_role.
    const r = await apiAs(S.cy.token, 'POST', `/v1/pouches/${S.pouch.id}/blobs/check`, { blobs: [] });
    eq('blob check as read', `${r.status} ${r.json.error?.code}`, '403 insufficient_role');
  });

  await test('sharing_a_removed_account_reads_nothing_new', ['sharing_invite_shows_the_same_safety_number_on_both_sides_and_accept_reads_the_files'], async () => {
    const before = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
    await page.goto(`${BASE}/pouches/${S.pouch.id}`);
    const row = page.getByTestId('member-' + S.bea.email);
    await row.getByRole('button', { name: 'Remove' }).click();
    await settle(page, row, 30000).then(() => row.waitFor({ state: 'detached', timeout: 30000 }));
    const after = (await apiAs(S.token, 'GET', `/v1/pouches/${S.pouch.id}`)).json.data.key_gen;
    eq('the removal rotated the pouch key', after, before + 1);
    await page.locator('#upload').setInputFiles([{ name: 'after-removal.txt', mimeType: 'text/plain', buffer: Buffer.from('not for bea\n') }]);
    await page.getByRole('cell', { name: 'after-removal.txt', exact: true }).waitFor({ timeout: 30000 });
    const r = await apiAs(S.bea.token, 'GET', `/v1/pouches/${S.pouch.id}/artifacts`);
    eq('the removed account gets 404 for the pouch', `${r.status} ${r.json.error?.code}`, '404 not_found');
    const g = await apiAs(S.bea.token, 'GET', `/v1/pouches/${S.pouch.id}/key-grants`);
    eq('and no grant of the new generation', g.status, 404);
    // cy (read, still in) gets the new generation from ada's grant and reads the new file.
    if (S.cy) {
      await S.cy.p.goto(`${BASE}/pouches/${S.pouch.id}`);
      await S.cy.p.getByRole('cell', { name: 'after-removal.txt', exact: true }).waitFor({ timeout: 30000 });
    }
  });

  // The service (the adversary of §3) answers a look-up of bea with another identity for bea's
  // account, well signed and bound to a genesis of its own: the page names bea in a red banner and
  // shares nothing until the new safety number is accepted.
  await test('sharing_a_changed_identity_shows_a_red_banner_until_accepted', ['sharing_invite_shows_the_same_safety_number_on_both_sides_and_accept_reads_the_files'], async () => {
    const sign = await WP.generateSigningKey(true);
    const enc = await WP.generateEncryptionKey(true);
    const signPriv = await WP.exportJwk(sign.privateKey);
    const encPriv = await WP.exportJwk(enc.privateKey);
    const memberId = nodeCrypto.randomUUID();
    const genesis = await W.signStatement(W.statementBody({ seq: 0, prev: '', kind: 'genesis', by: memberId, member_id: memberId,
      sign_pub: WP.publicJwk(signPriv), enc_pub: WP.publicJwk(encPriv), label: 'web', device_id: null, at: '2026-01-01T00:00:00Z' }), sign.privateKey);
    const identity = await W.signIdentity(W.identityBody({ account_id: S.bea.account.storage_account_id, genesis_hash: W.statementHash(genesis.statement),
      by: memberId, sign_pub: WP.publicJwk(signPriv), enc_pub: WP.publicJwk(encPriv), at: '2026-01-01T00:00:00Z' }), sign.privateKey);
    await page.route(/\/v1\/identities\?/, (route) => route.fulfill({ status: 200, contentType: 'application/json',
      body: JSON.stringify({ ok: true, data: { account_id: S.bea.account.storage_account_id, email: S.bea.email, identity, genesis }, meta: {} }) }));
    try {
      await page.goto(`${BASE}/pouches/${S.pouch.id}`);
      await page.getByRole('button', { name: 'Share this pouch' }).click();
      await page.getByLabel('Their e-mail address').fill(S.bea.email);
      await page.getByRole('button', { name: 'Look up' }).click();
      const banner = page.getByTestId('identity-banner');
      await banner.waitFor({ timeout: 30000 });
      ok((await banner.textContent()).includes(S.bea.email), 'the banner names bea');
      ok(await page.getByRole('button', { name: 'Invite' }).count() === 0, 'nothing can be sent to the changed identity');
      await shot(page, 'identity-changed-banner');
      await banner.getByRole('button', { name: 'Show the new safety number' }).click();
      await banner.getByTestId('safety-number').waitFor();
      await shot(page, 'identity-changed-safety-number');
      await banner.getByRole('button', { name: 'I compared the new safety number' }).click();
      await banner.waitFor({ state: 'detached', timeout: 10000 });
    } finally {
      await page.unroute(/\/v1\/identities\?/);
    }
  });

  for (const who of [S.bea, S.cy]) await who?.c.close();
}
