/** The management-API client: import from here, not from the modules behind it. */
export * from './client';
export * from './errors';
export * from './redaction';
export * from './reply';
export * from './retry';
export * from './session';
export * from './shared-read';
export * from './transport';
export * from './types';
export * from './validation';
