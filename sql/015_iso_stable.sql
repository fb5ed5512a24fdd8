-- 015_iso_stable.sql -- issue 25 (the authenticated GET's profile): iso() (003) was declared
-- IMMUTABLE, but its body calls to_char(timestamp, text), which PostgreSQL marks STABLE. A SQL
-- function whose body is more volatile than its label is never inlined, so every statement
-- that called iso() parsed, analysed and planned its body again at each execution (fmgr_sql):
-- about a fifth of PostgreSQL's CPU in `GET /v1/pouches/{id}` (perf, docs/PERFORMANCE.md).
-- Labelled STABLE, the body is inlined into the calling statement's plan and costs one
-- to_char. No index, constraint or generated column uses iso(), so nothing else changes.
ALTER FUNCTION iso(timestamptz) STABLE;
