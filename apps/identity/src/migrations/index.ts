import type { Migration } from '@storefront/db';
import { mailLogMigration, mailOutboxMigration } from '@storefront/outbox';
import { accounts } from './001-accounts';
import { passwordResets } from './003-password-resets';
import { staff } from './004-staff';
import { staffActions } from './005-staff-actions';
import { staffCredentials } from './010-staff-credentials';
import { emailVerification } from './030-email-verification';
import { marketingConsent } from './040-marketing-consent';
import { accountErasures } from './045-account-erasures';
import { inventoryErasureStep } from './046-inventory-erasure-step';
import { customersByCreation } from './047-customers-by-creation';

/** Applied in name order; never edit a released migration, add a new one. */
export const migrations: Record<string, Migration> = {
  '001-accounts': accounts,
  // Welcome, reset and password-changed mails, queued with what causes them (libs/outbox).
  '002-mail-outbox': mailOutboxMigration,
  '003-password-resets': passwordResets,
  '004-staff': staff,
  '005-staff-actions': staffActions,
  '010-staff-credentials': staffCredentials,
  '030-email-verification': emailVerification,
  '040-marketing-consent': marketingConsent,
  '045-account-erasures': accountErasures,
  '046-inventory-erasure-step': inventoryErasureStep,
  '047-customers-by-creation': customersByCreation,
  '048-mail-log': mailLogMigration,
};
