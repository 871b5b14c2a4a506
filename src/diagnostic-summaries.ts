/**
 * Summaries of the svc provider's diagnostics that tools reading terraform's output look for
 * (src/pipeline/plan-failure.ts, used by the drift check). One source, so the drift check finds
 * what the provider says without importing the provider server: src/pipeline ships in the
 * library, and the provider server does not belong there.
 */

/** The summary of the note the provider gives a resource it skipped because the login failed earlier in the run. */
export const EARLIER_LOGIN_FAILURE_SUMMARY = 'Skipped: the svc provider could not log in';
