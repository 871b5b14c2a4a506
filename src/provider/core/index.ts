/** The protocol-free provider core: values, types, schemas, diagnostics and definitions. */
export * from './definition';
export * from './diagnostics';
export * from './functions';
export * from './schema';
export * from './types';
export * from './values';
export * from './hook-warnings';
