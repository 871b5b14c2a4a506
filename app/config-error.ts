import { ConfigFileError } from '../src/config-file-error';

/** A problem in the app's configuration file (svc.config.json), naming the file, the field and the value. */
export class AppConfigError extends ConfigFileError {
  override readonly name = 'AppConfigError';
}
