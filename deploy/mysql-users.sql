-- The MySQL users of each service, two per database: `storefront_<service>_migrate` applies the
-- migrations (DDL, and DML for knex's own tables); `storefront_<service>` is the one a running
-- service connects as, with DML only. deploy/compose.yaml runs this file on a fresh MySQL; for
-- another server, run it as an administrator with your own passwords (docs/operations.md).

CREATE DATABASE IF NOT EXISTS storefront_identity CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'storefront_identity_migrate'@'%' IDENTIFIED BY 'identity-migrate-local';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, INDEX, REFERENCES ON storefront_identity.* TO 'storefront_identity_migrate'@'%';
CREATE USER IF NOT EXISTS 'storefront_identity'@'%' IDENTIFIED BY 'identity-local';
GRANT SELECT, INSERT, UPDATE, DELETE ON storefront_identity.* TO 'storefront_identity'@'%';

CREATE DATABASE IF NOT EXISTS storefront_loyalty CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'storefront_loyalty_migrate'@'%' IDENTIFIED BY 'loyalty-migrate-local';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, INDEX, REFERENCES ON storefront_loyalty.* TO 'storefront_loyalty_migrate'@'%';
CREATE USER IF NOT EXISTS 'storefront_loyalty'@'%' IDENTIFIED BY 'loyalty-local';
GRANT SELECT, INSERT, UPDATE, DELETE ON storefront_loyalty.* TO 'storefront_loyalty'@'%';

CREATE DATABASE IF NOT EXISTS storefront_checkout CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'storefront_checkout_migrate'@'%' IDENTIFIED BY 'checkout-migrate-local';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, INDEX, REFERENCES ON storefront_checkout.* TO 'storefront_checkout_migrate'@'%';
CREATE USER IF NOT EXISTS 'storefront_checkout'@'%' IDENTIFIED BY 'checkout-local';
GRANT SELECT, INSERT, UPDATE, DELETE ON storefront_checkout.* TO 'storefront_checkout'@'%';

CREATE DATABASE IF NOT EXISTS storefront_inventory CHARACTER SET utf8mb4 COLLATE utf8mb4_bin;
CREATE USER IF NOT EXISTS 'storefront_inventory_migrate'@'%' IDENTIFIED BY 'inventory-migrate-local';
GRANT SELECT, INSERT, UPDATE, DELETE, CREATE, ALTER, DROP, INDEX, REFERENCES ON storefront_inventory.* TO 'storefront_inventory_migrate'@'%';
CREATE USER IF NOT EXISTS 'storefront_inventory'@'%' IDENTIFIED BY 'inventory-local';
GRANT SELECT, INSERT, UPDATE, DELETE ON storefront_inventory.* TO 'storefront_inventory'@'%';
