-- Custom migration (drizzle-kit generate --custom): the roles the schema's policies name.
-- Idempotent, so a second database in the same cluster (roles are cluster-wide) migrates too.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'app_user') THEN
    CREATE ROLE app_user NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'app_sweeper') THEN
    CREATE ROLE app_sweeper NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT;
  END IF;
END
$$;
--> statement-breakpoint
-- The connecting (migrating) user must be a member to `SET LOCAL ROLE` in each transaction.
GRANT app_user TO CURRENT_USER;
--> statement-breakpoint
GRANT app_sweeper TO CURRENT_USER;
--> statement-breakpoint
GRANT USAGE ON SCHEMA public TO app_user, app_sweeper;
