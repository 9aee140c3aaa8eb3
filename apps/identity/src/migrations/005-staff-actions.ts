import type { Migration } from '@storefront/db';
import { STAFF_ACTIONS_TABLE, staffActionsMigration } from '@storefront/staff-audit';

/**
 * Staff logins move to the staff audit log every component keeps (libs/staff-audit), so the
 * console reads one shape everywhere; the rows of the first log are carried over.
 */
export const staffActions: Migration = {
  async up(db) {
    await staffActionsMigration.up(db);
    const rows = await db('staff_audit')
      .leftJoin('staff', 'staff.email', 'staff_audit.staff_email')
      .orderBy('staff_audit.id', 'asc')
      .select(
        'staff_audit.at',
        'staff_audit.staff_email',
        'staff_audit.action',
        'staff_audit.client_address',
        'staff.id as staff_id',
        'staff.role',
      );
    for (const row of rows) {
      await db(STAFF_ACTIONS_TABLE).insert({
        at: row.at,
        staff_id: row.staff_id ?? '',
        staff_email: row.staff_email,
        role: row.role ?? '',
        client_address: row.client_address,
        action: row.action,
        subject: row.staff_email,
      });
    }
    await db.schema.dropTable('staff_audit');
  },
  async down(db) {
    await db.schema.createTable('staff_audit', (t) => {
      t.increments('id').primary();
      t.bigInteger('at').notNullable().index();
      t.string('staff_email', 254).notNullable();
      t.string('action', 64).notNullable();
      t.string('client_address', 64).notNullable();
      t.string('detail', 500).nullable();
    });
    await staffActionsMigration.down(db);
  },
};
