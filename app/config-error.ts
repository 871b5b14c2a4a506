/** A configuration problem, naming the file, the field and the value. */
export class AppConfigError extends Error {
  readonly code = 'invalid_config';
  constructor(
    readonly file: string,
    readonly field: string,
    message: string,
  ) {
    super(`${file}: ${field}: ${message}`);
    this.name = 'AppConfigError';
  }
}
