-- 014_revision_envelope_storage.sql -- issue 25 (initial sync): revisions.envelope is stored
-- out of line without compression. An envelope is base64url of AES-GCM ciphertext, which no
-- compressor shrinks, yet PostgreSQL's default (EXTENDED) runs pglz over every envelope over
-- about 2 KB before giving up: 6.5 % of the server's CPU in a commit of small files, and
-- EXTERNAL took one 2.1 MB batch from 14.9 to 12.9 ms (docs/PERFORMANCE.md). Only how new
-- values are stored changes: no row is rewritten, and the lock is held for an instant.
ALTER TABLE revisions ALTER COLUMN envelope SET STORAGE EXTERNAL;
