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
