export * from './calendar';
export * from './settings';
