-- 016_blob_record.sql -- issue 27: an upload's row in one round trip. Once its bytes are in
-- the store, an upload took the account's lock, read the blob and its reservation, then
-- inserted the blob, deleted the reservation and added the bytes: six round trips, about 1 ms
-- of a 4 MiB upload to S3, with the account's lock held for all of them (the other uploads of
-- the account wait on it). blob_record does the same in one statement. Each statement of a
-- VOLATILE PL/pgSQL function reads with a snapshot of its own, so the read after the lock
-- sees every upload and check committed before the lock was granted, as the read of a
-- separate statement did (one statement could not: its snapshot predates the lock).
-- outcome: 'stored' (the blob was already stored: stored_size is its size), 'unreserved' (no
-- active reservation), 'resized' (the reservation now says stored_size bytes), 'renewed'
-- (the reservation is another than p_reserved_since, the one read before the bytes were
-- sent: nothing written, the caller asks the store again under the lock), 'recorded'.
CREATE FUNCTION blob_record(p_account uuid, p_blob text, p_size bigint, p_reserved_since bigint,
                            OUT outcome text, OUT stored_size bigint)
LANGUAGE plpgsql AS $$
DECLARE
    b_size  bigint;
    r_size  bigint;
    r_since bigint;
BEGIN
    PERFORM 1 FROM storage_accounts WHERE id = p_account FOR UPDATE;
    SELECT (SELECT b.stored_size FROM blobs b WHERE b.account_id = p_account AND b.id = p_blob),
           r.stored_size, (extract(epoch FROM r.created_at) * 1000000)::bigint
      INTO b_size, r_size, r_since
      FROM (SELECT 1) AS one LEFT JOIN blob_reservations r
        ON r.account_id = p_account AND r.blob_id = p_blob AND r.expires_at > now();
    IF b_size IS NOT NULL THEN
        outcome := 'stored'; stored_size := b_size;
    ELSIF r_size IS NULL THEN
        outcome := 'unreserved';
    ELSIF r_size <> p_size THEN
        outcome := 'resized'; stored_size := r_size;
    ELSIF r_since IS DISTINCT FROM p_reserved_since THEN
        outcome := 'renewed';
    ELSE
        INSERT INTO blobs (account_id, id, stored_size) VALUES (p_account, p_blob, p_size);
        DELETE FROM blob_reservations WHERE account_id = p_account AND blob_id = p_blob;
        UPDATE storage_accounts SET blob_bytes = blob_bytes + p_size WHERE id = p_account;
        outcome := 'recorded'; stored_size := p_size;
    END IF;
END $$;
