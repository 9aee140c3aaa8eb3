export * from './client-address';
export * from './limits';
export * from './redis';
export * from './window-counters';
