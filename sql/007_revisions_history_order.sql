-- 007_revisions_history_order.sql -- revisions_history led with pouch_id, so a lookup by
-- primary key (pouch_id, id) had a second candidate index. On a table PostgreSQL holds no
-- statistics for yet (a fresh install, until the first autoanalyze) both estimate one row at
-- the same cost and the planner took revisions_history: Index Cond pouch_id, Filter id, a
-- heap fetch for every revision of the pouch on each lookup. The handlers' prepared
-- statements kept that generic plan until autovacuum analyzed the table, and in that window
-- a commit of 10 ops into a pouch of ~10,000 revisions took 250 ms instead of 10 (make bench,
-- docs/PERFORMANCE.md). Led by artifact_id, the index serves only what it is for (one
-- artifact's history, newest first) and the primary key is the only index a lookup by id can
-- use. Built before the old one is dropped: writes to revisions wait for the build, reads
-- only for the drop and rename at its end.
CREATE INDEX revisions_history_new ON revisions (artifact_id, pouch_id, seq DESC);
DROP INDEX revisions_history;
ALTER INDEX revisions_history_new RENAME TO revisions_history;
