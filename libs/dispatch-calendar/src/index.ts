export * from './calendar';
export * from './settings';
export * from './period';
