export { startPlatform, type PlatformComponents, type PlatformOptions, type RunningPlatform } from './platform';
export { readPlatformConfig, readHostedComponents, COMPONENTS, type Component, type PlatformConfig } from './config';
