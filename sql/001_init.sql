-- 001_init.sql -- the whole data model of decisions.md, applied by `pouchctl migrate` in one
-- transaction (so no BEGIN/COMMIT here). Needs PostgreSQL 13+ (gen_random_uuid built in).
-- Conventions: ids are uuid; times are timestamptz; tokens and secrets are stored only as
-- text b64url(SHA-256); counters carry CHECKs. Foreign keys that close a cycle (member <->
-- device, account -> web member, artifact -> head revision) are DEFERRABLE INITIALLY
-- DEFERRED so one transaction may insert the rows in any order.

CREATE TABLE plans (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    slug               text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,63}$'),
    name               text NOT NULL,
    description        text NOT NULL DEFAULT '',
    price_cents        bigint NOT NULL DEFAULT 0 CHECK (price_cents >= 0),
    currency           char(3) NOT NULL DEFAULT 'USD' CHECK (currency ~ '^[A-Z]{3}$'),
    interval           text NOT NULL DEFAULT 'none' CHECK (interval IN ('month', 'year', 'none')),
    pouch_limit        int NOT NULL CHECK (pouch_limit >= 1),
    storage_bytes      bigint NOT NULL CHECK (storage_bytes >= 0),
    billing_product_id text,
    is_default         boolean NOT NULL DEFAULT false,
    is_public          boolean NOT NULL DEFAULT true,
    is_active          boolean NOT NULL DEFAULT true,
    sort               int NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL DEFAULT now(),
    updated_at         timestamptz NOT NULL DEFAULT now()
);
-- Signup takes "the" default plan: at most one row may claim it.
CREATE UNIQUE INDEX plans_one_default ON plans (is_default) WHERE is_default;

