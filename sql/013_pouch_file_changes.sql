-- 013_pouch_file_changes.sql -- issue 24 (web papercuts): pouches.file_changes, the number of
-- `revision` events in the pouch's log (a file added, changed, renamed or deleted: what a person
-- calls a change; key rotations and roster events are not). Kept by statement triggers on
-- events, as 008 keeps meta_bytes, so the pouch list reads it without counting; a log rebuilt
-- by `pouchctl gc` (old events deleted, revisions replayed) is counted out and in again.
ALTER TABLE pouches ADD COLUMN file_changes bigint NOT NULL DEFAULT 0 CHECK (file_changes >= 0);

UPDATE pouches p SET file_changes = c.n
  FROM (SELECT pouch_id, count(*) AS n FROM events WHERE kind = 'revision' GROUP BY 1) c
 WHERE p.id = c.pouch_id;

CREATE FUNCTION pouch_file_changes_in() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE pouches p SET file_changes = p.file_changes + d.n
      FROM (SELECT pouch_id, count(*) AS n FROM new_rows WHERE kind = 'revision' GROUP BY 1) d
     WHERE p.id = d.pouch_id;
    RETURN NULL;
END $$;

CREATE FUNCTION pouch_file_changes_out() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    UPDATE pouches p SET file_changes = p.file_changes - d.n
      FROM (SELECT pouch_id, count(*) AS n FROM old_rows WHERE kind = 'revision' GROUP BY 1) d
     WHERE p.id = d.pouch_id;
    RETURN NULL;
END $$;

CREATE TRIGGER events_file_changes_ins AFTER INSERT ON events
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION pouch_file_changes_in();
CREATE TRIGGER events_file_changes_del AFTER DELETE ON events
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION pouch_file_changes_out();
