-- 011_identity.sql -- issue 24, account identities (docs/SHARING.md §1, §2, §8).
-- account_identities: the public half of each account's identity, as its signed identity
-- statement (the statement string, its signature, and the two public JWKs read out of it so
-- statements about access can compare keys without decoding). Written once (PUT
-- /v1/account/identity), never changed: identities do not rotate.
-- identity_envelopes: the identity's private keys sealed to each member (the six fields of
-- SHARING.md §1), one per member; the browser writes them with the identity, an approval one
-- for its new CLI member.
-- service_secrets: secrets the service draws itself. `stand_in` keys the stand-ins the lookup
-- answers for addresses without an identity (§2); 32 bytes as hex, drawn here from two v4
-- uuids (gen_random_uuid uses the server's strong random source: 244 random bits).
-- created_at dates the stand-ins' statements.
-- audit_log.account_id: the account whose log an entry belongs to (the pouch owner's for a
-- sharing change), read by GET /v1/account/audit; NULL for service-wide entries (plans, roles).

CREATE TABLE account_identities (
    account_id uuid PRIMARY KEY REFERENCES storage_accounts (id) ON DELETE CASCADE,
    statement  text NOT NULL,
    signature  text NOT NULL,
    sign_pub   text NOT NULL,  -- the statement's sign_pub, as JSON text {"kty","crv","x","y"}
    enc_pub    text NOT NULL,  -- its enc_pub, likewise
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE identity_envelopes (
    account_id        uuid NOT NULL REFERENCES account_identities (account_id) ON DELETE CASCADE,
    member_id         uuid PRIMARY KEY REFERENCES members (id) ON DELETE CASCADE
                      DEFERRABLE INITIALLY DEFERRED,
    hpke_enc          text NOT NULL,
    ciphertext        text NOT NULL,
    created_by_member uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE
                      DEFERRABLE INITIALLY DEFERRED,
    signature         text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX identity_envelopes_account ON identity_envelopes (account_id);

CREATE TABLE service_secrets (
    name       text PRIMARY KEY,
    secret     text NOT NULL CHECK (secret ~ '^[0-9a-f]{64}$'),
    created_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO service_secrets (name, secret)
VALUES ('stand_in', replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''));

ALTER TABLE audit_log ADD COLUMN account_id uuid REFERENCES storage_accounts (id) ON DELETE SET NULL;
CREATE INDEX audit_log_account ON audit_log (account_id, id) WHERE account_id IS NOT NULL;
