-- iso(ts): timestamps as API date-time strings (RFC 3339, UTC, millisecond precision).
-- Marked IMMUTABLE because the zone is fixed to UTC, so it may be used in indexes.
CREATE OR REPLACE FUNCTION iso(ts timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
AS $$ SELECT to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
