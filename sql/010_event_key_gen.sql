-- 010_event_key_gen.sql -- issue 23 (events say enough, docs/SYNC.md "Following the event log").
-- events.key_gen: the pouch's key generation once a `key_rotation` or `roster` event was
-- appended (common/model/pouch_events.cpp writes it), so a client learns a rotation's new
-- generation from the event itself. NULL on `revision` events (their revision's key_gen is
-- read from the revision) and on events written before this migration.
-- Adding a nullable column rewrites nothing.
ALTER TABLE events ADD COLUMN key_gen bigint;
