/**
 * Typed errors of the emulator. Each has a stable `code`; messages name the field and the
 * value and say how to fix them. None of them ever carries an API key or a token.
 */

/** A command the emulator refuses: travels to the caller as `{"Error": message}` with HTTP 200. */
export class ApiCommandError extends Error {
  readonly code = 'api_command_error';
  constructor(message: string) {
    super(message);
    this.name = 'ApiCommandError';
  }
}

/** A bad seed/config file, flag value or fault specification, found before the server starts. */
export class EmulatorConfigError extends Error {
  readonly code = 'invalid_emulator_config';
  constructor(message: string) {
    super(message);
    this.name = 'EmulatorConfigError';
  }
}

/** A state file that cannot be read back; the message names the file and how to recover. */
export class StateFileError extends Error {
  readonly code = 'invalid_state_file';
  constructor(
    readonly file: string,
    reason: string,
    howToFix = 'Fix it, or move it away to start from the seed',
  ) {
    super(`State file ${file} cannot be used: ${reason}. ${howToFix}.`);
    this.name = 'StateFileError';
  }
}

/** A bad request to an admin route (`/_emulator/...`): answered with HTTP 400 or 404. */
export class AdminRequestError extends Error {
  readonly code = 'invalid_admin_request';
  constructor(
    message: string,
    readonly status: 400 | 404 = 400,
  ) {
    super(message);
    this.name = 'AdminRequestError';
  }
}

/** Describes a JSON value briefly for error messages (never used on secrets). */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  if (text === undefined) return typeof value;
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
