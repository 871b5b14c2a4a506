/**
 * The provider's log threshold: SVC_LOG (ours), else TF_LOG_PROVIDER (terraform's setting for
 * provider logs, which help/provider.md tells users to set), else TF_LOG.
 */
import { logLevelFromEnv } from '../../src/provider/protocol/log';

describe('logLevelFromEnv', () => {
  test.each([
    ['nothing set means info', {}, 'info'],
    ['TF_LOG alone', { TF_LOG: 'debug' }, 'debug'],
    ['TF_LOG_PROVIDER alone (help/provider.md: TF_LOG_PROVIDER=DEBUG terraform apply)', { TF_LOG_PROVIDER: 'DEBUG' }, 'debug'],
    ['TF_LOG_PROVIDER is more specific than TF_LOG', { TF_LOG: 'error', TF_LOG_PROVIDER: 'trace' }, 'trace'],
    ['SVC_LOG wins over both', { SVC_LOG: 'warn', TF_LOG: 'trace', TF_LOG_PROVIDER: 'trace' }, 'warn'],
    ['a value that is not a level name means trace, as in terraform', { TF_LOG_PROVIDER: '1' }, 'trace'],
    ['off keeps only errors', { TF_LOG_PROVIDER: 'off' }, 'error'],
    ['warning is warn', { TF_LOG: 'WARNING' }, 'warn'],
  ] as Array<[string, NodeJS.ProcessEnv, string]>)('%s', (_name, env, level) => {
    expect(logLevelFromEnv(env)).toBe(level);
  });
});
