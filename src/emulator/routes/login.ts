/** `/svc_api/v2/login`: exchanges an API key for a session token. */
import { ApiCommandError } from '../errors';
import type { AreaCommands, CommandReply } from './command';

/** Whether a login reply issued a token (the only way a login changes state). */
export function loginSucceeded(reply: CommandReply): boolean {
  return 'Ok' in reply && (reply.Ok as { status?: boolean }).status === true;
}

export const loginCommands: AreaCommands = {
  login: {
    requiresToken: false,
    writes: false,
    // A failed login changes nothing: rewriting a large state file for it made a burst of bad
    // keys slow the emulator for everyone.
    changesState: loginSucceeded,
    run({ body, store, tokens, now }) {
      const apiKey = body.api_token;
      if (typeof apiKey !== 'string' || apiKey === '') {
        throw new ApiCommandError('Missing field: api_token (the API key, a non-empty string)');
      }
      const user = store.userByApiKey(apiKey);
      // Unknown keys and inactive users look the same to the caller: bad credentials.
      if (!user || !user.active) return { Ok: { status: false } };
      return { Ok: { status: true, token: tokens.issue(user.email, now) } };
    },
  },
};
