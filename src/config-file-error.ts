/**
 * A problem in a configuration file, naming the file, the field and the value: the app's own
 * settings (app/config.ts) and the securityPolicy section the constructs read
 * (modules/security-policy/config.ts) both report through it, so the app words and classifies
 * them alike. Each keeps its own subclass, so a caller can still tell which reader refused.
 */
export class ConfigFileError extends Error {
  readonly code = 'invalid_config';
  constructor(
    readonly file: string,
    readonly field: string,
    message: string,
  ) {
    super(`${file}: ${field}: ${message}`);
    this.name = 'ConfigFileError';
  }
}