CREATE TABLE users (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    email         text NOT NULL UNIQUE CHECK (email = lower(email) AND length(email) <= 254),
    password_hash text NOT NULL,
    role          text NOT NULL DEFAULT 'user' CHECK (role IN ('user', 'support', 'admin')),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_admins ON users (id) WHERE role = 'admin';

CREATE TABLE storage_accounts (
    id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    owner_user_id uuid NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    plan_id       uuid NOT NULL REFERENCES plans (id) ON DELETE RESTRICT,
    web_member_id uuid,  -- set by genesis; FK added below, after members
    stored_bytes  bigint NOT NULL DEFAULT 0 CHECK (stored_bytes >= 0),
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX storage_accounts_plan ON storage_accounts (plan_id);

CREATE TABLE web_sessions (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   text NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX web_sessions_user ON web_sessions (user_id);

CREATE TABLE members (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id   uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    kind         text NOT NULL CHECK (kind IN ('web', 'device')),
    user_id      uuid REFERENCES users (id) ON DELETE SET NULL,
    device_id    uuid,  -- FK added below, after devices
    roster_index int CHECK (roster_index >= 0),
    removed_at   timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX members_account ON members (account_id);

ALTER TABLE storage_accounts
    ADD CONSTRAINT storage_accounts_web_member_fk FOREIGN KEY (web_member_id)
    REFERENCES members (id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE roster_entries (
    account_id uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    idx        int NOT NULL CHECK (idx >= 0),
    statement  text NOT NULL,
    signature  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, idx)
);

CREATE TABLE devices (
    id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    account_id   uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    member_id    uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE
                 DEFERRABLE INITIALLY DEFERRED,
    name         text NOT NULL,
    os           text NOT NULL,
    arch         text NOT NULL,
    cli_version  text NOT NULL,
    key_storage  text NOT NULL,
    assistants   jsonb NOT NULL DEFAULT '[]',  -- JSON array of strings
    sign_x       text NOT NULL,
    sign_y       text NOT NULL,
    sign_jkt     text NOT NULL,
    enc_x        text NOT NULL,
    enc_y        text NOT NULL,
    welcome      text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX devices_account ON devices (account_id, created_at);
CREATE UNIQUE INDEX devices_member ON devices (member_id);

ALTER TABLE members
    ADD CONSTRAINT members_device_fk FOREIGN KEY (device_id)
    REFERENCES devices (id) ON DELETE SET NULL DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE cli_login_requests (
    id                 uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    status             text NOT NULL DEFAULT 'pending'
                       CHECK (status IN ('pending', 'approved', 'redeemed', 'denied', 'expired')),
    code_challenge     text NOT NULL,
    sign_x             text NOT NULL,
    sign_y             text NOT NULL,
    sign_jkt           text NOT NULL,
    enc_x              text NOT NULL,
    enc_y              text NOT NULL,
    device_name        text NOT NULL,
    os                 text NOT NULL,
    arch               text NOT NULL,
    cli_version        text NOT NULL,
    assistants         jsonb NOT NULL DEFAULT '[]',
    key_storage        text NOT NULL,
    connect_account_id uuid REFERENCES storage_accounts (id) ON DELETE CASCADE,
    account_id         uuid REFERENCES storage_accounts (id) ON DELETE CASCADE,
    device_id          uuid REFERENCES devices (id) ON DELETE SET NULL,
    created_at         timestamptz NOT NULL DEFAULT now(),
    expires_at         timestamptz NOT NULL,
    last_poll_at       timestamptz,
    decided_at         timestamptz,
    redeemed_at        timestamptz
);
CREATE INDEX cli_login_requests_expires ON cli_login_requests (expires_at);

CREATE TABLE connect_tokens (
    token_hash text PRIMARY KEY,
    account_id uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);

CREATE TABLE access_tokens (
    token_hash text PRIMARY KEY,
    device_id  uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    jkt        text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz
);
CREATE INDEX access_tokens_device ON access_tokens (device_id);

CREATE TABLE refresh_tokens (
    token_hash  text PRIMARY KEY,
    device_id   uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    jkt         text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    used_at     timestamptz,
    replaced_by text,  -- token_hash of the successor (rotation)
    revoked_at  timestamptz
);
CREATE INDEX refresh_tokens_device ON refresh_tokens (device_id);

CREATE TABLE pouches (
    id         uuid PRIMARY KEY,  -- chosen by the client
    account_id uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    epoch      uuid NOT NULL UNIQUE,
    key_gen    bigint NOT NULL CHECK (key_gen >= 1),
    high_water bigint NOT NULL DEFAULT 0 CHECK (high_water >= 0),
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pouches_account ON pouches (account_id, created_at);

CREATE TABLE key_envelopes (
    pouch_id          uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    member_id         uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE
                      DEFERRABLE INITIALLY DEFERRED,
    key_gen           bigint NOT NULL CHECK (key_gen >= 1),
    hpke_enc          text NOT NULL,
    ciphertext        text NOT NULL,
    created_by_member uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE
                      DEFERRABLE INITIALLY DEFERRED,
    signature         text NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, member_id, key_gen)
);
CREATE INDEX key_envelopes_member ON key_envelopes (member_id);

CREATE TABLE artifacts (
    pouch_id         uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    id               uuid NOT NULL,
    head_revision_id uuid NOT NULL,  -- FK added below, after revisions
    head_seq         bigint NOT NULL CHECK (head_seq >= 0),
    name_index       text NOT NULL DEFAULT '',
    deleted          boolean NOT NULL DEFAULT false,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, id)
);
-- Keyset pagination of op 7: ORDER BY head_seq, id within a pouch.
CREATE INDEX artifacts_keyset ON artifacts (pouch_id, head_seq, id);
CREATE INDEX artifacts_keyset_live ON artifacts (pouch_id, head_seq, id) WHERE NOT deleted;

CREATE TABLE revisions (
    pouch_id         uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    id               uuid NOT NULL,
    artifact_id      uuid NOT NULL,
    seq              bigint NOT NULL CHECK (seq >= 1),
    kind             text NOT NULL CHECK (kind IN ('put', 'delete')),
    base_revision_id uuid,
    merge_parent_id  uuid,
    conflict_id      uuid,
    key_gen          bigint NOT NULL CHECK (key_gen >= 1),
    envelope         text NOT NULL,
    envelope_hash    text NOT NULL,
    signature        text NOT NULL,
    signer_member_id uuid NOT NULL REFERENCES members (id) ON DELETE CASCADE,
    stored_size      bigint NOT NULL CHECK (stored_size >= 0),
    origin           text NOT NULL CHECK (origin IN ('cli', 'web', 'share_import')),
    blob_ids         text[] NOT NULL DEFAULT '{}',
    device_id        uuid REFERENCES devices (id) ON DELETE SET NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, id),
    FOREIGN KEY (pouch_id, artifact_id) REFERENCES artifacts (pouch_id, id)
        ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED
);
-- Revision history of op 10: newest first by seq.
CREATE INDEX revisions_history ON revisions (pouch_id, artifact_id, seq DESC);
-- Blob GC asks "is this blob referenced by any revision?".
CREATE INDEX revisions_blob_ids ON revisions USING gin (blob_ids);

ALTER TABLE artifacts
    ADD CONSTRAINT artifacts_head_fk FOREIGN KEY (pouch_id, head_revision_id)
    REFERENCES revisions (pouch_id, id) DEFERRABLE INITIALLY DEFERRED;

CREATE TABLE events (
    pouch_id    uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    epoch       uuid NOT NULL,
    seq         bigint NOT NULL CHECK (seq >= 1),
    kind        text NOT NULL CHECK (kind IN ('revision', 'key_rotation', 'roster')),
    artifact_id uuid,
    revision_id uuid,
    device_id   uuid REFERENCES devices (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, epoch, seq)
);

CREATE TABLE device_cursors (
    device_id  uuid NOT NULL REFERENCES devices (id) ON DELETE CASCADE,
    pouch_id   uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    epoch      uuid NOT NULL,
    acked_seq  bigint NOT NULL CHECK (acked_seq >= 0),
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (device_id, pouch_id, epoch)
);

CREATE TABLE commit_log (
    pouch_id     uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    operation_id uuid NOT NULL,
    body_hash    text NOT NULL,
    response     text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (pouch_id, operation_id)
);

CREATE TABLE blobs (
    account_id  uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    id          text NOT NULL,
    stored_size bigint NOT NULL CHECK (stored_size >= 0),
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (account_id, id)
);

CREATE TABLE blob_reservations (
    account_id  uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    blob_id     text NOT NULL,
    stored_size bigint NOT NULL CHECK (stored_size >= 0),
    created_at  timestamptz NOT NULL DEFAULT now(),
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (account_id, blob_id)
);
CREATE INDEX blob_reservations_expires ON blob_reservations (expires_at);

CREATE TABLE shares (
    id               uuid PRIMARY KEY,  -- chosen by the client
    account_id       uuid NOT NULL REFERENCES storage_accounts (id) ON DELETE CASCADE,
    pouch_id         uuid NOT NULL REFERENCES pouches (id) ON DELETE CASCADE,
    created_by_user  uuid REFERENCES users (id) ON DELETE SET NULL,
    label_enc        text NOT NULL,
    bundle           text NOT NULL,
    size             bigint NOT NULL CHECK (size >= 0),
    one_time         boolean NOT NULL DEFAULT false,
    views            bigint NOT NULL DEFAULT 0 CHECK (views >= 0),
    imports          bigint NOT NULL DEFAULT 0 CHECK (imports >= 0),
    expires_at       timestamptz,
    revoked_at       timestamptz,
    consumed_at      timestamptz,
    last_imported_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shares_pouch ON shares (pouch_id, created_at);

-- actor_user_id NULL means the operator (pouchctl); listings show it as "operator".
CREATE TABLE audit_log (
    id            bigserial PRIMARY KEY,
    actor_user_id uuid REFERENCES users (id) ON DELETE SET NULL,
    action        text NOT NULL,
    target        text NOT NULL,
    before        jsonb,
    after         jsonb,
    reason        text,
    request_id    text,
    at            timestamptz NOT NULL DEFAULT now()
);

-- DPoP jti replay cache when Redis is unreachable (common/auth/replay_cache.cpp).
CREATE TABLE dpop_replay (
    jkt        text NOT NULL,
    jti        text NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (jkt, jti)
);
CREATE INDEX dpop_replay_expires ON dpop_replay (expires_at);
