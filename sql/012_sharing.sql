-- 012_sharing.sql -- issue 24, pouches shared between accounts (docs/SHARING.md §4-§9).
-- pouch_access: which accounts reach a pouch and with what role; the pouch scope of every
-- /v1/pouches/{id} path reads it (common/model/pouch.h): only an `active` row finds the pouch.
-- pouches.account_id stays the owner (who pays, §8). access_statements: the signed access list;
-- key_grants: pouch keys sealed to account identities; invitations.
-- An invited account may be a stand-in of an address without an account (SHARING.md §2): the
-- account ids of pouch_access, key_grants and invitations (invitee) have no foreign key, so
-- an invitation to a stand-in is stored exactly like one to a real account.

CREATE TABLE pouch_access (
    pouch_id     uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    account_id   uuid NOT NULL,  -- no foreign key: may be a stand-in (above)
    role         text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
    state        text NOT NULL CHECK (state IN ('active', 'invited', 'expired', 'removed', 'left',
                                                'declined', 'withdrawn')),
    since        timestamptz NOT NULL DEFAULT now(),  -- when the state began
    shared_at    timestamptz NOT NULL DEFAULT now(),  -- its latest share (the oldest admin inherits)
    access_index bigint,  -- the access statement that set the role or state (NULL: the owner's row
                          -- of a pouch never shared)
    PRIMARY KEY (pouch_id, account_id)
);
-- GET /v1/pouches: the pouches an account reaches.
CREATE INDEX pouch_access_account ON pouch_access (account_id) WHERE state = 'active';

-- The owner's row of every pouch, as admin: every pouch that exists, and every new one (a
-- trigger, so that genesis, POST /v1/pouches and any later path make it alike).
INSERT INTO pouch_access (pouch_id, account_id, role, state, since, shared_at)
SELECT id, account_id, 'admin', 'active', created_at, created_at FROM pouches;

CREATE FUNCTION pouch_access_owner() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO pouch_access (pouch_id, account_id, role, state, since, shared_at)
    VALUES (NEW.id, NEW.account_id, 'admin', 'active', NEW.created_at, NEW.created_at);
    RETURN NEW;
END $$;
CREATE TRIGGER pouches_owner_access AFTER INSERT ON pouches
    FOR EACH ROW EXECUTE FUNCTION pouch_access_owner();

-- The access list (SHARING.md §4), in index order like the roster.
CREATE TABLE access_statements (
    pouch_id   uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    idx        bigint NOT NULL CHECK (idx >= 0),
    kind       text NOT NULL CHECK (kind IN ('share', 'role', 'remove', 'leave')),
    account_id uuid NOT NULL,         -- the account the statement is about
    key_gen    bigint NOT NULL CHECK (key_gen >= 1),  -- from which it applies (rotation_pending)
    statement  text NOT NULL,
    signature  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, idx)
);

-- Key grants (§5): one pouch key generation sealed to one account's identity.
CREATE TABLE key_grants (
    pouch_id   uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    account_id uuid NOT NULL,  -- no foreign key: may be a stand-in
    key_gen    bigint NOT NULL CHECK (key_gen >= 1),
    hpke_enc   text NOT NULL,
    ciphertext text NOT NULL,
    granted_by uuid NOT NULL,
    signature  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, account_id, key_gen)
);

-- Invitations (§6). The id is chosen by the client. `expired` is written lazily: the first
-- read or write that meets a pending invitation past expires_at marks it (and its pouch_access
-- row), so no timer is needed.
CREATE TABLE invitations (
    id                 uuid PRIMARY KEY,
    pouch_id           uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    inviter_account_id uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    invitee_account_id uuid NOT NULL,  -- no foreign key: may be a stand-in
    email              text NOT NULL,
    role               text NOT NULL CHECK (role IN ('read', 'write', 'admin')),
    state              text NOT NULL DEFAULT 'pending'
                       CHECK (state IN ('pending', 'accepted', 'declined', 'withdrawn', 'expired')),
    created_at         timestamptz NOT NULL DEFAULT now(),
    expires_at         timestamptz NOT NULL,
    decided_at         timestamptz,
    access_index       bigint NOT NULL  -- the `share` statement's index
);
CREATE INDEX invitations_inviter ON invitations (inviter_account_id, created_at);
CREATE INDEX invitations_invitee ON invitations (invitee_account_id, created_at);
CREATE INDEX invitations_pouch ON invitations (pouch_id, created_at);
-- The limit of 100 pending invitations per inviting account counts these.
CREATE INDEX invitations_pending ON invitations (inviter_account_id) WHERE state = 'pending';

-- What sharing stores counts against the owner's plan (SHARING.md §8), like key envelopes
-- (sql/008_tenant_bounds.sql): key_grants have the same byte columns and reuse its trigger
-- function; access statements count as roster statements do.
CREATE TRIGGER key_grants_meta_ins AFTER INSERT ON key_grants
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_envelopes();
CREATE TRIGGER key_grants_meta_del AFTER DELETE ON key_grants
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_envelopes();

CREATE FUNCTION meta_bytes_access() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes + d.bytes
          FROM (SELECT p.account_id, sum(statement_bytes(n.statement, n.signature)) AS bytes
                  FROM new_rows n JOIN pouches p ON p.id = n.pouch_id GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    ELSE
        UPDATE storage_accounts a SET meta_bytes = a.meta_bytes - d.bytes
          FROM (SELECT p.account_id, sum(statement_bytes(o.statement, o.signature)) AS bytes
                  FROM old_rows o JOIN pouches p ON p.id = o.pouch_id GROUP BY 1) d
         WHERE a.id = d.account_id AND d.bytes <> 0;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER access_statements_meta_ins AFTER INSERT ON access_statements
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_access();
CREATE TRIGGER access_statements_meta_del AFTER DELETE ON access_statements
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION meta_bytes_access();
