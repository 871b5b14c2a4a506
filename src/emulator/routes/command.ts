/** What every `/svc_api` command handler sees and returns. */
import type { EmulatorClock } from '../clock';
import type { User } from '../model';
import type { EmulatorStore } from '../store';
import type { TokenStore } from '../tokens';

/** Stands in for the user while `login` runs, before any user is known. */
export const NO_USER: Readonly<User> = { email: '', apiKeyHash: '', active: false, readOnly: true };

export type CommandReply = { Ok: unknown } | { ok: unknown } | { Error: string };

export interface CommandContext {
  readonly body: Record<string, unknown>;
  readonly store: EmulatorStore;
  readonly tokens: TokenStore;
  readonly clock: EmulatorClock;
  readonly now: number;
  /** The token's user; set for every command that requires a token. */
  readonly user: User;
}

export interface CommandSpec {
  /** False only for login. */
  readonly requiresToken: boolean;
  /** Refused for read-only users. */
  readonly writes: boolean;
  /**
   * The state file is saved after a successful run; a function decides from the reply, so a
   * command that only sometimes changes state (a failed login) does not rewrite the file.
   */
  readonly changesState: boolean | ((reply: CommandReply) => boolean);
  run(context: CommandContext): CommandReply;
}

/** The commands of one area (`/svc_api/v2/<area>`), by `command`. */
export type AreaCommands = Readonly<Record<string, CommandSpec>>;
