-- 006_read_indexes.sql -- artifacts_head_fk points from artifacts (pouch_id, head_revision_id)
-- to revisions; without an index on the referencing side, every deleted revision (pouch or
-- account deletion, which cascade through revisions) scans all of the pouch's artifacts, so
-- deleting a pouch of n artifacts took O(n^2): about a minute for 20,000.
CREATE INDEX artifacts_head_revision ON artifacts (pouch_id, head_revision_id);
