// What a client passes to the Podplan language server in `initializationOptions`. The VS Code
// client builds it from the settings; any other editor's client may pass it too.

export interface InitializationOptions {
  /**
   * Wait this long after the last change before publishing diagnostics. Left out, the wait adapts:
   * none while validation is cheap, about the last validation's cost (at most 150 ms) when not.
   */
  readonly debounceMs?: number;
  /** The schedulerName that hands pods to the planner (default podset-planner-scheduler). */
  readonly plannerSchedulerName?: string;
  /**
   * The plan history database (the extension passes its global storage): a file, ':memory:', or
   * false for none; PODPLAN_DB or the user's data directory when left out.
   */
  readonly historyDatabase?: string | false;
}

/**
 * The options as a client sent them, each field kept only when it has its declared type (another
 * editor's client may send anything): the server reads them through this, never by a cast.
 */
export function readInitializationOptions(sent: unknown): InitializationOptions {
  const o = typeof sent === 'object' && sent !== null ? (sent as Record<string, unknown>) : {};
  const { debounceMs, plannerSchedulerName, historyDatabase } = o;
  return {
    ...(typeof debounceMs === 'number' && debounceMs >= 0 ? { debounceMs } : {}),
    ...(typeof plannerSchedulerName === 'string' && plannerSchedulerName !== '' ? { plannerSchedulerName } : {}),
    ...(typeof historyDatabase === 'string' || historyDatabase === false ? { historyDatabase } : {}),
  };
}
