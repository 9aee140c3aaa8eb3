export { startPlatform, type PlatformComponents, type PlatformOptions, type RunningPlatform } from './platform';
export { readPlatformConfig, readHostedComponents, COMPONENTS, type Component, type PlatformConfig } from './config';
export { platformOps } from './ops/commands';
export { restoreBackup, takeBackup, type BackupManifest } from './backup/archive';
export { readBackupSchedule, scheduledBackupName, takeScheduledBackup } from './backup/schedule';
