-- 004_usage_split.sql -- usage is kept where its writer already holds a lock: revision bytes
-- per pouch (commits serialise on the pouch row, so commits to different pouches never wait
-- on one account row) and uploaded blob bytes per account (blob check and upload lock the
-- account row). An account's usage = blob_bytes + sum(pouches.stored_bytes).
ALTER TABLE storage_accounts RENAME COLUMN stored_bytes TO blob_bytes;
ALTER TABLE pouches ADD COLUMN stored_bytes bigint NOT NULL DEFAULT 0 CHECK (stored_bytes >= 0);
