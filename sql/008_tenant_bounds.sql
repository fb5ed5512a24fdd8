-- 008_tenant_bounds.sql -- everything a tenant stores counts (decisions §13): key envelopes,
-- roster statements and live share bundles join revisions and blobs in the account's usage.
-- Their bytes are kept in storage_accounts.meta_bytes by statement-level triggers, so no
-- writer can forget them (one UPDATE of the account row per statement, not per row). A writer
-- of these tables must therefore lock its account row before any pouch row: every path does
-- (common/model/usage.h), so the account -> pouch lock order holds and no deadlock forms.
-- account_stored_bytes() is the one usage formula; gc purges the bundles of shares that can
-- never be fetched again (bundle NULL), which gives their bytes back.

ALTER TABLE storage_accounts
    ADD COLUMN meta_bytes bigint NOT NULL DEFAULT 0 CHECK (meta_bytes >= 0);

ALTER TABLE shares ALTER COLUMN bundle DROP NOT NULL;

-- Stored bytes of one row of each table: the opaque strings the tenant sent, as stored.
CREATE FUNCTION envelope_bytes(hpke_enc text, ciphertext text, signature text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (octet_length(hpke_enc) + octet_length(ciphertext) + octet_length(signature))::bigint $$;

CREATE FUNCTION statement_bytes(statement text, signature text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT (octet_length(statement) + octet_length(signature))::bigint $$;

CREATE FUNCTION share_bytes(bundle text, label_enc text) RETURNS bigint
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT CASE WHEN bundle IS NULL THEN 0
                  ELSE octet_length(bundle) + octet_length(label_enc) END::bigint $$;

UPDATE storage_accounts a SET meta_bytes =
      coalesce((SELECT sum(envelope_bytes(k.hpke_enc, k.ciphertext, k.signature))
                  FROM key_envelopes k JOIN pouches p ON p.id = k.pouch_id
                 WHERE p.account_id = a.id), 0)
    + coalesce((SELECT sum(statement_bytes(r.statement, r.signature))
                  FROM roster_entries r WHERE r.account_id = a.id), 0)
    + coalesce((SELECT sum(share_bytes(s.bundle, s.label_enc))
                  FROM shares s WHERE s.account_id = a.id), 0);

-- Each trigger adds the per-account sum of its rows' bytes to meta_bytes (negative for deleted
-- rows). Accounts whose sum is 0 are left alone, so a statement that stores nothing (a share
-- fetched or revoked) takes no lock on the account row.
CREATE FUNCTION meta_bytes_envelopes() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes + d.bytes
          FROM (SELECT p.account_id, sum(envelope_bytes(n.hpke_enc, n.ciphertext, n.signature)) AS bytes
                  FROM new_rows n JOIN pouches p ON p.id = n.pouch_id GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    ELSE
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes - d.bytes
          FROM (SELECT p.account_id, sum(envelope_bytes(o.hpke_enc, o.ciphertext, o.signature)) AS bytes
                  FROM old_rows o JOIN pouches p ON p.id = o.pouch_id GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION meta_bytes_roster() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes + d.bytes
          FROM (SELECT account_id, sum(statement_bytes(statement, signature)) AS bytes
                  FROM new_rows GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    ELSE
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes - d.bytes
          FROM (SELECT account_id, sum(statement_bytes(statement, signature)) AS bytes
                  FROM old_rows GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    END IF;
    RETURN NULL;
END $$;

CREATE FUNCTION meta_bytes_shares_in() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE storage_accounts a SET meta_bytes = a.meta_bytes + d.bytes
      FROM (SELECT account_id, sum(share_bytes(bundle, label_enc)) AS bytes
              FROM new_rows GROUP BY 1) d
     WHERE a.id = d.account_id AND d.bytes <> 0;
    RETURN NULL;
END $$;

CREATE FUNCTION meta_bytes_shares_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE storage_accounts a SET meta_bytes = a.meta_bytes - d.bytes
      FROM (SELECT account_id, sum(share_bytes(bundle, label_enc)) AS bytes
              FROM old_rows GROUP BY 1) d
     WHERE a.id = d.account_id AND d.bytes <> 0;
    RETURN NULL;
END $$;

CREATE FUNCTION meta_bytes_shares_changed() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE storage_accounts a SET meta_bytes = a.meta_bytes + d.bytes
      FROM (SELECT account_id, sum(bytes) AS bytes
              FROM (SELECT account_id, share_bytes(bundle, label_enc) AS bytes FROM new_rows
                    UNION ALL
                    SELECT account_id, -share_bytes(bundle, label_enc) FROM old_rows) x
             GROUP BY 1) d
     WHERE a.id = d.account_id AND d.bytes <> 0;
    RETURN NULL;
END $$;

-- Transition tables allow one event per trigger.
CREATE TRIGGER key_envelopes_meta_ins AFTER INSERT ON key_envelopes
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_envelopes();
CREATE TRIGGER key_envelopes_meta_del AFTER DELETE ON key_envelopes
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_envelopes();
CREATE TRIGGER roster_entries_meta_ins AFTER INSERT ON roster_entries
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_roster();
CREATE TRIGGER roster_entries_meta_del AFTER DELETE ON roster_entries
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_roster();
CREATE TRIGGER shares_meta_ins AFTER INSERT ON shares
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_shares_in();
CREATE TRIGGER shares_meta_del AFTER DELETE ON shares
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_shares_out();
CREATE TRIGGER shares_meta_upd AFTER UPDATE ON shares
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
    FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_shares_changed();

-- The one usage formula (decisions §5.5, §13): blobs, revisions of every pouch, key envelopes,
-- roster statements and stored share bundles. Reservations are separate: they count against
-- the limit, not as usage.
CREATE FUNCTION account_stored_bytes(account uuid) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT a.blob_bytes + a.meta_bytes
           + coalesce((SELECT sum(p.stored_bytes) FROM pouches p WHERE p.account_id = a.id), 0)::bigint
        FROM storage_accounts a WHERE a.id = account $$;

CREATE FUNCTION account_reserved_bytes(account uuid) RETURNS bigint
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT coalesce(sum(r.stored_size), 0)::bigint FROM blob_reservations r
       WHERE r.account_id = account AND r.expires_at > now() $$;

-- Live shares per account (at most 1,000 active, decisions §13) and gc's purge of bundles.
CREATE INDEX shares_account_live ON shares (account_id) WHERE revoked_at IS NULL AND consumed_at IS NULL;
CREATE INDEX shares_purgeable ON shares (expires_at) WHERE bundle IS NOT NULL;

-- Retention (decisions §13): `pouchctl gc` finds expired rows by these.
CREATE INDEX web_sessions_expires ON web_sessions (expires_at);
CREATE INDEX access_tokens_expires ON access_tokens (expires_at);
CREATE INDEX refresh_tokens_expires ON refresh_tokens (expires_at);
CREATE INDEX commit_log_created ON commit_log (created_at);
