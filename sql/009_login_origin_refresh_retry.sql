-- 009_login_origin_refresh_retry.sql -- issue 22 (decisions §15).
-- started_ip: the client address nginx saw when the CLI login started (after its trusted-proxy
-- handling), shown by the approving page with connect_token_used (connect_account_id set);
-- NULL for requests started before this migration and when the address was not an IP.
-- A refresh retried after a lost answer (docs/LOGIN.md §6): refresh_tokens.access_token_hash
-- names the access token issued with the refresh token, access_tokens.used_at records its
-- first use, and refresh_tokens.retried_at the one retry a rotated token is granted, so the
-- pair of the lost answer can be revoked, and only while neither of its tokens was used.
-- Adding nullable columns rewrites nothing: no lock is held beyond the ALTERs themselves.
ALTER TABLE cli_login_requests ADD COLUMN started_ip text;
ALTER TABLE access_tokens ADD COLUMN used_at timestamptz;
ALTER TABLE refresh_tokens ADD COLUMN access_token_hash text;
ALTER TABLE refresh_tokens ADD COLUMN retried_at timestamptz;
