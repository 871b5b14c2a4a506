/**
 * jest globalSetup of the end-to-end tier (jest.config.js): the run's temporary directory
 * (global-setup.ts).
 */
import globalSetup from './global-setup';

export default function endToEndSetup(): void {
  globalSetup();
}
