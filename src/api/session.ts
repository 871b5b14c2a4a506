/**
 * The session token: logged in lazily on first use, reused afterwards, and renewed at most once
 * per stale token however many callers notice the expiry at the same time: they all await the
 * same login.
 */

export class Session {
  private token: string | undefined;
  private pendingLogin: Promise<string> | undefined;

  constructor(private readonly login: () => Promise<string>) {}

  /** The token in force, logging in first when there is none yet. */
  current(): Promise<string> {
    if (this.token !== undefined) return Promise.resolve(this.token);
    return this.startLogin();
  }

  /**
   * A token to use instead of `staleToken`. If somebody already replaced it, that token is
   * returned without another login; if a login is under way, its result is shared.
   */
  renew(staleToken: string): Promise<string> {
    if (this.token !== undefined && this.token !== staleToken) return Promise.resolve(this.token);
    if (this.token === staleToken) this.token = undefined;
    return this.startLogin();
  }

  private startLogin(): Promise<string> {
    if (this.pendingLogin === undefined) {
      const pending = this.login().then(
        (token) => {
          this.token = token;
          this.pendingLogin = undefined;
          return token;
        },
        (error: unknown) => {
          this.pendingLogin = undefined;
          throw error;
        },
      );
      this.pendingLogin = pending;
    }
    return this.pendingLogin;
  }
}
