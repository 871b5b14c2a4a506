/**
 * V8 flags (all on by default) that are off while the release makes a code cache by running a
 * script (the main script to its handshake line, build.ts; the service through a plan,
 * service-warm-up.ts). V8's compilers beyond the interpreter (Sparkplug, Maglev, TurboFan) and
 * its bytecode flushing act at moments that depend on timing (a function that has run enough, a
 * background job, the garbage collections so far) and leave marks in the cached function data:
 * with Sparkplug on, two builds of one commit differed by a byte now and then, and a warm-up
 * under the whole suite with coverage still differed with it off alone. They are on again
 * before the cache is written, because the flags are in the hash a cache is checked against when
 * the executable loads it (they then stay on there).
 */
export const TIMING_DEPENDENT_V8_FLAGS = ['sparkplug', 'maglev', 'turbofan', 'flush-bytecode'] as const;

/** For v8.setFlagsFromString: the flags off, while the script runs. */
export const TIMING_DEPENDENT_FLAGS_OFF = TIMING_DEPENDENT_V8_FLAGS.map((flag) => `--no-${flag}`).join(' ');

/** For v8.setFlagsFromString: the flags on again, before the cache is written. */
export const TIMING_DEPENDENT_FLAGS_ON = TIMING_DEPENDENT_V8_FLAGS.map((flag) => `--${flag}`).join(' ');
