/**
 * One tenant's audit log. Events are kept oldest first and capped, so a long demo or a fault
 * run cannot grow memory or the state file without bound; `recent` answers newest first.
 */
import type { AuditEvent } from './model';

export const AUDIT_LOG_CAPACITY = 10_000;

export const AUDIT_CATEGORIES = {
  lists: 'Lists',
  sites: 'Sites',
  userActions: 'User Actions',
} as const;

export class AuditLog {
  private readonly events: AuditEvent[];

  constructor(events: AuditEvent[] = []) {
    this.events = events.slice(-AUDIT_LOG_CAPACITY);
  }

  record(event: AuditEvent): void {
    this.events.push(event);
    if (this.events.length > AUDIT_LOG_CAPACITY) this.events.splice(0, this.events.length - AUDIT_LOG_CAPACITY);
  }

  /** Newest first, at most `limit`. Events recorded in the same second keep their order. */
  recent(limit: number): AuditEvent[] {
    const newestFirst: AuditEvent[] = [];
    for (let index = this.events.length - 1; index >= 0 && newestFirst.length < limit; index -= 1) {
      newestFirst.push({ ...this.events[index] });
    }
    return newestFirst;
  }

  all(): AuditEvent[] {
    return this.events.map((event) => ({ ...event }));
  }
}
