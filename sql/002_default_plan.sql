-- 002_default_plan.sql -- the plan every signup gets (decisions §4: is_default = true).
-- A fixed id so tests and docs can name it; ON CONFLICT keeps a hand-made 'free' plan.

INSERT INTO plans (id, slug, name, description, price_cents, currency, interval, pouch_limit,
                   storage_bytes, billing_product_id, is_default, is_public, is_active, sort)
VALUES ('00000000-0000-4000-8000-000000000001', 'free', 'Free', '', 0, 'USD', 'none', 5,
        1073741824, NULL, true, true, true, 0)
ON CONFLICT DO NOTHING;
