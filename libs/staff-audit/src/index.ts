export {
  STAFF_ACTIONS_TABLE,
  staffActionsMigration,
  recordStaffAction,
  listStaffActions,
  allStaffActionsOn,
  staffActionsPage,
  staffActionMessage,
  exportStaffActions,
  opsActor,
} from './log';
export type { StaffAction, StaffActionCursor, StaffActionQuery, StaffActionRecord } from './log';
export { auditExportCommand } from './ops';
export { recordExport, type ExportBounds } from './exports';
